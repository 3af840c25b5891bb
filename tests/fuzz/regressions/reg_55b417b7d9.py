# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 4 False False True False

# | wrong exception message for BigInt
# | (VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)'), BigInt(9223372036854775808), (2,))
# |   expected: [(9223372036854775807, 0, 0), (9223372036854775807, 0, 0), (9223372036854775808, 0, 0), (9223372036854775807, 0, 0)]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned the int 9223372036854775807 on lane (0,), which float64 cannot hold exactly (the result mixes ints and floats)')

import math

def f(b_1: bool):
    return (9223372036854775807 + b_1 or 3.0, 0, 0)
