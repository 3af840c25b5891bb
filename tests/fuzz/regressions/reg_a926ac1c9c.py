# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 8 True False True True True True False False

# | batched call raised ZeroDivisionError: division by zero
# | (ZeroDivisionError('division by zero'), BigInt(9223372036854775808), (0,))
# |   expected: [(9223372036854775808, 1.0, 0), raises ZeroDivisionError('division by zero') on lane (1,)]
# |   got:      raises ZeroDivisionError('division by zero') vectorizer: raised by f on lane (1,) of (8,) (b_1=False)

import math

def f(b_1: bool):
    return (0.0 or 9223372036854775807 + b_1, b_1 / b_1, 0)
