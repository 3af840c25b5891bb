# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 5 -2564437 1 -2147483648 2 16
# arg: x_2 float array 5 0x1.00000000a639bp-126 0x1.62e3d70a3d70ap+9 0x1.0000000000000p+0 0x1.ebd88865e016bp-17 0x1.0000000000000p+53

# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | (TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"), ZeroDivisionError(0), (0,))
# |   expected: [raises ZeroDivisionError('0') on lane (0,)]
# |   got:      raises TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")

import math

def f(n_1: int, x_2: float):
    if math.radians(n_1):
        raise ZeroDivisionError(0)
    return x_2
