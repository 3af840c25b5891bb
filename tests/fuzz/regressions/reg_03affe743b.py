# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: no
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1x2 17 -8612230266

# | numba backend: refused as a vectorizer bug: VectorizeError: a vectorizer bug while running the code generated for f: ValueError at vz_NbNeNaNefNeNddbNeNddNbNbNbNeadeNeNdab.py:N: range() arg N must not be zero
# | error[VEC-BUG]: a vectorizer bug while running the code generated for f: ValueError at vz_6b712e1871a86ef8e7245ddb769e0528dd1b77b77b2eade8145e667151731dab.py:88: range() arg 3 must not be zero
# | hint: the function runs element by element meanwhile; please report it with its source

import math

def f(n_1: int):
    v_2 = 0
    for i_3 in range(min(max(n_1 * n_1, -3), 6), min(max(100, -3), 6), v_2 * v_2):
        fuel_4 = 0
        while fuel_4 < 9 and (n_1 / (n_1 | 1) - i_3 % (-2 | 1) if False else i_3 + -0.0):
            fuel_4 += 1
            v_5 = v_2 - (n_1 << min(v_2 & 127, 70)) - v_2
        if False:
            continue
        v_6 = 10 - (int(fuel_4) - fuel_4)
        if False:
            v_6 = 0.001
    return (math.ceil(bool(v_2)), v_2)
