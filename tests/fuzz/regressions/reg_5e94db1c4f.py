# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 7 -0x1.0000000000000p-1 -0x1.0000000000000p+63 -0x1.20a0cc64b3725p+3 0x1.62e51eb851eb8p+9 0x1.4000000000000p+1 0x1.2649c4e9283f0p+50 0x1.cdac617401af4p+2
# arg: x_2 float array 7 -0x1.258aabf9cf606p+3 0x1.62e3d70a3d709p+9 0x1.62e3d70a3d70ap+9 -0x0.0p+0 0x1.51177b070ab08p+55 0x1.4000000000001p+1 -0x1.6d87692b78be8p+968
# arg: x_3 float array 7 0x1.338cc70199175p+54 0x1.62e3d70a3d709p+9 0x1.62e3d70a3d709p+9 0x1.633d70a3d70a4p+9 0x1.18ede7a3fe634p+3 -0x1.dc22684a2937ep+349 0x1.0000000000000p-1

# | numba backend: missed exception: the scalar function raises ValueError, the batched call returns
# | scalar function raises ValueError('math domain error') on lane (3,), batched returned array([-5.00000000e-01, -9.22337204e+18, -9.01962871e+00,  7.09790000e+02,
# |         2.50000000e+00,  1.29429302e+15,  7.21364628e+00])
# |   expected: [0.0, 0.0, 0.0, raises ValueError('math domain error') on lane (3,)]
# |   got:      float64[7] [-0.5, -9.223372036854776e+18, -9.019628712350434, 709.79, 2.5, 1294293019173116.0, 7.21364628151672]
# | (NumPy-valued oracle: lane (0,): batched -0.5, libm oracle 0.0, NumPy oracle 0.0)

import math

def f(x_1: float, x_2: float, x_3: float):
    v_4, v_5 = (x_1, -9223372036854775807 << 0)
    if v_5 < 1 % (v_5 + v_5):
        v_8 = v_5
    elif math.fmod(v_4, x_2):
        v_4 -= v_4
    return v_4

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float, x_3: float):
# shim|     v_4, v_5 = (x_1, -9223372036854775807 << 0)
# shim|     if v_5 < 1 % (v_5 + v_5):
# shim|         v_8 = v_5
# shim|     elif math.fmod(v_4, x_2):
# shim|         v_4 -= v_4
# shim|     return v_4
