# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 2 0x0.0p+0 0x0.0p+0
# arg: x_2 float array 0d 0x1.0000000000001p+53
# arg: x_3 float array 2 -0x1.cfde17f6501f5p-87 -0x1.cfde17f6501f5p-87

# | numba backend: transform crash in batched.py:val: KeyError: BinaryOperation(
# | KeyError: BinaryOperation(
# |     left=Integer(
# |         value='0',
# |         lpar=[],
# |         rpar=[],
# |     ),
# |     operator=BitOr(
# |         whitespace_before=SimpleWhitespace(
# |             value=' ',
# |         ),
# |         whitespace_after=SimpleWhitespace(
# |             value=' ',
# |         ),
# |     ),
# |     right=Integer(
# |         value='1',
# |         lpar=[],
# |         rpar=[],
# |     ),
# |     lpar=[],
# |     rpar=[],
# | )
# |   api.py:97 source
# |   api.py:180 _kernel
# |   api.py:224 _build
# |   api.py:252 _lower
# |   pipeline.py:143 lower_lanes
# |   ops_to_lanes.py:512 lower_lane
# |   ops_to_lanes.py:160 block
# |   ops_to_lanes.py:214 if_stmt
# |   ops_to_lanes.py:308 expr
# |   ops_to_lanes.py:420 call
# |   ops_to_lanes.py:420 <listcomp>
# |   batched.py:58 val

import math

def f(x_1: float, x_2: float, x_3: float):
    v_4, v_5 = (x_1, 0)
    if v_5:
        return v_5
    else:
        return False
    if bool(0 | 1):
        v_15, v_16 = (0, v_5)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_1: float, x_2: float, x_3: float):
# shim|     v_4, v_5 = (x_1, 0)
# shim|     if v_5:
# shim|         return v_5
# shim|     else:
# shim|         return False
# shim|     if bool(0 | 1):
# shim|         v_15, v_16 = (0, v_5)
