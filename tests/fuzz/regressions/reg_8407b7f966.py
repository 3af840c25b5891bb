# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_6 float array 8 0x1.8000000000000p+1 -0x1.938167515b8e6p-133 0x1.6ad611ba408edp+54 0x1.57e874099f7afp+55 -0x1.7e3ad0de788d8p-501 -0x1.0000000000000p-24 0x1.ffc6794f6c075p-165 0x1.bbb204b3bf350p+2


# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | batched call raised TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''") but every lane of the scalar function returned
# |   expected: [1, 1, 1, 1, 1, 1, 1, 1]
# |   got:      raises TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")

import math

def f(xx_506: float):
    vv_507 = xx_506
    vv_508, vv_507, xx_506 = (vv_507, xx_506, 0)
    return xx_506 | 1
