# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: bounded (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_2 int array 2 16 1000

# | batched call raised UFuncTypeError: Cannot cast ufunc '…' output from dtype('…') to dtype('…') with casting rule '…'
# | batched call raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2) but every lane of the scalar function returned
# |   expected: [0, 0]
# |   got:      raises UFuncTypeError("Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'")
# | (NumPy-valued oracle: batched raised UFuncTypeError(<ufunc 'bitwise_or'>, 'same_kind', dtype('int64'), dtype('bool'), 2), which no lane of either oracle raises first)

import math

def f(n_2: int):
    v_5 = n_2 if n_2 else 10000000000.0
    return 0

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_2: int):
# shim|     v_5 = n_2 if n_2 else 10000000000.0
# shim|     return 0
