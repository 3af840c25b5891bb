# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 -9223372036854775808

# | batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (N,), which floatN cannot hold exactly (the result mixes ints and floa
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int -9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [(1, -9223372036854775807, 1)]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int -9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)')
# | (NumPy-valued oracle: batched raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int -9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)'), which no lane of either oracle raises first)

import math
T_1 = (0, 0, 0)

def f(n_1: int):
    for i_2 in T_1:
        for i_3 in range(0):
            return (i_2, 0.0, i_2)
    n_1 ^= 1
    v_8 = 1
    return (v_8, n_1, v_8)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| T_1 = (0, 0, 0)
# shim| 
# shim| def f(n_1: int):
# shim|     for i_2 in T_1:
# shim|         for i_3 in range(0):
# shim|             return (i_2, 0.0, i_2)
# shim|     n_1 ^= 1
# shim|     v_8 = 1
# shim|     return (v_8, n_1, v_8)
