# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.
# status: fixed   (set to 'fixed' once the engine passes it: open ones are strict xfails)
# found: long run (original program)
# classb: yes
# vectorizer: 0.1.0  numpy: 2.4.6
# arg: n_2 int scalar 4611686018427387904
# arg: n_3 int array 3 11 5 2


# | wrong value
# | ((0,), 4611686018427387904, 4.611686018427388e+18)
# |   expected: [(4611686018427387904, 0, 0), (4611686018427387904, 0, 0), (4611686018427387904, 0, 0)]
# |   got:      (float64[3] [4.611686018427388e+18, 4.611686018427388e+18, 4.611686018427388e+18], int64[3] [0, 0, 0], int64[3] [0, 0, 0])
# | (NumPy-valued oracle: lane (0,): batched (4.611686018427388e+18, 0, 0), libm oracle (4611686018427387904, 0, 0), NumPy oracle (4611686018427387904, 0, 0))

import math

def f(n_2: int, n_3: int):
    return (n_2 or 0.5, 0, 0)

# shim| import math
# shim| from fuzz import shim as fuzz_shim
# shim| 
# shim| def f(n_2: int, n_3: int):
# shim|     return (n_2 or 0.5, 0, 0)
