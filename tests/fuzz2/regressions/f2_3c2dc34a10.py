# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numba
# kind: side effects differ from the loop's
# known-when: print_cls
# found: seed 80 (reduced on NumPy)
# arg: float scalar 0x1.aee4b62f3df84p+419
# | loop: ['print fz: pick wgs84']
# | batched: ['print fz: pick wgs84', 'print fz: pick wgs84']
import math

def _reset():
    global K0, F0, T0
    K0 = 12
    F0 = 2.5
    T0 = (1, -3, 1, 100)

def _mutate():
    global K0, F0, T0
    K0 = 9
    F0 = 1e+308
    T0 = (-3, 1, 100, 1)

class Cz0:

    @classmethod
    def pick(cls, name):
        print('fz: pick', name)
        return 0

def f(x):
    return (Cz0.pick('wgs84'), x)
