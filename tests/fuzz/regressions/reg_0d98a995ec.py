# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0
# arg: x_2 float array 1 0x0.0p+0

# | numba backend: wrong value
# | ((0,), 0, 1, None)
# |   expected: [(0, 0, 0.0)]
# |   got:      (int64[1] [1], int64[1] [0], float64[1] [0.0])
# | (NumPy-valued oracle: lane (0,): batched (1, 0, 0.0), libm oracle (0, 0, 0.0), NumPy oracle (0, 0, 0.0))

import math

def f(x_1: float, x_2: float):
    if (-1) ** 0 >= x_1:
        v_3 = 0
    else:
        return (True, 0, 0)
    return (0, 0, x_1)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float):
# shim|     if (-1) ** 0 >= x_1:
# shim|         v_3 = 0
# shim|     else:
# shim|         return (True, 0, 0)
# shim|     return (0, 0, x_1)
