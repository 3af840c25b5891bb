# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0

# | batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | batched call raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2) but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")

import math

def f(x_1: float):
    fuel_2 = 0
    while fuel_2 < 1 and x_1 + fuel_2 < fuel_2 < fuel_2:
        fuel_2 += 1
        return x_1
    return fuel_2
