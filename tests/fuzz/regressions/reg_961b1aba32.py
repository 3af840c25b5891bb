# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numba
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0
# arg: b_2 bool array 1 False

# | numba backend: transform crash in batched.py:val: KeyError: Call(
# | KeyError: Call(
# |     func=Attribute(
# |         value=Name(
# |             value='math',
# |             lpar=[],
# |             rpar=[],
# |         ),
# |         attr=Name(
# |             value='tanh',
# |             lpar=[],
# |             rpar=[],
# |         ),
# |         dot=Dot(
# |             whitespace_before=SimpleWhitespace(
# |                 value='',
# |             ),
# |             whitespace_after=SimpleWhitespace(
# |                 value='',
# |             ),
# |         ),
# |         lpar=[],
# |         rpar=[],
# |     ),
# |     args=[
# |         Arg(
# |             value=Name(
# |                 value='fuel_5',
# |                 lpar=[],
# |                 rpar=[],
# |             ),
# |             keyword=None,
# |             equal=MaybeSentinel.DEFAULT,
# |             comma=MaybeSentinel.DEFAULT,
# |             star='',
# |             whitespace_after_star=SimpleWhitespace(
# |                 value='',
# |             ),
# |             whitespace_after_arg=SimpleWhitespace(
# |                 value='',

import math

def f(n_1: int, b_2: bool):
    fuel_5 = 0
    while fuel_5 < 1 and True:
        fuel_5 += 1
        if -0:
            raise 0
        else:
            break
        v_10 = round(math.tanh(fuel_5), 0)
    return 1

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_1: int, b_2: bool):
# shim|     fuel_5 = 0
# shim|     while fuel_5 < 1 and True:
# shim|         fuel_5 += 1
# shim|         if -0:
# shim|             raise 0
# shim|         else:
# shim|             break
# shim|         v_10 = round(fuzz_shim.tanh(fuel_5), 0)
# shim|     return 1
