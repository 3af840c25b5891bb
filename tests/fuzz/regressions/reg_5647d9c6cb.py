# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_3 float array 1 -0x1.e0fb70f1a6914p+55
# arg: b_4 bool array 0d False

# | batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | batched call raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value") but every lane of the scalar function returned
# |   expected: [(False, False)]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value"), which no lane of either oracle raises first)

import math

def f(x_3: float, b_4: bool):
    if x_3:
        x_3 -= x_3
    elif b_4:
        return (b_4, b_4)
    return (b_4, b_4)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_3: float, b_4: bool):
# shim|     if x_3:
# shim|         x_3 -= x_3
# shim|     elif b_4:
# shim|         return (b_4, b_4)
# shim|     return (b_4, b_4)
