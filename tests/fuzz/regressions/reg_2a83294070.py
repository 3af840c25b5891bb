# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_4 bool array 9 True True False False False False False False False

# | batched call raised ZeroDivisionError: float division by zero
# | batched call raised ZeroDivisionError('float division by zero') but every lane of the scalar function returned
# |   expected: [True, True, False, False, False, False, False, False, False]
# |   got:      raises ZeroDivisionError('float division by zero')

import math

def g_0(a_1: float):
    return -1

def f(b_4: bool):
    v_5 = g_0(b_4)
    if math.isclose(b_4, v_5, abs_tol=0):
        fuel_8 = 0
        while math.isclose(b_4, 1e-300 / fuel_8 or fuel_8 + 0, abs_tol=0):
            fuel_8 += 1
            if fuel_8 > 0:
                break
    return b_4
