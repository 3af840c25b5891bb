# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 0d False
# arg: x_2 float array 1 0x0.0p+0

# | batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | batched call raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value") but every lane of the scalar function returned
# |   expected: [False]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value"), which no lane of either oracle raises first)

import math
K_0 = 0

def f(bb_501: bool, xx_502: float):
    fuelfuel_504 = 0
    while fuelfuel_504 < 1 and bb_501:
        fuelfuel_504 += 1
        return xx_502
    for ii_507 in range(0):
        return K_0
    return bb_501

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| K_0 = 0
# shim| 
# shim| def f(bb_501: bool, xx_502: float):
# shim|     fuelfuel_504 = 0
# shim|     while fuelfuel_504 < 1 and bb_501:
# shim|         fuelfuel_504 += 1
# shim|         return xx_502
# shim|     for ii_507 in range(0):
# shim|         return K_0
# shim|     return bb_501
