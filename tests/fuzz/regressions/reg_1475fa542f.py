# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (elif+hoist+inline program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 4 0x1.0000000000000p-1022 0x1.0000000000001p+53 0x1.0000000000001p+53 0x1.fffffffffffffp-1
# arg: n_2 int array 4 4611686018427387904 15 166704 -9223372036854775808

# | refusal names 'ret', which is not in the program (an engine temporary): VectorizeError: '…' is used before it is assigned
# | error[VEC]: 'ret' is used before it is assigned
# | hint: assign it first

import math

def f(x_1: float, n_2: int):
    ct_904 = 0
    if ct_904:
        return (n_2, 0)
    else:
        ct_905 = n_2
        if ct_905:
            return (0, 0)
    return (0, n_2)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, n_2: int):
# shim|     ct_904 = 0
# shim|     if ct_904:
# shim|         return (n_2, 0)
# shim|     else:
# shim|         ct_905 = n_2
# shim|         if ct_905:
# shim|             return (0, 0)
# shim|     return (0, n_2)
