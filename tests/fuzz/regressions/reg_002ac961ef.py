# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 -9223372036854775808

# | missed exception: the scalar function raises BigInt, the batched call returns
# | ((0,), 85070591730234615865843651857942052864, 0, None)
# |   expected: [85070591730234615865843651857942052864]
# |   got:      int64[1] [0]

import math

def f(n_1: int):
    return n_1 * n_1
