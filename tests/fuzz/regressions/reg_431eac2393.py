# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 2 2147483648 -1
# arg: x_2 float scalar 0x0.0p+0
# arg: x_3 float array 2 0x0.0p+0 0x0.0p+0

# | numpy_vm backend: batched call raised ValueError: negative shift count
# | (ValueError('negative shift count'), BigInt(2535301200456458802993406410752), (0,))
# |   expected: [(2147483648, 2535301200456458802993406410752), raises ValueError('negative shift count') on lane (1,)]
# |   got:      raises ValueError('negative shift count') vectorizer: raised by f on lane (1,) of (2,) (n_1=-1, x_2=0.0, x_3=0.0)

import math

def f(n_1: int, x_2: float, x_3: float):
    return (n_1, n_1 << min(n_1, 70) or x_2)
