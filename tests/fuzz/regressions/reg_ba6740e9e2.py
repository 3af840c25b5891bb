# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | wrong exception message for ValueError
# | ('arange: cannot compute length', 'range() arg 3 must not be zero')
# |   expected: [raises ValueError('range() arg 3 must not be zero') on lane (0,)]
# |   got:      raises ValueError('arange: cannot compute length')

import math

def f(xx_501: float):
    vv_502 = 0
    for ii_503 in range(vv_502, max(vv_502, 0), vv_502):
        vv_504 = vv_502
    return vv_502
