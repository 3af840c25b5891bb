# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numba
# kind: wrong value: int
# known-when: random_cls
# found: seed 945 (reduced on NumPy)
# arg: int scalar -2
# | ((), 41, 19, None)
# |   loop: [41]
# |   batched: int64[] 19
import math
import random
_RNG = random.Random(7)

def _reset():
    global K0, F0, T0
    K0 = 4611686018427387904
    F0 = 1e+300
    T0 = (10, -1, 5, 100, -1)
    _RNG.seed(7)

def _mutate():
    global K0, F0, T0
    K0 = 4611687117939015680
    F0 = 1e+308
    T0 = (-1, 5, 100, -1, 10)

class Cz0:

    @classmethod
    def pick(cls, name):
        return _RNG.randrange(100)

def f(a):
    return Cz0.pick('ab')
