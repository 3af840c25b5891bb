# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numpy
# kind: VEC-BUG while running: UFuncTypeError
# found: seed 116
# arg: bool scalar False
# arg: float scalar -0x1.6141c8e6429c0p-3
# arg: int array 1 -1
# | error[VEC-BUG]: a vectorizer bug while running the code generated for f: UFuncTypeError at vz_e98c88cbb7329048ccd527d72c2118c208a7016a55e8fdb5c09099035d46b73f.py:23: Cannot cast ufunc 'bitwise_or' output from dtype('int64') to dtype('bool') with casting rule 'same_kind'
# | hint: the function runs element by element meanwhile; please report it with its source (see `vectorizer errors VEC-BUG`)
import math

def _reset():
    global K0, F0, T0

def _mutate():
    global K0, F0, T0

def q0(n, d):
    return q1(n, d - 1)

def q1(n, d):
    if d <= 0 or n >= d:
        return 5e-324
    return n

def f(flag, x, a):
    n1 = a
    a = q0(n1, 1)
    return n1
