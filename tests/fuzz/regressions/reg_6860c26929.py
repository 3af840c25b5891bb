# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_14 float array 7 0x0.0000000000001p-1022 0x1.cfc9cac7a30b0p+2 0x1.cfc9cac7a30b0p+2 -0x1.db85e779f99a7p+73 -0x1.23676bb604a06p+55 0x0.0p+0 -0x0.0000000000001p-1022
# arg: x_15 float array 7 0x0.0p+0 -0x1.98811ddd0977bp-95 -0x1.e8950db960382p+2 -0x0.0000000000001p-1022 0x1.62e3d70a3d70ap+9 -0x1.98811ddd0977bp-95 -0x0.0000000000001p-1022


# | batched call raised ZeroDivisionError: division by zero
# | (ZeroDivisionError('division by zero'), ValueError('range() arg 3 must not be zero'), (0,))
# |   expected: [raises ValueError('range() arg 3 must not be zero') on lane (0,)]
# |   got:      raises ZeroDivisionError('division by zero')
# | (NumPy-valued oracle: batched raised ZeroDivisionError('division by zero'), which no lane of either oracle raises first)

import math

def g_0(a_1: float, a_2: int):
    fuel_3 = 0
    while fuel_3 < 1 and a_1:
        fuel_3 += 1
        for i_4 in range(a_2, a_2, a_2 - -1):
            continue
    return a_2

def f(x_14: float, x_15: float):
    assert g_0(x_14, -1)
    v_19 = x_14
    return v_19

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def g_0(a_1: float, a_2: int):
# shim|     fuel_3 = 0
# shim|     while fuel_3 < 1 and a_1:
# shim|         fuel_3 += 1
# shim|         for i_4 in range(a_2, a_2, a_2 - -1):
# shim|             continue
# shim|     return a_2
# shim| 
# shim| def f(x_14: float, x_15: float):
# shim|     assert g_0(x_14, -1)
# shim|     v_19 = x_14
# shim|     return v_19
