# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 0d 0x1.9999999999999p-4
# arg: b_2 bool array 0d True

# | transform crash in ops_to_numpy.py:transform (call-time specialization): ParserSyntaxError
# | batched call raised ParserSyntaxError('parser error: error at 5:11: expected INDENT', lines=[...], raw_line=5, raw_column=0) but every lane of the scalar function returned
# |   expected: [0.09999999999999999]
# |   got:      raises ParserSyntaxError('Syntax Error @ 5:1.\nparser error: error at 5:11: expected INDENT\n\n    return (xx_501, None)\n^')
# | (NumPy-valued oracle: batched raised ParserSyntaxError('parser error: error at 5:11: expected INDENT', lines=[...], raw_line=5, raw_column=0), which no lane of either oracle raises first)

import math

def f(xx_501: float, bb_502: bool):
    if bb_502:
        pass
    return xx_501

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(xx_501: float, bb_502: bool):
# shim|     if bb_502:
# shim|         pass
# shim|     return xx_501
