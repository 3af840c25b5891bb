# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 2x1 -0x1.3ffffffffffffp+3 0x1.0000000000000p-149
# arg: n_2 int array 2x1 -2661483280160438784 13
# arg: x_3 float array 2x1 0x1.0000000000000p-1022 -0x0.0000000000001p-1022

# | numba backend: batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (N, N), which floatN cannot hold exactly (the result mixes ints and fl
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int -2661483280160438783 on lane (0, 0), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [(0, -2661483280160438783), (0, 14)]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int -2661483280160438783 on lane (0, 0), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(x_1: float, n_2: int, x_3: float):
    fuel_4 = 0
    for i_6 in range(0, 1):
        return (0, 1 + n_2)
    return (fuel_4, 0.0)
