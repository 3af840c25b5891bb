# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: manual reduction of reg_7823bf16dd (a uniform if after a uniform assignment in a batched loop)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n int array 3 0 3 9
# arg: x int array 3 1 2 3
# | wrong value
# | ((1,), 5, 1, None)
# |   expected: [1, 5, 5]
# |   got:      int64[3] [1, 1, 1]

import math


def f(n: int, x: int):
    for i in range(min(n, 6)):
        x = 5
        if x < 2:
            x = 1
    return x
