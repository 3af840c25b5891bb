# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 5 -0x1.b9a3cdbc81f01p-148 -0x1.0000000000000p+63 0x1.0000000000000p-1022 -0x0.0p+0 0x1.4000000000000p+1
# arg: x_2 float array 1 -0x1.dd11f25096d58p+54
# arg: n_3 int array 5 4 707 1 -1600 9007199254740992


# | batched call hangs: batched call did not finish in 10s

import math

def f(xx_501: float, xx_502: float, nn_503: int):
    fuelfuel_504 = 0
    while 2.5:
        fuelfuel_504 += 1
        if fuelfuel_504 > 0:
            break
    return xx_501
