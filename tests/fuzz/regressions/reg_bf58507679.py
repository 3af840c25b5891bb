# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0
# arg: n_2 int array 1 0

# | numba backend: wrong value
# | ((0,), 1, 0, None)
# |   expected: [1]
# |   got:      int64[1] [0]

import math

def f(n_1: int, n_2: int):
    return 1e-300 and 1 >> n_1
