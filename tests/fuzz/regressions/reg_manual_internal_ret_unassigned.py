# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run, reduced by hand (refusal 'used before it is assigned' of an engine temporary)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n int array 2 1 0
# arg: x float array 2 0x1.4000000000000p+2 0x1.8000000000000p+2
# | refusal names 'ret', which is not in the program (an engine temporary): VectorizeError: '…' is used before it is assigned
# | error[VEC]: 'ret' is used before it is assigned
# | hint: assign it first

import math


def f(n: int, x: float):
    if False:
        return 0
    elif n:
        x = 1.0
    else:
        return x
    return 2.0
