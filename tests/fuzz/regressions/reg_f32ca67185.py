# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_4 bool scalar False
# arg: b_5 bool array 1 False

# | batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | batched call raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2) but every lane of the scalar function returned
# |   expected: [False]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")

import math

def f(b_4: bool, b_5: bool):
    if b_4:
        v_6 = 0.0
        fuel_7 = 0
        while fuel_7 < 1 and b_5:
            fuel_7 += 1
            return v_6
    return b_4
