# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_11 float array 3x2 0x0.0p+0 -0x1.90fdcfdd612bcp+54 -0x1.90fdcfdd612bcp+54 0x0.0p+0 0x0.0p+0 0x1.62d9782dac7dep+13

# | refused as a vectorizer bug: VectorizeError: a vectorizer bug while running the code generated for f: ValueError at vz_NdNfNfNbNacNbNceNfNcNbNafNdNdNbNaNeNc.py:N: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# | error[VEC-BUG]: a vectorizer bug while running the code generated for f: ValueError at vz_81d34f4610f8b1ac287b0ce2024745f630c63b7af5d3679d7177b8a627857e5c.py:25: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# | hint: the function runs element by element meanwhile; please report it with its source

import math
K_0 = -2
K_1 = True

def g_0(a_1: float):
    if True:
        a_1 = min(math.isnan(a_1) / (abs(min(1.0, 10000000000.0, a_1)) + 1.0), math.isclose(a_1, a_1, rel_tol=0.001) % (abs(-9223372036854775807 % (abs(a_1) + 1.0)) + 1.0))
    else:
        a_1 = abs(-7) - 100 % (int(a_1) | 1)
        v_2, v_3 = divmod(9223372036854775807 >> (a_1 & 63) << min((10 ^ 3) & 127, 70), -a_1 | 1)
    for i_4 in range(4):
        for i_5 in range(max(+2, -3), min(0, 6)):
            return 0.5 * i_5 == math.radians(i_4) or min(i_5, i_4) <= (a_1 >= i_4 != i_4)
    return 5 ^ 4294967297 ^ --2 < -1.5 != math.ceil(a_1) / (1 // (1000000000000000000 | 1) | 1)

def g_1(a_6: float):
    fuel_7 = 0
    while fuel_7 < 5 and math.copysign(a_6 and a_6, a_6 - a_6) < a_6 < math.trunc(fuel_7) + (10 and -7):
        fuel_7 += 1
        if math.isclose(math.degrees(min(fuel_7, fuel_7, fuel_7)), math.isclose(a_6 - a_6, 0.5, abs_tol=0.5), abs_tol=0.5):
            raise KeyError('E_8')
        v_9 = False
        v_10 = math.isclose(fuel_7 - -0.0 and a_6, fuel_7 ** 0, rel_tol=0.001)
    return math.radians(float(+-2))

def f(x_11: float):
    for i_12 in range(3):
        for i_13 in range(min(max(round(x_11) % ((K_0 if x_11 * x_11 + (0.0 or x_11) < (2 & i_12) % (abs(i_12) | 1) else i_12) | 1), -3), 6), min(max(i_12 * 1 // (2 >> (i_12 & 63) | 1), -3), 6), i_12 % (i_12 | 1)):
            return g_0(i_12 * x_11)
        return -(i_12 << min(i_12 & 127, 70) & i_12)
    if g_0(x_11):
        raise TypeError('E_14')
    return pow(K_0 % (100 | 1), 3) & min(0, -2) * (9223372036854775807 // 0)
