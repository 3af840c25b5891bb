# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 2x3 0x1.633d70a3d70a4p+9 -0x0.0p+0 0x1.0624dd2f1a9fdp-10 0x1.2a05f20000001p+33 0x0.199999999999ap-1022 -0x1.0000000000000p+0
# arg: n_2 int array 0d 5

# | batched call raised ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
# | batched call raised ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()') but every lane of the scalar function returned
# |   expected: [(1, 0), (5, nan), (1, 0), (1, 0), (1, 0), (1, 0)]
# |   got:      raises ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()')
# | (NumPy-valued oracle: batched raised ValueError('The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()'), which no lane of either oracle raises first)

import math

def f(xx_501: float, nn_502: int):
    if xx_501:
        nn_502 **= 0
        vv_505, vv_506 = divmod(nn_502, 1)
        return (vv_505, vv_506)
    for ii_509 in range(nn_502):
        vv_510, vv_511 = (nn_502, nn_502)
    return (nn_502, math.nan)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(xx_501: float, nn_502: int):
# shim|     if xx_501:
# shim|         nn_502 **= 0
# shim|         vv_505, vv_506 = divmod(nn_502, 1)
# shim|         return (vv_505, vv_506)
# shim|     for ii_509 in range(nn_502):
# shim|         vv_510, vv_511 = (nn_502, nn_502)
# shim|     return (nn_502, math.nan)
