# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 2 0x0.0p+0 0x0.0p+0
# arg: x_2 float array 2 0x0.0p+0 0x0.0p+0

# | numba backend: batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (N,), which floatN cannot hold exactly (the result mixes ints and floa
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 1000000000000000001 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [(True, 1000000000000000001, 0.0), (True, 1000000000000000001, 0.0)]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 1000000000000000001 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(x_1: float, x_2: float):
    v_3 = x_1
    for i_4 in range(0):
        v_7, v_8 = divmod(v_3, 1)
        fuel_12 = 0
        while fuel_12 < 0 and 0:
            fuel_12 += 1
            return (0, v_7, fuel_12)
    for i_13 in range(0, 1):
        return (True, 1000000000000000000 + pow(i_13, 0), x_1)
    return (0, 1, 1)
