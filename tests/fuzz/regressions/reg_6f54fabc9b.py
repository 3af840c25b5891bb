# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float scalar 0x0.0p+0

# | transform crash in ops_to_numpy.py:_minimal_parens (call-time specialization): SyntaxError
# | batched call raised SyntaxError('invalid syntax', ('<unknown>', 1, 14, 'x_1 = (x_1 + not x_1)\n', 1, 17)) but every lane of the scalar function returned
# |   expected: [0]
# |   got:      raises SyntaxError('invalid syntax (<unknown>, line 1)')

import math

def f(x_1: float):
    x_1 += not x_1
    return 0
