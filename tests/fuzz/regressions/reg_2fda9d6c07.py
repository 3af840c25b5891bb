# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 6 0x1.cebf70b31fb52p+55 0x1.0000000000000p-1 0x1.86424bb0358cbp+955 0x1.4320cd1ff98a7p+643 -0x0.0000000000001p-1022 0x1.bc3c80b73f5d8p+2

# | exception on the wrong lane: OverflowError
# | ('', (0,))
# |   expected: [raises OverflowError('math range error') on lane (0,)]
# |   got:      raises OverflowError('math range error')

import math

def f(x_1: float):
    return math.gamma(x_1)
