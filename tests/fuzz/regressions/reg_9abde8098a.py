# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (elif+hoist+inline program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0
# arg: b_2 bool array 1 False

# | batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | batched call raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value") but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")

import math

def f(n_1: int, b_2: bool):
    ct_901 = True
    if ct_901:
        v_3 = n_1
    else:
        ct_903 = b_2
        if ct_903:
            v_5 = n_1
        else:
            return n_1
    return 0
