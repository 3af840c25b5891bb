# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: manual reduction of reg_00373802da (the test variable is reassigned in its own branch)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b bool array 2 True False
# arg: x float array 2 0x1.4000000000000p+2 0x1.8000000000000p+2
# | wrong value
# | ((0,), 5.0, 1.0, 10133099161583616)
# |   expected: [5.0, 1.0]
# |   got:      float64[2] [1.0, 1.0]

import math


def f(b: bool, x: float):
    if b:
        b = False
    else:
        return 1.0
    return x
