# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_3 float array 5 -0x1.8000000000000p+0 -0x1.7ffffffffffffp+0 -0x1.8000000000000p+0 -0x1.1837ce808bcaap-957 -0x1.4bb51dd96991ep-878
# arg: b_4 bool array 5 True False True False False

# | missed exception: the scalar function raises ZeroDivisionError, the batched call returns
# | scalar function raises ZeroDivisionError(0) on lane (0,), batched returned array([False, False, False, False, False])
# |   expected: [raises ZeroDivisionError('0') on lane (0,)]
# |   got:      bool[5] [False, False, False, False, False]

import math

def f(xx_503: float, bb_504: bool):
    if not (not 1 if xx_503 else True and False):
        raise ZeroDivisionError(0)
    return False
