# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed
# found: long run (rename+split+swap program)
# classb: no
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: b_1 bool array 1 False
# | transform crash in if_to_select.py:small: AssertionError: unexpected statement Pass   (observed; fixed by the engine later)


import math
K_0 = -1.5
T_1 = (-2,)

def f(bb_501: bool):
    if not bool(bb_501):
        pass
    else:
        vv_502 = bb_501
    return bb_501
