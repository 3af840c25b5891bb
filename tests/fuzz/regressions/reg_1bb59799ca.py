# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_3 float array 1 0x1.0624dd2f1a9fbp-10

# | batched call raised TypeError: unsupported operand type(s) for |: '…' and '…'
# | batched call raised TypeError("unsupported operand type(s) for |: 'float' and 'int'") but every lane of the scalar function returned
# |   expected: [1]
# |   got:      raises TypeError("unsupported operand type(s) for |: 'float' and 'int'")

import math

def g_0(a_1: float):
    a_1 = 0
    return a_1 | 1

def f(x_3: float):
    return g_0(x_3)
