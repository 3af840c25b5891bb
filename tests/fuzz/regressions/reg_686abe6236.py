# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (N,), which floatN cannot hold exactly (the result mixes ints and floa
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [9223372036854775807]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(x_1: float):
    return 9223372036854775807 or x_1
