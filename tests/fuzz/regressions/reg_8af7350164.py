# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 1 True

# | wrong value
# | ((0,), 1.842700792949715, 1.8427007929497148, 1)
# |   expected: [(True, 1.842700792949715, True)]
# |   got:      (bool[1] [True], float64[1] [1.8427007929497148], bool[1] [True])

import math

def f(b_1: bool):
    return (b_1, math.erfc(-b_1), b_1)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim|
# shim| def f(b_1: bool):
# shim|     return (b_1, fuzz_shim.erfc(-b_1), b_1)
