# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (elif+hoist+inline program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 4 -0x1.5e5f69e549706p-465 0x1.1fdd6cbb968fep+55 0x1.fffffffffffffp+1023 0x1.633d70a3d70a4p+9
# arg: x_2 float array 4 0x0.0000000000001p-1022 -0x1.3662803f7c360p+298 0x1.43689cb2a67c0p-3 -0x1.1f9b66dd61b6cp+1
# arg: x_3 float array 4 -0x1.93926b6c3c4e2p+2 -0x1.86b2fbd842ad3p+55 0x1.a45cfdc547b9dp+97 0x0.0000000000001p-1022

# | numba backend: batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | (UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2), ValueError('math domain error'), (0,))
# |   expected: [raises ValueError('math domain error') on lane (0,)]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")
# | (NumPy-valued oracle: batched raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2), which no lane of either oracle raises first)

import math

def f(x_1: float, x_2: float, x_3: float):
    v_4, v_5 = (x_1, 0)
    ct_901 = True
    if ct_901:
        ct_902 = v_5 & 0
    else:
        ct_905 = v_4
        if ct_905:
            return v_5
    v_5 = 0.0
    return math.log(x_1, True)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float, x_3: float):
# shim|     v_4, v_5 = (x_1, 0)
# shim|     ct_901 = True
# shim|     if ct_901:
# shim|         ct_902 = v_5 & 0
# shim|     else:
# shim|         ct_905 = v_4
# shim|         if ct_905:
# shim|             return v_5
# shim|     v_5 = 0.0
# shim|     return fuzz_shim.log(x_1, True)
