# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool scalar False
# arg: x_2 float array 0d 0x1.5bf0a8b145769p+1
# arg: n_3 int array 5 -2147483648 -9 -1048575 -9223372036854775807 9

# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | batched call raised TypeError("ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''") but every lane of the scalar function returned
# |   expected: [False, False, False, False, False]
# |   got:      raises TypeError("ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")

import math

def f(b_1: bool, x_2: float, n_3: int):
    if math.degrees(n_3):
        v_4 = min(n_3, x_2)
    return b_1
