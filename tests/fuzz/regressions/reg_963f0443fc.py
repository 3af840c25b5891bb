# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | wrong exception message for ZeroDivisionError
# | ('division by zero', '0.0 cannot be raised to a negative power')
# |   expected: [raises ZeroDivisionError('0.0 cannot be raised to a negative power') on lane (0,)]
# |   got:      raises ZeroDivisionError('division by zero')
# | (NumPy-valued oracle: batched raised ZeroDivisionError('division by zero'), which no lane of either oracle raises first)

import math

def f(x_1: float):
    x_1, v_2 = (0, 0 ** (-1))
    return x_1 / x_1

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float):
# shim|     x_1, v_2 = (0, 0 ** (-1))
# shim|     return x_1 / x_1
