# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 2 -9223372036854775808 -9223372036854775807

# | wrong exception message for BigInt
# | (VectorizeOverflowError('error[VEC-OVERFLOW]: f returned 85070591730234615847396907784232501249 on lane (1,), which does not fit in int64 (Python ints are unbounded; the batched result is int64)'), (0,))
# |   expected: [85070591730234615865843651857942052864, 85070591730234615847396907784232501249]
# |   got:      raises VectorizeOverflowError('error[VEC-OVERFLOW]: f returned 85070591730234615847396907784232501249 on lane (1,), which does not fit in int64 (Python ints are unbounded; the batched result is int64)')
# | (NumPy-valued oracle: batched raised VectorizeOverflowError('error[VEC-OVERFLOW]: f returned 85070591730234615847396907784232501249 on lane (1,), which does not fit in int64 (Python ints are unbounded; the batched result is int64)'), which no lane of either oracle raises first)

import math

def f(n_1: int):
    return n_1 * n_1

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_1: int):
# shim|     return n_1 * n_1
