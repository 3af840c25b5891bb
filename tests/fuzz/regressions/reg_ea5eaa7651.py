# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (elif+hoist+inline program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 7 0x0.0000000000001p-1022 -0x1.d4bca58ef9a47p+55 0x1.ab1e53e81d18ep+53 0x1.633d70a3d70a4p+9 0x1.fffffffffffffp+1023 0x0.0p+0 -0x1.d4bca58ef9a47p+55
# arg: x_2 float array 1 0x0.0p+0

# | batched call raised TypeError: ufunc '…' not supported for the input types, and the inputs could not be safely coerced to any supported types according
# | batched call raised TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''") but every lane of the scalar function returned
# |   expected: [(5e-324, 0), (-6.5968854177468984e+16, 0), (1.5027895097598748e+16, 0), (710.48, 0), (1.7976931348623157e+308, 0), (1, 0.0), (-6.5968854177468984e+16, 0)]
# |   got:      raises TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''")
# | (NumPy-valued oracle: batched raised TypeError("ufunc 'bitwise_or' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''"), which no lane of either oracle raises first)

import math

def f(x_1: float, x_2: float):
    ct_903 = x_1
    if ct_903:
        for i_9 in range(1):
            return (x_1, i_9)
    ct_906 = False
    if ct_906:
        v_16, v_17, x_1 = (x_1, 0, True)
        ct_907 = x_1
        if ct_907:
            raise 0
    return (1, x_1)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float):
# shim|     ct_903 = x_1
# shim|     if ct_903:
# shim|         for i_9 in range(1):
# shim|             return (x_1, i_9)
# shim|     ct_906 = False
# shim|     if ct_906:
# shim|         v_16, v_17, x_1 = (x_1, 0, True)
# shim|         ct_907 = x_1
# shim|         if ct_907:
# shim|             raise 0
# shim|     return (1, x_1)
