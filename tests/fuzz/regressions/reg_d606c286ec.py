# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_2 int array 0d -9223372036854775808
# arg: x_3 float array 3 0x1.0624dd2f1a9fbp-10 0x1.0624dd2f1a9fbp-10 0x1.0624dd2f1a9fbp-10

# | missed exception: the scalar function raises BigInt, the batched call returns
# | scalar function raises BigInt(-18446744073709551616) on lane (0,), batched returned array([-1.84467441e+19, -1.84467441e+19, -1.84467441e+19])
# |   expected: [-18446744073709551616, -18446744073709551616, -18446744073709551616]
# |   got:      float64[3] [-1.8446744073709552e+19, -1.8446744073709552e+19, -1.8446744073709552e+19]

import math

def f(n_2: int, x_3: float):
    return min(n_2 << 1, 0.0)
