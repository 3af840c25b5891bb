# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 4 -16251359 -6 2147483648 334

# | batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | batched call raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value") but every lane of the scalar function returned
# |   expected: [(0, -16251359, 0), (0, -6, 0), (0, 2147483648, 0), (0, 334, 0)]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret' where it is not associated with a value"), which no lane of either oracle raises first)

import math
T_1 = (0, 0, 0)

def f(n_1: int):
    for i_2 in T_1:
        for i_3 in range(0):
            return (n_1, n_1, i_2)
    fuel_5 = 0
    while fuel_5 < 1 and n_1:
        fuel_5 += 1
        for i_6 in range(0):
            return (n_1, i_6, 0)
    return (0, n_1, 0)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| T_1 = (0, 0, 0)
# shim| 
# shim| def f(n_1: int):
# shim|     for i_2 in T_1:
# shim|         for i_3 in range(0):
# shim|             return (n_1, n_1, i_2)
# shim|     fuel_5 = 0
# shim|     while fuel_5 < 1 and n_1:
# shim|         fuel_5 += 1
# shim|         for i_6 in range(0):
# shim|             return (n_1, i_6, 0)
# shim|     return (0, n_1, 0)
