# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numba
# kind: VEC-BUG while transforming: SyntaxError
# found: seed 7005
# arg: int scalar 2
# | error[VEC-BUG]: a vectorizer bug while transforming f: SyntaxError at ast.py:50: invalid decimal literal (<unknown>, line 1)
# | fixed: passes/specialize.py parenthesizes the literal
import math

def _reset():
    global K0, F0, T0, U0
    K0 = 4611686018427387904
    F0 = 0.1
    T0 = (0, 1, 1000)
    U0 = (2.5, 1e-310, math.inf)

def _mutate():
    global K0, F0, T0
    K0 = 4611687117939015680
    F0 = -1.5
    T0 = (1, 1000, 0)

class Cz0:

    @classmethod
    def pick(cls, name):
        return 0

def f(a):
    n7 = Cz0.pick('a').bit_length()
    return 8
