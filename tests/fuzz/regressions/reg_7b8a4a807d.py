# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float scalar 0x0.0p+0

# | numba backend: batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (), which floatN cannot hold exactly (the result mixes ints and floats
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 1000000000000000001 on lane (), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [1000000000000000001]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 1000000000000000001 on lane (), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(x_1: float):
    return 1000000000000000000 | 1 if True else x_1
