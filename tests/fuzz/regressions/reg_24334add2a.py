# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_5 float scalar 0x1.3499117207e6dp+54

# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | batched call raised TypeError("ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''") but every lane of the scalar function returned
# |   expected: [False]
# |   got:      raises TypeError("ufunc 'bitwise_and' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")

import math

def f(x_5: float):
    v_6 = (not x_5) & False
    return v_6
