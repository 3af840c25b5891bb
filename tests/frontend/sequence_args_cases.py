"""Functions for tests/frontend/test_sequence_args.py: sequences of numbers the same for every lane
(module-level lists and tuples, local displays, pure operations on them) passed to a function of
the module that iterates over, indexes or measures them (the Cephes pattern: pyerf, ports of
scipy.special). A module of its own: the module-level lists are read (and watched) as the
vectorizer reads a user's module."""

import math

P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1]
Q0 = [1.95448858338141759834E0, 4.67627912898881538453E0]
P0T = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1)
INTS = [3, -2, 7]
CHANGING = [1.0, 2.0]


def _polevl(x, coefs, N):
    ans = 0
    power = len(coefs) - 1
    for coef in coefs:
        try:
            ans += coef * x**power
        except OverflowError:
            pass
        power -= 1
    return ans


def _p1evl(x, coefs, N):
    return _polevl(x, [1] + coefs, N)


def f(y):  # module-level lists passed on
    return _polevl(y, P0, 2) / _p1evl(y, Q0, 2)


def g(y):  # a local display of literals passed on (pyerf._ndtri does this)
    P = [1.5, 2.5, 3.5]
    return _polevl(y, P, 2)


def from_tuple(y):
    return _polevl(y, P0T, 2) + _polevl(y, (0.5, -0.25), 1)


def operations(y):  # what pure operations on such values give, computed when the code is generated
    return _polevl(y, P0[::-1], 2) + _polevl(y, tuple(Q0) + (1.0,), 2) - _polevl(y, Q0 * 2, 3) + _polevl(y, list(P0T)[1:], 1)


def two_lists(y):  # two coefficient lists: two specializations
    return _polevl(y, [1.0, 2.0], 1) * _polevl(y, [3.0, -4.0], 1)


def _horner(x, coefs):
    ans = coefs[0]
    for i in range(1, len(coefs)):
        ans = ans * x + coefs[i]
    return ans


def horner(y):
    C = [2.5, -1.0, 0.125]
    return _horner(y, C) + _horner(y, P0)


def ints(n):  # int coefficients and an int argument stay ints, as in Python
    return _polevl(n, INTS, 2) + _polevl(n, [1, 2], 1)


def _pick(x, coefs, i):
    return coefs[i] * x + len(coefs)


def pick(y, i):  # IndexError where Python raises it, a negative index from the end
    return _pick(y, P0, i)


def _member(x, coefs):
    if x in coefs:
        return 1.0
    return x


def member(y):
    return _member(y, [0.5, -1.0, 2.5])


def _sum_of(x, coefs):
    s = 0.0
    for k, c in enumerate(coefs):
        s += c * x - k
    return s


def enumerated(y):
    return _sum_of(y, Q0 + P0)


def changing(y):
    return _polevl(y, CHANGING, 1)


# What is refused.

def _appends(x, coefs):
    coefs.append(1.0)
    return _polevl(x, coefs, 1)


def appends(y):
    return _appends(y, [2.0, 3.0])


def _assigns(x, coefs):
    coefs[0] = x
    return coefs[1]


def assigns(y):
    return _assigns(y, [2.0, 3.0])


def _sorts(x, coefs):
    coefs.sort()
    return coefs[0] * x


def sorts(y):
    return _sorts(y, P0)


def _rebinds(x, coefs):
    coefs = coefs + [x]
    return coefs[0]


def rebinds(y):
    return _rebinds(y, [2.0])


def _returns(x, coefs):
    return coefs


def returns(y):
    return _returns(y, [2.0])[0] * y


def per_lane(y):  # a list whose items differ per lane
    P = [y, 1.0]
    return _polevl(y, P, 1)


def tuple_plus_list(y):  # `[1] + coefs` of a tuple: TypeError in Python
    return _p1evl(y, P0T, 2)


def some_lanes(y):
    if y > 1.0:
        return _p1evl(y, P0T, 2)
    return y


def in_loop(y):  # the TypeError on the lanes that reach it, as Python raises it
    s = y
    if y > 1.0:
        for c in (0.5,) + [2.0]:
            s += c * y
    return s


def after_a_division(y):  # 1.0 / y runs first and may raise: refused
    return _polevl(1.0 / y, (1.0,) + [2.0], 1)


def _first(x, coefs):
    return coefs[0] * x


def signed_zeros(y):  # [0.0] and [-0.0]: two specializations, each zero its sign
    return math.copysign(1.0, _first(y, [0.0])) + 4.0 * math.copysign(1.0, _first(y, [-0.0]))
