# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_4 float array 3x3 inf 0x1.0000000000000p+53 0x1.fffffffffffffp-1 0x1.fffffffffffffp-1 0x1.0000000000001p+0 0x1.0624dd2f1a9fbp-10 0x1.999999999999bp-4 0x1.0624dd2f1a9fbp-10 0x1.0000000000000p+53

# | transform crash in batched.py:val: KeyError: Name(
# | KeyError: Name(
# |     value='x_4',
# |     lpar=[],
# |     rpar=[],
# | )
# |   api.py:97 source
# |   api.py:180 _kernel
# |   api.py:232 _build
# |   api.py:252 _lower
# |   pipeline.py:110 lower
# |   ops_to_numpy.py:804 transform
# |   ops_to_numpy.py:167 block
# |   ops_to_numpy.py:182 statement
# |   ops_to_numpy.py:241 if_stmt
# |   ops_to_numpy.py:172 suite
# |   ops_to_numpy.py:167 block
# |   ops_to_numpy.py:180 statement
# |   ops_to_numpy.py:196 small
# |   ops_to_numpy.py:330 lower
# |   ops_to_numpy.py:337 _lower
# |   batched.py:70 val

import math

def f(x_4: float):
    v_6, x_4 = (0, x_4)
    if int(0):
        v_6 = v_6
    else:
        raise 0
        x_4, v_8 = (x_4, True)
    return x_4

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_4: float):
# shim|     v_6, x_4 = (0, x_4)
# shim|     if int(0):
# shim|         v_6 = v_6
# shim|     else:
# shim|         raise 0
# shim|         x_4, v_8 = (x_4, True)
# shim|     return x_4
