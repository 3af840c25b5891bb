# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numba
# kind: wrong value: int
# known-when: counter_cls
# found: seed 168 (reduced on NumPy)
# arg: int scalar 3037000500
# | ((), 1, 2, None)
# |   loop: [1]
# |   batched: int64[] 2
import math
_CNT = [0]

def _reset():
    global K0, F0, T0, U0
    K0 = 3
    F0 = 0.1
    T0 = (1000, 5, 7)
    U0 = (0.5, 1e-310, 2.5, -0.0, 1e-310, 3.0)
    _CNT[0] = 0

def _mutate():
    global K0, F0, T0
    K0 = 4
    F0 = -1.5
    T0 = (5, 7, 1000)

class Cz0:

    @classmethod
    def pick(cls, name):
        _CNT[0] += 1
        return _CNT[0]

def f(a):
    return Cz0.pick('abc')
