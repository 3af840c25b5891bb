# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0
# arg: x_2 float array 1 0x0.0p+0

# | transform crash in ops_to_numpy.py:if_stmt: AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n     
# | AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n            SimpleStatementLine(\n                body=[\n                 ...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) is None
# |  +  where Else(\n    body=IndentedBlock(\n        body=[\n            SimpleStatementLine(\n                body=[\n                 ...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) = If(\n    test=Comparison(\n        left=Name(\n            value='fuel_4',\n            lpar=[],\n            rpar=[],\n    ...test=SimpleWhitespace(\n        value=' ',\n    ),\n    whitespace_after_test=SimpleWhitespace(\n        value='',\n    ),\n).orelse
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

def f(x_1: float, x_2: float):
    fuel_3 = 0
    while fuel_3 < 1 and x_1 * min(fuel_3, fuel_3) >= 0 > fuel_3 // (0 * fuel_3):
        fuel_3 += 1
        return (x_1, fuel_3)
    fuel_4 = 0
    while False:
        fuel_4 += 1
        if fuel_4 > 1:
            break
        return (0, fuel_3)
    return (x_1, fuel_4)
