# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 3 -0x1.0000000000000p-1 -0x1.0000000000000p+0 0x1.0000000000000p+53
# arg: n_2 int scalar -26940

# | batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | (UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2), TypeError('exceptions must derive from BaseException'), (0,))
# |   expected: [raises TypeError('exceptions must derive from BaseException') on lane (0,)]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")

import math

def f(x_1: float, n_2: int):
    if x_1:
        n_2 *= n_2
        raise 0
    if n_2:
        raise 0
    return (x_1, n_2)
