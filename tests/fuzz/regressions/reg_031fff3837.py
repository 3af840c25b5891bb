# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: x_1 float array 3 -0x1.fffffffffffffp+1023 -0x1.421bdb4b9f881p+55 0x1.8000000000000p+1

# | transform crash in ops_to_numpy.py:transform: ParserSyntaxError: Syntax Error @ N:N
# | ParserSyntaxError: Syntax Error @ 5:1.
# | parser error: error at 5:11: expected INDENT
# | 
# |     return ((0, K_0), None)
# | ^
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:172 _build
# |   api.py:192 _lower
# |   pipeline.py:110 lower
# |   ops_to_numpy.py:684 transform

import math
K_0 = 0

def f(xx_501: float):
    for ii_502 in range(0):
        pass
    return (0, K_0)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| K_0 = 0
# shim| 
# shim| def f(xx_501: float):
# shim|     for ii_502 in range(0):
# shim|         pass
# shim|     return (0, K_0)
