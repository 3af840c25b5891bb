# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 6 -9223372036854775808 9223372036854775807 4294967297 4208 4611686018427387904 0

# | batched call raised ZeroDivisionError: integer division or modulo by zero
# | (ZeroDivisionError('integer division or modulo by zero'), BigInt(85070591730234615865843651857942052864), (0,))
# |   expected: [85070591730234615865843651857942052864, 1, 1, 4096, 0, raises ZeroDivisionError('integer division or modulo by zero') on lane (5,)]
# |   got:      raises ZeroDivisionError('integer division or modulo by zero') vectorizer: raised by f on lane (5,) of (6,) (n_1=0)

import math

def f(n_1: int):
    for i_2 in range(1 // n_1):
        v_4 = 0
    return n_1 * n_1 & n_1
