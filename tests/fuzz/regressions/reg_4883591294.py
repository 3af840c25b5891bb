# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed  (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# backend: numpy
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_4 int array 0d 9007199254740992
# arg: x_5 float array 0

# | transform crash in ops_to_numpy.py:coerce: AssertionError: (<Type.INT: '…'>, <Type.BOOL: '…'>)
# | AssertionError: (<Type.INT: 'int'>, <Type.BOOL: 'bool'>)
# |   api.py:99 source
# |   api.py:195 _kernel
# |   api.py:247 _build
# |   api.py:267 _lower
# |   pipeline.py:111 lower
# |   ops_to_numpy.py:505 transform
# |   ops_to_numpy.py:125 block
# |   ops_to_numpy.py:138 statement
# |   ops_to_numpy.py:176 small
# |   ops_to_numpy.py:176 <listcomp>
# |   ops_to_numpy.py:314 lower
# |   ops_to_numpy.py:356 _lower
# |   numpy_exprs.py:128 boolean
# |   ops_to_numpy.py:483 coerce

import math

def f(n_4: int, x_5: float):
    x_5 = x_5 >= 0
    return (1, 1 and x_5)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_4: int, x_5: float):
# shim|     x_5 = x_5 >= 0
# shim|     return (1, 1 and x_5)
