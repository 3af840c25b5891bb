# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 5 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0
# arg: x_2 float array 5 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0 0x0.0p+0
# arg: x_3 float array 5 0x1.0000000000000p+0 0x1.62e51eb851eb8p+9 0x0.0p+0 0x0.0p+0 0x0.0p+0

# | numba backend: missed exception: the scalar function raises BigInt, the batched call returns
# | scalar function raises BigInt(18446744073709551614) on lane (0,), batched returned array([-2, -2, -2, -2, -2])
# |   expected: [18446744073709551614, 18446744073709551614, 18446744073709551614, 18446744073709551614, 18446744073709551614]
# |   got:      int64[5] [-2, -2, -2, -2, -2]
# | (NumPy-valued oracle: lane (0,): batched -2, libm oracle 18446744073709551614, NumPy oracle 18446744073709551614)

import math

def f(x_1: float, x_2: float, x_3: float):
    v_4, v_5 = (x_1, 9223372036854775807 << 0)
    return v_5 + v_5

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float, x_3: float):
# shim|     v_4, v_5 = (x_1, 9223372036854775807 << 0)
# shim|     return v_5 + v_5
