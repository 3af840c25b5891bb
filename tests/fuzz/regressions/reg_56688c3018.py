# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (elif+hoist+inline program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 1 False
# arg: x_2 float array 1 0x0.0p+0
# arg: n_3 int array 1 0

# | batched call raised TypeError: The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead
# | batched call raised TypeError('The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.') but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises TypeError('The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.')

import math

def f(b_1: bool, x_2: float, n_3: int):
    ct_901 = True
    if ct_901:
        x_2 += b_1
    else:
        b_1 += b_1
    return -b_1
