# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (elif+hoist+inline program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_10 float array 6 0x1.fffeb074a771dp-1 0x1.0000000000001p+53 0x1.56e1fc2f8f358p-997 0x1.0000000000000p-1022 -0x1.3119d5314d435p+53 -0x1.06479eba7535fp+3
# arg: b_11 bool array 6 True False False False False True
# arg: n_12 int array 6 2 -8924522 1 105795 0 1
# | wrong exception message for ZeroDivisionError
# | ('division by zero', 'integer modulo by zero')
# |   expected: [1, -17848944, 0, 100, raises ZeroDivisionError('integer modulo by zero') on lane (4,)]
# |   got:      raises ZeroDivisionError('division by zero')

import math

K_0 = 0.001


def g_0(a_1: float):
    a_1 = min((math.copysign(7, a_1) + a_1), (((-1.5) or a_1) or (a_1 + a_1)))
    a_1, v_2 = ((+a_1) + pow((-2), 0)), (math.isclose(a_1, a_1, rel_tol=1e-06, abs_tol=1e-09) or (not a_1))
    ct_901 = (math.isclose(min(a_1, a_1), v_2) ^ (False | (v_2 ^ False)))
    if ct_901:
        ct_902 = v_2
        if ct_902:
            v_3 = (math.ceil(a_1) and ((v_2 + v_2) % (~v_2)))
        else:
            ct_903 = (min(7, (v_2 % (v_2 | 1))) >= max(K_0, 1e-300))
            if ct_903:
                for i_4 in range(min((((-9223372036854775807) >> v_2) * (v_2 - v_2)), 6)):
                    ct_904 = (v_2 > a_1 >= v_2)
                    if ct_904:
                        continue
            else:
                fuel_5 = 0
                while fuel_5 < 5 and (((fuel_5 / fuel_5) - (v_2 != v_2)) >= (fuel_5 << min(100 & 127, 70)) != ((fuel_5 != v_2) % (10000000000.0 * a_1))):
                    fuel_5 += 1
                    a_1 = (min(0.5, math.radians(a_1)) - math.lgamma(fuel_5))
                    v_6 = 0.001
    else:
        v_7, v_8 = divmod(((v_2 if (((-1) - (-v_2)) != a_1) else v_2) - (v_2 ^ v_2)), (int((-1.5)) | 1))
    ct_905 = ((a_1 * a_1) >= ((v_2 << min(7 & 127, 70)) // ((v_2 << min(v_2 & 127, 70)) | 1)))
    if ct_905:
        raise ValueError(f"E_9 {a_1!r}")
    return K_0


def f(x_10: float, b_11: bool, n_12: int):
    for i_13 in range(min(((b_11 >> (n_12 & 63)) + (+b_11)), 6)):
        for i_14 in range(1):
            ct_906 = True
            if ct_906:
                ct_907 = math.isnan(True)
                if ct_907:
                    raise ValueError('E_15')
                v_16 = (x_10 + (b_11 if (float((x_10 - n_12)) + (n_12 and math.ceil(n_12))) else (n_12 > b_11)))
            else:
                ct_908 = True
                if ct_908:
                    v_17 = g_0((math.trunc(i_13) - g_0(x_10)))
                    v_18 = max(((i_14 * 5) - (math.e + i_14)), 100.0)
                else:
                    ct_909 = b_11
                    if ct_909:
                        i_14 = (-b_11)
                        a_1 = ((n_12 * (-0.0)) + (0 - b_11))
                        a_1 = min((math.copysign(7, a_1) + a_1), (((-1.5) or a_1) or (a_1 + a_1)))
                        a_1, v_2 = ((+a_1) + pow((-2), 0)), (math.isclose(a_1, a_1, rel_tol=1e-06, abs_tol=1e-09) or (not a_1))
                        ct_910 = (math.isclose(min(a_1, a_1), v_2) ^ (False | (v_2 ^ False)))
                        if ct_910:
                            ct_911 = v_2
                            if ct_911:
                                v_3 = (math.ceil(a_1) and ((v_2 + v_2) % (~v_2)))
                            else:
                                ct_912 = (min(7, (v_2 % (v_2 | 1))) >= max(K_0, 1e-300))
                                if ct_912:
                                    for i_4 in range(min((((-9223372036854775807) >> v_2) * (v_2 - v_2)), 6)):
                                        ct_913 = (v_2 > a_1 >= v_2)
                                        if ct_913:
                                            continue
                                else:
                                    fuel_5 = 0
                                    while fuel_5 < 5 and (((fuel_5 / fuel_5) - (v_2 != v_2)) >= (fuel_5 << min(100 & 127, 70)) != ((fuel_5 != v_2) % (10000000000.0 * a_1))):
                                        fuel_5 += 1
                                        a_1 = (min(0.5, math.radians(a_1)) - math.lgamma(fuel_5))
                                        v_6 = 0.001
                        else:
                            v_7, v_8 = divmod(((v_2 if (((-1) - (-v_2)) != a_1) else v_2) - (v_2 ^ v_2)), (int((-1.5)) | 1))
                        ct_914 = ((a_1 * a_1) >= ((v_2 << min(7 & 127, 70)) // ((v_2 << min(v_2 & 127, 70)) | 1)))
                        if ct_914:
                            raise ValueError(f"E_9 {a_1!r}")
                        v_19 = K_0
                    else:
                        n_12 = i_13
                        ct_915 = False
                        if ct_915:
                            raise RuntimeError(f"E_20 {x_10!r}")
            n_12 = pow(100, 0)
            i_14 = int((x_10 % (min(3, 2) | 1)))
    return (100 % ((n_12 >> (0 & 63)) + (n_12 << min(b_11 & 127, 70))))
