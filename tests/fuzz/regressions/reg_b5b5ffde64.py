# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0

# | batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | batched call raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2) but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")

import math

def f(n_1: int):
    n_1 = int(0) and n_1
    return min(n_1, 0.0)
