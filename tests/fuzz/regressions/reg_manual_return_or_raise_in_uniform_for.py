# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: manual, while checking the fix for reg_2c5e33d19e (both branches of a batched if leave a uniform for loop)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n int array 2 1 7
# | batched call raised ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# |   expected: [1, 7]
# |   got:      raises ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()')

import math


def f(n: int):
    for i in range(1):
        if n > 0:
            return n
        else:
            raise ValueError("neg")
    return 0
