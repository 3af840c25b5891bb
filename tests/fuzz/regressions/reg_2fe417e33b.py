# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_3 bool array 5 True True True True True
# arg: b_4 bool scalar False

# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | batched call raised TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''") but every lane of the scalar function returned
# |   expected: [0, 0, 0, 0, 0]
# |   got:      raises TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")

import math

def f(b_3: bool, b_4: bool):
    if b_3:
        b_3 = 0.0
    elif b_3:
        raise 0
    return 0
