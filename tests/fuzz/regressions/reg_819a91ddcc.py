# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_7 float array 4 -0x0.199999999999ap-1022 0x1.0000000000000p+0 0x1.62e51eb851eb8p+9 -0x1.9fcbedd4f621ep+2
# arg: x_8 float array 4 0x1.2a05f20000000p+33 -0x1.24648afd98217p+3 0x1.febf049451740p+2 0x1.0000000000000p+0

# | numba backend: missed exception: the scalar function raises BigInt, the batched call returns
# | ((0,), 1180591620717411303424, 0, None)
# |   expected: [1180591620717411303424, 1180591620717411303424, 1180591620717411303424, 1180591620717411303424]
# |   got:      int64[4] [0, 0, 0, 0]
# | (NumPy-valued oracle: lane (0,): batched 0, libm oracle 1180591620717411303424, NumPy oracle 1180591620717411303424)

import math

def f(x_7: float, x_8: float):
    v_9 = -1 // 1
    return 1 << min(v_9 & 127, 70)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_7: float, x_8: float):
# shim|     v_9 = -1 // 1
# shim|     return 1 << min(v_9 & 127, 70)
