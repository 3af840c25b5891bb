# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool scalar False

# | batched call raised VectorizeOverflowError: error[VEC-OVERFLOW]: f returned the int N on lane (), which floatN cannot hold exactly (the result mixes ints and floats
# | batched call raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (), which float64 cannot hold exactly (the result mixes ints and floats)') but every lane of the scalar function returned
# |   expected: [(9223372036854775807, False, False)]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(b_1: bool):
    return (9223372036854775807 or 0.0, b_1, b_1)
