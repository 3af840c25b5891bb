# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_8 float array 7 -0x1.0000000000000p-1022 0x1.0000000000000p+53 0x1.9999999999999p-4 0x1.999999999999bp-4 -0x1.0000000000000p+63 -0x1.4c88144541230p+52 0x1.0000000000001p+53

# | transform crash in ops_to_numpy.py:_static: SyntaxError: invalid syntax (<unknown>, line N)
# | SyntaxError: invalid syntax (<unknown>, line 1)
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:172 _build
# |   api.py:192 _lower
# |   pipeline.py:106 lower
# |   ops_to_numpy.py:638 transform
# |   ops_to_numpy.py:131 block
# |   ops_to_numpy.py:137 statement
# |   ops_to_numpy.py:168 small
# |   ops_to_numpy.py:101 check
# |   ops_to_numpy.py:599 _static

import math
K_1 = True

def f(x_8: float):
    v_9 = False
    v_10 = x_8
    assert math.isclose(v_10, not v_9, rel_tol=0), 0
    return K_1

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| K_1 = True
# shim| 
# shim| def f(x_8: float):
# shim|     v_9 = False
# shim|     v_10 = x_8
# shim|     assert math.isclose(v_10, not v_9, rel_tol=0), 0
# shim|     return K_1
