# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 8 0x0.0000000000001p-1022 inf -0x1.827fd553abe82p+2 0x0.0000000000001p-1022 -0x1.f5b2f2018f00fp+53 0x1.999999999999bp-4 -inf -0x0.0000000000001p-1022

# | exception on the wrong lane: ZeroDivisionError
# | ('', (0,))
# |   expected: [raises ZeroDivisionError('division by zero') on lane (0,)]
# |   got:      raises ZeroDivisionError('division by zero')

import math

def f(x_1: float):
    fuel_4 = 0
    while fuel_4 < 1 and min(fuel_4 + x_1, fuel_4 / fuel_4) > math.fmod(0, min(fuel_4, fuel_4)):
        fuel_4 += 1
    return x_1
