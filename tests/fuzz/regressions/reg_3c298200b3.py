# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_3 float array 1 0x1.8611a150fc7e8p+2

# | transform crash in ops_to_numpy.py:if_stmt: AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n     
# | AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n            If(\n                test=Name(\n                    value='act...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) is None
# |  +  where Else(\n    body=IndentedBlock(\n        body=[\n            If(\n                test=Name(\n                    value='act...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) = If(\n    test=Comparison(\n        left=Name(\n            value='fuel_4',\n            lpar=[],\n            rpar=[],\n    ...test=SimpleWhitespace(\n        value=' ',\n    ),\n    whitespace_after_test=SimpleWhitespace(\n        value='',\n    ),\n).orelse
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:172 _build
# |   api.py:192 _lower
# |   pipeline.py:110 lower
# |   ops_to_numpy.py:672 transform
# |   ops_to_numpy.py:150 block
# |   ops_to_numpy.py:160 statement
# |   ops_to_numpy.py:251 while_loop
# |   ops_to_numpy.py:150 block
# |   ops_to_numpy.py:158 statement
# |   ops_to_numpy.py:201 if_stmt

import math

def f(x_3: float):
    if x_3:
        fuel_4 = 0
        while True:
            fuel_4 += 1
            if fuel_4 > 0:
                break
            fuel_5 = 0
        assert fuel_4, 0
    return False

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(x_3: float):
# shim|     if x_3:
# shim|         fuel_4 = 0
# shim|         while True:
# shim|             fuel_4 += 1
# shim|             if fuel_4 > 0:
# shim|                 break
# shim|             fuel_5 = 0
# shim|         assert fuel_4, 0
# shim|     return False
