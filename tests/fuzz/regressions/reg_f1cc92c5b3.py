# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 6 False False True False False False

# | batched call raised TypeError: numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor fu
# | batched call raised TypeError('numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.') but every lane of the scalar function returned
# |   expected: [False, False, True, False, False, False]
# |   got:      raises TypeError('numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.')
# | (NumPy-valued oracle: batched raised TypeError('numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.'), which no lane of either oracle raises first)

import math

def f(b_1: bool):
    v_2 = True
    v_3 = 0
    if True:
        v_3 = v_3
    else:
        v_2 = 0.5
    v_2 -= b_1
    return b_1

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(b_1: bool):
# shim|     v_2 = True
# shim|     v_3 = 0
# shim|     if True:
# shim|         v_3 = v_3
# shim|     else:
# shim|         v_2 = 0.5
# shim|     v_2 -= b_1
# shim|     return b_1
