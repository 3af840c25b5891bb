# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: generate-only campaign (seed 94 of random_program), reduced by fuzz.reduce
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0
# arg: x_2 float array 1 0x0.0p+0
# | batched call hangs: batched call did not finish in 10s   (observed; fixed by the engine later the same day)
# | generated: `fuel_3 = 1` inside the loop (folded from fuel_3 = 0 + 1: the raise was taken to end the loop), raise lowered to `flag |= True`

import math


def f(n_1: int, x_2: float):
    fuel_3 = 0
    while fuel_3 < 13 and True:
        fuel_3 += 1
        raise ValueError('E')
    return x_2
