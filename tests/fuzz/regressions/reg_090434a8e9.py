# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | batched call raised ZeroDivisionError: float division by zero
# | batched call raised ZeroDivisionError('float division by zero') but every lane of the scalar function returned
# |   expected: [False]
# |   got:      raises ZeroDivisionError('float division by zero')

import math

def f(x_1: float):
    x_1, v_2 = (0, 0)
    return x_1 < x_1 < 0.0 / x_1
