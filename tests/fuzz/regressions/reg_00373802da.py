# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 7 False False False False True False True
# arg: x_2 float array 7 -0x1.30bbc2e31919dp+3 0x1.0b74f01a8830ap+3 0x0.0000000000001p-1022 -0x1.8000000000000p+0 -0x1.49587ecbc8e9ep+53 0x0.0p+0 -0x1.dfc7f130df314p+80
# arg: b_3 bool array 0d False

# | missed exception: the scalar function raises ZeroDivisionError, the batched call returns
# | scalar function raises ZeroDivisionError('float floor division by zero') on lane (4,), batched returned array([0., 0., 0., 0., 0., 0., 0.])
# |   expected: [0, 0, 0, 0, raises ZeroDivisionError('float floor division by zero') on lane (4,)]
# |   got:      float64[7] [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]

import math

def f(b_1: bool, x_2: float, b_3: bool):
    if b_1:
        b_1 = not True
    else:
        return 0
    return x_2 // b_1
