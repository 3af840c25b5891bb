# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | batched call raised RuntimeWarning: invalid value encountered in cast
# | (RuntimeWarning('invalid value encountered in cast'), ZeroDivisionError('integer division or modulo by zero'), (0,))
# |   expected: [raises ZeroDivisionError('integer division or modulo by zero') on lane (0,)]
# |   got:      raises RuntimeWarning('invalid value encountered in cast')
# | (NumPy-valued oracle: batched raised RuntimeWarning('invalid value encountered in cast'), which no lane of either oracle raises first)

import math

def f(x_1: float):
    v_2 = 0
    if x_1 < 1:
        x_1 = 0
        v_4, v_2 = (x_1, 0.0)
    else:
        return (v_2, 0, 0)
    v_2 = v_4
    return (0, v_2 // v_2, v_2)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float):
# shim|     v_2 = 0
# shim|     if x_1 < 1:
# shim|         x_1 = 0
# shim|         v_4, v_2 = (x_1, 0.0)
# shim|     else:
# shim|         return (v_2, 0, 0)
# shim|     v_2 = v_4
# shim|     return (0, v_2 // v_2, v_2)
