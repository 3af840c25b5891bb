# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_4 int array 2 107 -9223372036854775808

# | transform crash in ops_to_numpy.py:if_stmt: AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n     
# | AssertionError: assert Else(\n    body=IndentedBlock(\n        body=[\n            SimpleStatementLine(\n                body=[\n                 ...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) is None
# |  +  where Else(\n    body=IndentedBlock(\n        body=[\n            SimpleStatementLine(\n                body=[\n                 ...       footer=[],\n    ),\n    leading_lines=[],\n    whitespace_before_colon=SimpleWhitespace(\n        value='',\n    ),\n) = If(\n    test=Name(\n        value='nn_504',\n        lpar=[],\n        rpar=[],\n    ),\n    body=IndentedBlock(\n        bo...test=SimpleWhitespace(\n        value=' ',\n    ),\n    whitespace_after_test=SimpleWhitespace(\n        value='',\n    ),\n).orelse
# |   api.py:99 source
# |   api.py:195 _kernel
# |   api.py:247 _build
# |   api.py:267 _lower
# |   pipeline.py:111 lower
# |   ops_to_numpy.py:505 transform
# |   ops_to_numpy.py:125 block
# |   ops_to_numpy.py:144 statement
# |   ops_to_numpy.py:302 for_loop
# |   ops_to_numpy.py:130 suite
# |   ops_to_numpy.py:125 block
# |   ops_to_numpy.py:142 statement
# |   ops_to_numpy.py:277 while_loop
# |   ops_to_numpy.py:130 suite
# |   ops_to_numpy.py:125 block
# |   ops_to_numpy.py:140 statement
# |   ops_to_numpy.py:186 if_stmt

import math

def f(nn_504: int):
    if nn_504:
        nn_504 = 0
        fuelfuel_507 = 0
    else:
        raise 0
    for ii_510 in range(fuelfuel_507, fuelfuel_507):
        fuelfuel_512 = 0
        while fuelfuel_512 < 0 and nn_504 <= ii_510 * -fuelfuel_512:
            fuelfuel_512 += 1
            if nn_504:
                pass
            else:
                break
    return (0, 0, fuelfuel_507)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(nn_504: int):
# shim|     if nn_504:
# shim|         nn_504 = 0
# shim|         fuelfuel_507 = 0
# shim|     else:
# shim|         raise 0
# shim|     for ii_510 in range(fuelfuel_507, fuelfuel_507):
# shim|         fuelfuel_512 = 0
# shim|         while fuelfuel_512 < 0 and nn_504 <= ii_510 * -fuelfuel_512:
# shim|             fuelfuel_512 += 1
# shim|             if nn_504:
# shim|                 pass
# shim|             else:
# shim|                 break
# shim|     return (0, 0, fuelfuel_507)
