"""Functions that reduce uniform tables (module-level 1-D arrays) per lane, in the shape of
iapws.iapws97's backward equations: tables of 3, 8, 9, 40, 130 and 300 elements exercise each
branch of NumPy's pairwise sum (sequential below 8, eight accumulators up to 128, recursive
halves above). The tables are drawn from a seeded generator: inputs, not expected values."""

import math

import numpy as np

_rng = np.random.default_rng(20261203)


def _coefficients(size: int) -> np.ndarray:
    return _rng.standard_normal(size) * 10.0 ** _rng.integers(-6, 7, size)


def _exponents(size: int, low: int, high: int) -> np.ndarray:
    return _rng.integers(low, high, size).astype(np.int64)


N3, I3, J3 = _coefficients(3), _exponents(3, 0, 8), _exponents(3, 0, 12)
N8, I8, J8 = _coefficients(8), _exponents(8, 0, 8), _exponents(8, 0, 12)
N9, I9, J9 = _coefficients(9), _exponents(9, 0, 8), _exponents(9, 0, 12)
N40, I40, J40 = _coefficients(40), _exponents(40, 0, 8), _exponents(40, 0, 12)
N130, I130, J130 = _coefficients(130), _exponents(130, 0, 8), _exponents(130, 0, 12)
N300, I300 = _coefficients(300), _exponents(300, -3, 9)
NO, JO = _coefficients(9), np.array([0, 1, -5, -4, -3, -2, -1, 2, 3])
K9 = _exponents(9, -50, 50)
FLAGS = np.array([True, False, True])
SINGLE = np.array([1.0, 2.0, 3.0], dtype=np.float32)
MATRIX = np.ones((2, 3))
HUGE = np.zeros(100_001)
ONE = np.array([2.0])


def h3(s):
    if s < -1.545495919e-4 or s > 3.77828134:
        raise NotImplementedError("Incoming out of bound")
    n = N3
    Li = I3
    Lj = J3
    sigma = s / 3.8
    suma = np.sum(n * (sigma - 1.09) ** Li * (sigma + 0.366e-4) ** Lj)
    return 1700 * suma


def h8(s):
    n = N8
    sigma = s / 3.8
    return 1700 * np.sum(n * (sigma - 1.09) ** I8 * (sigma + 0.366e-4) ** J8)


def h9(s):
    sigma = s / 5.9
    suma = np.sum(N9 * (sigma - 1.02) ** I9 * (sigma - 0.726) ** J9)
    return 2800 * suma ** 4


def h40(P, h):
    Pr = P / 1
    nu = h / 2500
    return np.sum(N40 * Pr ** I40 * (nu + 1) ** J40)


def h130(s):
    sigma1 = s / 5.21
    sigma2 = s / 9.2
    suma = np.sum(N130 * (1 / sigma1 - 0.513) ** I130 * (sigma2 - 0.524) ** J130)
    return 2800 * math.exp(suma)


def h300(x):
    return np.sum(N300 * x ** I300)


def cp0(Tr, Pr):
    go = math.log(Pr) + np.sum(NO * Tr ** JO)
    got = np.sum(NO * JO * Tr ** (JO - 1))
    gott = np.sum(NO * JO * (JO - 1) * Tr ** (JO - 2))
    return go, got, gott


def backward(P, h):
    if P <= 4:
        T = h40(P, h)
    else:
        T = h8(h)
    return max(T, 273.15)


def quotient(x):
    return np.sum(N40 / (x - N40)) - np.sum(-N9 + x * 2)


def product(x):
    return np.prod(1.0 + N9 * x)


def int_sum(k):
    return np.sum(K9 * k + 3)


def int_product(k):
    return np.prod(K9 - k)


def float_int(k):
    return np.sum(N9 * k)


def power_of_table(s):
    return np.sum(N3 ** s)


def array_local(s):
    t = N3 * s
    return np.sum(t)


def maximum(s):
    return np.max(N9 * s)


def dot(s):
    return np.dot(N9, N9 * s)


def bools(s):
    return np.sum(FLAGS * s)


def single(s):
    return np.sum(SINGLE * s)


def matrix(s):
    return np.sum(MATRIX * s)


def huge(s):
    return np.sum(HUGE * s)


def broadcast_one(s):
    return np.sum(N9 * s ** ONE + ONE)
