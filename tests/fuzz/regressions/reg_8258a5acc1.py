# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_6 float array 1 0x0.0p+0

# | refused as a vectorizer bug: VectorizeError: cannot lower Tuple (vectorizer bug)
# | error[VEC]: cannot lower Tuple (vectorizer bug)

import math

def g_0(a_1: int, a_2: float):
    return (a_2, a_1)

def f(x_6: float):
    v_7, v_8 = g_0(0, x_6)
    return v_8
