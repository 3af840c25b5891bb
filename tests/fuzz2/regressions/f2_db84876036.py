# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numpy
# kind: after _mutate(): wrong value: int
# known-when: class_attr
# found: seed 911
# arg: float scalar -inf
# | ((), 5, 3, None)
# |   loop: [5]
# |   batched: int64[] 3
import math

def _reset():
    global K0, F0, T0
    K0 = 3
    F0 = 0.1
    T0 = (5, 3)
    Cz0.SCALE = 3

def _mutate():
    global K0, F0, T0
    K0 = 1099511627779
    F0 = 1e+308
    T0 = (3, 5)
    Cz0.SCALE = 5

class Cz0:

    @classmethod
    def pick(cls, name):
        return cls.SCALE

def f(x):
    return Cz0.pick('wgs84')
