# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 -1
# arg: n_2 int array 1 -2

# | numba backend: missed exception: the scalar function raises ValueError, the batched call returns
# | scalar function raises ValueError('negative shift count') on lane (0,), batched returned array([0])
# |   expected: [raises ValueError('negative shift count') on lane (0,)]
# |   got:      int64[1] [0]

import math

def f(n_1: int, n_2: int):
    return 0.1 and n_1 >> n_1
