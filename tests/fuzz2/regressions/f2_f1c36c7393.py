# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
# status: fixed  (a strict xfail while open; 'fixed' once the engine passes it)
# backend: numpy
# kind: VEC-BUG while transforming: ParserSyntaxError
# found: seed 401016
# arg: int array 1 3037000500
# | error[VEC-BUG]: a vectorizer bug while transforming f in pass 'if_to_select': ParserSyntaxError at entrypoints.py:47: Syntax Error @ 1:1.
# | parser error: error at 1:13: expected one of !=, %, &, (, ), *, **, +, -, ., /, //, <, <<, <=, ==, >, >=, >>, @, ASYNC, [, ^, and, for, if, in, is, not, or, |
# | 
# | (0.bit_length()) if m_3 else ret
# | ^
# | hint: the function runs element by element meanwhile; please report it with its source (see `vectorizer errors VEC-BUG`)
import math

def _reset():
    global K0, F0, T0, U0
    K0 = -7
    F0 = 2.5
    T0 = (7, 0, 255, 7, 100, -3, 5)
    U0 = (1e-310, -0.0, -3.5, 1e-310, -3.5, 0.5)

def _mutate():
    global K0, F0, T0
    K0 = -6
    F0 = 1e+308
    T0 = (0, 255, 7, 100, -3, 5, 7)

def q0(n, d):
    if d:
        return n
    return d.bit_length()

def f(a):
    n1 = a
    if n1:
        n1 = q0(n1, 0)
    return (6, n1)
