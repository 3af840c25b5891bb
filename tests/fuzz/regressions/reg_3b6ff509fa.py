# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_1 int array 1 0

# | transform crash in ops_to_numpy.py:_minimal_parens: SyntaxError: invalid syntax (<unknown>, line N)
# | SyntaxError: invalid syntax (<unknown>, line 1)
# |   api.py:79 source
# |   api.py:136 _kernel
# |   api.py:172 _build
# |   api.py:192 _lower
# |   pipeline.py:106 lower
# |   ops_to_numpy.py:647 transform
# |   ops_to_numpy.py:647 <listcomp>
# |   ops_to_numpy.py:593 _minimal_parens

import math

def f(n_1: int):
    for i_2 in range(0):
        return True & (not i_2)
    return n_1
