# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 1 0x0.0p+0
# | transform crash in ops_to_numpy.py:transform: ParserSyntaxError: Syntax Error @ N:N
# | ParserSyntaxError: Syntax Error @ 7:9.
# | parser error: error at 6:8: expected INDENT
# | 
# |         # line 12: vv_503 = vv_502
# |         ^
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:186 _build
# |   api.py:206 _lower
# |   pipeline.py:110 lower
# |   ops_to_numpy.py:713 transform

import math



def f(xx_501: float):
    vv_502 = (0 < 0)
    if not (vv_502):
        pass
    else:
        vv_503 = vv_502
    return vv_502
