# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_9 int array 8 -2 3 28574 19 -415 -2 0 -1


# | batched call raised ZeroDivisionError: division by zero
# | (ZeroDivisionError('division by zero'), ValueError('math domain error'), (0,))
# |   expected: [raises ValueError('math domain error') on lane (0,)]
# |   got:      raises ZeroDivisionError('division by zero')
# | (NumPy-valued oracle: batched raised ZeroDivisionError('division by zero'), which no lane of either oracle raises first)

import math

def g_0(a_1: float):
    fuel_7 = 0
    return min(a_1, math.fmod(False, fuel_7), fuel_7 / fuel_7)

def f(n_9: int):
    v_10 = n_9
    return (g_0(0), v_10)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def g_0(a_1: float):
# shim|     fuel_7 = 0
# shim|     return min(a_1, math.fmod(False, fuel_7), fuel_7 / fuel_7)
# shim| 
# shim| def f(n_9: int):
# shim|     v_10 = n_9
# shim|     return (g_0(0), v_10)
