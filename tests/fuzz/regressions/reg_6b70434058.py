# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0
# arg: x_2 float array 1 0x0.0p+0

# | numba backend: missed exception: the scalar function raises ZeroDivisionError, the batched call returns
# | scalar function raises ZeroDivisionError(0) on lane (0,), batched returned array([0])
# |   expected: [raises ZeroDivisionError('0') on lane (0,)]
# |   got:      int64[1] [0]

import math

def f(x_1: float, x_2: float):
    if (-1) ** 0 >= 0:
        raise ZeroDivisionError(0)
    return 0
