# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_8 float array 1 0x0.0000000000001p-1022
# arg: n_9 int array 1 -1
# arg: x_10 float array 0

# | refused as a vectorizer bug: VectorizeError: a vectorizer bug while running the code generated for f: UFuncTypeError at vz_NddNdNaNeaaNaaNacfNaaNbNadbbNdNbNdaNaNfbNbdbdNeNa.py:N: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | error[VEC-BUG]: a vectorizer bug while running the code generated for f: UFuncTypeError at vz_5dd7305d680a8eaa182aa1acf756aa7b1adbb2d50b1da3a66fb5bdbd8e03632a.py:16: Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'
# | hint: the function runs element by element meanwhile; please report it with its source

import math

def g_0(a_1: int, a_2: int):
    for i_3 in range(min(int(math.sqrt(abs(1.0))), 6)):
        v_4 = True
    v_5 = 10 % (a_2 // (a_2 | 1) % (min(a_1, a_1) | 1) | 1)
    a_2 = (math.atan(v_5) or max(0.001, 10000000000.0, 10000000000.0)) - a_2
    fuel_6 = 0
    while a_1 + fuel_6 + pow(v_5, 3) >= fuel_6:
        fuel_6 += 1
        if fuel_6 > 1:
            break
        v_7 = bool((0.0 > fuel_6) ^ bool(a_2))
    return -(0 // (fuel_6 | 1)) ^ 3037000500 - v_5 & a_1 % 2

def f(x_8: float, n_9: int, x_10: float):
    assert not n_9 and math.isclose(x_8, x_10, abs_tol=0.5) or True + x_10 <= x_8 % (abs(x_10) + 1.0)
    for i_11 in range(min(max(n_9 + 100 and n_9, -3), 6), min(max(g_0(5 | n_9, n_9 // (10 | 1)), -3), 6), g_0(n_9, n_9)):
        v_12 = math.floor(math.ceil(n_9)) - (n_9 * 0 and i_11)
    if False:
        n_9 /= True
    elif math.isclose(max(x_8 or x_8, False - x_8, math.gamma(x_8)), math.ceil(math.nan), rel_tol=1e-06, abs_tol=1e-09):
        v_13 = False
        n_9 = pow(10 | v_13, min(v_13 + n_9, 6)) < n_9 - n_9 > (n_9 % (n_9 | 1)) ** min(~7, 6)
        n_9 = g_0(math.trunc(x_10) % (n_9 % (n_9 | 1) | 1), 7 % n_9 << min(n_9 - 100 & 127, 70))
    fuel_15 = 0
    while fuel_15 < 9 and True:
        fuel_15 += 1
        if False:
            raise ValueError('E_16')
        x_10 %= fuel_15 % (2 | 1) | 4611686018427387904
        v_17 = g_0(fuel_15 ^ fuel_15 and fuel_15 % (1 | 1), max(g_0(fuel_15, fuel_15), 0 >> (-9223372036854775807 & 63)))
    x_10 = int(fuel_15 or abs(3))
    return x_8

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def g_0(a_1: int, a_2: int):
# shim|     for i_3 in range(min(int(math.sqrt(abs(1.0))), 6)):
# shim|         v_4 = True
# shim|     v_5 = 10 % (a_2 // (a_2 | 1) % (min(a_1, a_1) | 1) | 1)
# shim|     a_2 = (fuzz_shim.atan(v_5) or max(0.001, 10000000000.0, 10000000000.0)) - a_2
# shim|     fuel_6 = 0
# shim|     while a_1 + fuel_6 + fuzz_shim.power(v_5, 3) >= fuel_6:
# shim|         fuel_6 += 1
# shim|         if fuel_6 > 1:
# shim|             break
# shim|         v_7 = bool((0.0 > fuel_6) ^ bool(a_2))
# shim|     return -(0 // (fuel_6 | 1)) ^ 3037000500 - v_5 & a_1 % 2
# shim| 
# shim| def f(x_8: float, n_9: int, x_10: float):
# shim|     assert not n_9 and math.isclose(x_8, x_10, abs_tol=0.5) or True + x_10 <= x_8 % (abs(x_10) + 1.0)
# shim|     for i_11 in range(min(max(n_9 + 100 and n_9, -3), 6), min(max(g_0(5 | n_9, n_9 // (10 | 1)), -3), 6), g_0(n_9, n_9)):
# shim|         v_12 = math.floor(math.ceil(n_9)) - (n_9 * 0 and i_11)
# shim|     if False:
# shim|         n_9 /= True
# shim|     elif math.isclose(max(x_8 or x_8, False - x_8, math.gamma(x_8)), math.ceil(math.nan), rel_tol=1e-06, abs_tol=1e-09):
# shim|         v_13 = False
# shim|         n_9 = fuzz_shim.power(10 | v_13, min(v_13 + n_9, 6)) < n_9 - n_9 > fuzz_shim.power(n_9 % (n_9 | 1), min(~7, 6))
# shim|         n_9 = g_0(math.trunc(x_10) % (n_9 % (n_9 | 1) | 1), 7 % n_9 << min(n_9 - 100 & 127, 70))
# shim|     fuel_15 = 0
# shim|     while fuel_15 < 9 and True:
# shim|         fuel_15 += 1
# shim|         if False:
# shim|             raise ValueError('E_16')
# shim|         x_10 %= fuel_15 % (2 | 1) | 4611686018427387904
# shim|         v_17 = g_0(fuel_15 ^ fuel_15 and fuel_15 % (1 | 1), max(g_0(fuel_15, fuel_15), 0 >> (-9223372036854775807 & 63)))
# shim|     x_10 = int(fuel_15 or abs(3))
# shim|     return x_8
