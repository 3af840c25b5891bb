# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_4 int array 8 6 -3 9223372036854775807 -6 -9223372036854775808 -9007199254740993 1 7
# arg: x_5 float array 8 0x0.0p+0 -0x1.db8f64fc363f1p+916 0x1.0000000000001p+53 0x1.0000000000000p+0 0x1.c2ea0cd323068p+1 0x1.6340000000001p+9 0x1.6340000000001p+9 0x0.0p+0

# | wrong exception message for ValueError
# | ('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()', 'negative shift count')
# |   expected: [(inf, 1), raises ValueError('negative shift count') on lane (1,)]
# |   got:      raises ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()')
# | (NumPy-valued oracle: batched raised ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()'), which no lane of either oracle raises first)

import math

def f(n_4: int, x_5: float):
    n_4 += 0 >> n_4
    if n_4:
        v_6 = True
    else:
        return (1, n_4)
    n_4 = 0
    v_11 = n_4
    for i_12 in range(v_11, v_11, 1):
        v_10 = 0
    return (math.inf, 1)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_4: int, x_5: float):
# shim|     n_4 += 0 >> n_4
# shim|     if n_4:
# shim|         v_6 = True
# shim|     else:
# shim|         return (1, n_4)
# shim|     n_4 = 0
# shim|     v_11 = n_4
# shim|     for i_12 in range(v_11, v_11, 1):
# shim|         v_10 = 0
# shim|     return (math.inf, 1)
