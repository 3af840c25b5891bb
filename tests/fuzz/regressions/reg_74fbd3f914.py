# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_9 int array 7 10 -9223372036854775808 387 -3080 -9223372036854775807 20 -9007199254740993

# | batched call raised ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# | batched call raised ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()') but every lane of the scalar function returned
# |   expected: [1, 1, 1, 1, 1, 1, 1]
# |   got:      raises ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()')

import math

def g_0(a_1: float):
    a_1 = False
    if +0:
        a_1 = a_1
    for i_7 in range(0, a_1, 1):
        v_8 = a_1
    return 0

def f(n_9: int):
    fuel_10 = 0
    while fuel_10 < 1 and n_9 ^ min(1, fuel_10) >> 1:
        fuel_10 += 1
        v_11, v_12, v_13 = (1, g_0(fuel_10), n_9)
    return fuel_10
