# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_4 int array 1 0

# | transform crash in break_continue.py:_loop: AssertionError: for_to_while lowers loops that break
# | AssertionError: for_to_while lowers loops that break
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:172 _build
# |   api.py:192 _lower
# |   pipeline.py:106 lower
# |   break_continue.py:137 transform
# |   break_continue.py:133 leave_For
# |   break_continue.py:121 _loop

import math
T_1 = (0,)

def f(nn_504: int):
    for ii_505 in T_1:
        return ii_505
    return nn_504
