# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 0d True
# arg: x_2 float array 9 0x1.d20062fc72a52p+53 -0x0.0p+0 -0x1.b898c5d606a38p-469 0x1.0000000000001p+53 0x0.0000000000001p-1022 -0x0.0p+0 0x1.0c6f7a0b5ed8dp-20 -0x1.35a686646bba5p+3 -0x0.0000000000001p-1022

# | expected a VectorizeValueError for the complex result on lane (2,), got UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value"), which no lane of either oracle raises first)

import math
K_0 = 0

def f(bb_501: bool, xx_502: float):
    for ii_503 in range(K_0):
        fuelfuel_504 = 0
        while fuelfuel_504 < 1 and bb_501:
            fuelfuel_504 += 1
            return xx_502
    for ii_506 in range(0):
        return bb_501
    return xx_502 ** 3.75

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| K_0 = 0
# shim| 
# shim| def f(bb_501: bool, xx_502: float):
# shim|     for ii_503 in range(K_0):
# shim|         fuelfuel_504 = 0
# shim|         while fuelfuel_504 < 1 and bb_501:
# shim|             fuelfuel_504 += 1
# shim|             return xx_502
# shim|     for ii_506 in range(0):
# shim|         return bb_501
# shim|     return fuzz_shim.power(xx_502, 3.75)
