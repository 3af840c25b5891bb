# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x1.0000000000000p+0
# arg: x_2 float array 1 0x1.6eb9ebb081f94p+2
# arg: x_3 float array 1 0x1.c438748662915p+476

# | numba backend: batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | batched call raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value") but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value"), which no lane of either oracle raises first)

import math

def f(x_1: float, x_2: float, x_3: float):
    v_4, v_5 = (x_1, -9223372036854775807)
    if math.pow(v_5, v_5):
        if x_2:
            return v_5 | 1
    else:
        v_5 = x_3
    return 0

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float, x_3: float):
# shim|     v_4, v_5 = (x_1, -9223372036854775807)
# shim|     if fuzz_shim.pow(v_5, v_5):
# shim|         if x_2:
# shim|             return v_5 | 1
# shim|     else:
# shim|         v_5 = x_3
# shim|     return 0
