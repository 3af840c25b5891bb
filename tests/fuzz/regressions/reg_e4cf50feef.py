# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | exception on the wrong lane: ZeroDivisionError
# | ('', (0,))
# |   expected: [raises ZeroDivisionError('division by zero') on lane (0,)]
# |   got:      raises ZeroDivisionError('division by zero')

import math

def f(x_1: float):
    x_1 = 0
    return x_1 / x_1
