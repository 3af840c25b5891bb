# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_10 bool array 6 False False True True True True

# | batched call raised UnboundLocalError: cannot access local variable '…' where it is not associated with a value
# | (UnboundLocalError("cannot access local variable 'ret_2' where it is not associated with a value"), ZeroDivisionError('integer division or modulo by zero'), (2,))
# |   expected: [(1, 0, 0), (1, 0, 0), raises ZeroDivisionError('integer division or modulo by zero') on lane (2,)]
# |   got:      raises UnboundLocalError("cannot access local variable 'ret_2' where it is not associated with a value")
# | (NumPy-valued oracle: batched raised UnboundLocalError("cannot access local variable 'ret_2' where it is not associated with a value"), which no lane of either oracle raises first)

import math

def g_0(a_1: float):
    v_2 = 0
    v_3, v_4 = divmod(0, v_2)
    v_5, v_6 = divmod(v_3, v_4)
    for i_7 in range(v_4, v_6, 1):
        return (0, a_1)
    return (0, 1)

def f(b_10: bool):
    fuel_11 = 0
    while True:
        fuel_11 += 1
        if fuel_11 > 1:
            break
        if round(b_10 + 0, 0):
            v_16, v_17 = g_0(0)
        v_22 = fuel_11
        for i_23 in range(0, 1):
            return (v_22, 0, b_10 - 0)
    return (0, 0, b_10)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def g_0(a_1: float):
# shim|     v_2 = 0
# shim|     v_3, v_4 = divmod(0, v_2)
# shim|     v_5, v_6 = divmod(v_3, v_4)
# shim|     for i_7 in range(v_4, v_6, 1):
# shim|         return (0, a_1)
# shim|     return (0, 1)
# shim| 
# shim| def f(b_10: bool):
# shim|     fuel_11 = 0
# shim|     while True:
# shim|         fuel_11 += 1
# shim|         if fuel_11 > 1:
# shim|             break
# shim|         if round(b_10 + 0, 0):
# shim|             v_16, v_17 = g_0(0)
# shim|         v_22 = fuel_11
# shim|         for i_23 in range(0, 1):
# shim|             return (v_22, 0, b_10 - 0)
# shim|     return (0, 0, b_10)
