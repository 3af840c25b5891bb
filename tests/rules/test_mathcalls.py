"""math.remainder, modf, frexp, ldexp, gcd, lcm, factorial, comb, perm, isqrt and pow(a, b, m)
(rules/mathcalls.py) against the scalar function lane by lane, on both backends: values (floats
bit for bit, ints exactly), the first failing lane's exception, and the int64 overflow refusal
where Python's int is too big. Random and hostile inputs (NaN, +-inf, -0.0, subnormals, huge
floats, ints near +-2**63, 0, negatives), then hypothesis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS, arrays, floats, ints

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(30)
N = 4000


def remainder(x, y):
    return math.remainder(x, y)


def remainder_or_nan(x, y):  # geographiclib's Math.remainder
    return math.remainder(x, y) if math.isfinite(x) else math.nan


def modf_both(x):
    frac, whole = math.modf(x)
    return frac - whole


def modf_whole(x):  # jdcal.ipart
    return math.modf(x)[1]


def modf_fraction(x):
    return math.modf(x)[-2]


def frexp_exponent(x):
    return math.frexp(x)[1] - 1


def divmod_remainder(a, b):
    return divmod(a, b)[1]


def modf_out_of_range(x):
    return math.modf(x)[2]


def frexp_parts(x):
    m, e = math.frexp(x)
    return m * 0.5 + e


def ldexp(x, n):
    return math.ldexp(x, n)


def gcd(a, b):
    return math.gcd(a, b)


def gcd3(a, b, c):
    return math.gcd(a, b, c)


def gcd_float(x, b):
    return math.gcd(x, b)


def lcm(a, b):
    return math.lcm(a, b)


def factorial(n):
    return math.factorial(n)


def factorial_float(x):
    return math.factorial(x)


def comb(n, k):
    return math.comb(n, k)


def perm(n, k):
    return math.perm(n, k)


def isqrt(n):
    return math.isqrt(n)


def powmod(a, b, m):
    return pow(a, b, m)


def bit_length(n):
    return n.bit_length()


def bit_length_of_expression(a, b):
    k = 0
    if (a // 3 + b // 3).bit_length() > 40:
        k = a.bit_length() - b.bit_length()
    return k


def bit_length_of_float(x):
    return x.bit_length()


def one_argument_forms(n):
    return math.gcd(n) - math.lcm(n) + math.perm(n % 21) + math.gcd() + math.lcm()


def guarded_factorial(n):  # a branch keeps the failing lanes out: nothing may leak from them
    if n < 0 or n > 25:
        return -1
    return math.factorial(n) % 1000003


def _floats(n: int = N) -> np.ndarray:
    x = np.concatenate([RNG.normal(0, 500, n // 2), RNG.choice([-1, 1], n // 2) * np.exp(RNG.uniform(-740, 709, n // 2)),
                        np.array(SPECIAL_FLOATS * 3)])
    RNG.shuffle(x)
    return x


def _ints(lo: int = -(2**63), hi: int = 2**63 - 1, n: int = N) -> np.ndarray:
    special = [v for v in SPECIAL_INTS if lo <= v <= hi] or [lo]
    x = np.concatenate([RNG.integers(max(lo, -60), min(hi, 60) + 1, n // 2),
                        RNG.integers(lo, hi, n // 2, dtype=np.int64, endpoint=True), np.resize(np.array(special, dtype=np.int64), 42)])
    RNG.shuffle(x)
    return x


def _run(f, backend, *args):
    vf = vectorize(f, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        check(vf, f, *args)
    if vf.backend is not None:  # None: the call raised before a backend ran
        assert vf.backend == backend
    return vf


def _without(x: np.ndarray, bad) -> np.ndarray:
    return np.where(bad(x), 0, x)


def _valid(f, *args: np.ndarray, safe: tuple = (5, 2, 7)) -> list[np.ndarray]:
    """`args` with the lanes where f raises or gives an int beyond int64 replaced by `safe`: a
    call that raises compares only the exception, so the value tests keep every lane valid."""
    def ok(*lane) -> bool:
        try:
            v = f(*lane)
        except (ValueError, OverflowError, TypeError):
            return False
        return not isinstance(v, int) or -(2**63) <= v < 2**63

    good = np.array([ok(*lane) for lane in zip(*(a.tolist() for a in args))], dtype=bool)
    return [np.where(good, a, np.array(v, dtype=a.dtype)) for a, v in zip(args, safe)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_functions_are_bit_exact(backend):
    x, y = _floats(), _floats()
    # Lanes that raise are dropped so that the values of all the others are compared.
    ok = ~((np.isinf(x) & ~np.isnan(y)) | ((y == 0) & ~np.isnan(x)))
    _run(remainder, backend, x[ok], y[ok])
    _run(remainder_or_nan, backend, x, np.where(y == 0, 1.0, y))
    # ties to even: x an odd multiple of y / 2
    halves = np.array([0.5, 1.5, 2.5, -2.5, 3.5, 180.0, -540.0, 900.0, 1e16 + 2, 5e-324, -5e-324])
    _run(remainder, backend, halves, np.array([1.0, 1.0, 1.0, 1.0, 1.0, 360.0, 360.0, 360.0, 4.0, 1e-323, 1e-323]))
    _run(modf_both, backend, x)
    _run(frexp_parts, backend, x)
    _run(modf_whole, backend, x)
    _run(modf_fraction, backend, x)
    _run(frexp_exponent, backend, x)
    n = np.resize(_ints(-3000, 3000), x.size)
    _run(ldexp, backend, *_valid(math.ldexp, x, n))


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_functions_raise_as_python(backend):
    x = np.array([1.0, 2.0, math.inf, 3.0])
    _run(remainder, backend, x, np.array([1.0, 0.0, 1.0, 2.0]))  # ValueError on lane 1
    _run(remainder, backend, x, np.array([1.0, 3.0, 1.0, 0.0]))  # inf: lane 2
    _run(remainder, backend, np.array([math.nan, -math.inf, 5.0]), np.array([0.0, math.nan, math.inf]))  # no error
    _run(ldexp, backend, np.array([1.0, 1e300, 0.0]), np.array([2, 2**62, 2**62]))  # OverflowError, lane 1
    _run(ldexp, backend, np.array([1.0, math.inf, -0.0, 5e-324]), np.array([-(2**63), 2**63 - 1, 5, -1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_functions_are_exact(backend):
    a, b = _ints(), _ints()
    _run(gcd, backend, _without(a, lambda v: v == -(2**63)), _without(b, lambda v: v == -(2**63)))
    _run(gcd3, backend, a, b, _ints(-100, 100))
    _run(isqrt, backend, np.abs(_without(a, lambda v: v == -(2**63))))
    _run(bit_length, backend, a)
    _run(bit_length, backend, np.concatenate([2 ** np.arange(63), 2 ** np.arange(63) - 1, -(2 ** np.arange(63)) - 1]))
    _run(bit_length_of_expression, backend, a, b)
    _run(factorial, backend, _ints(0, 20))
    n = _ints(0, 70)
    _run(comb, backend, *_valid(math.comb, n, _ints(0, 70)))
    _run(perm, backend, *_valid(math.perm, n, _ints(0, 22)))
    big = np.array([2**63 - 1, 2**62, 4294967296, 3037000499, 66, 67, 68, 100])
    _run(comb, backend, big, np.array([1, 0, 2, 2, 33, 33, 1, 99]))
    _run(comb, backend, big, big)
    _run(lcm, backend, *_valid(math.lcm, _ints(-(2**31), 2**31), _ints(-(2**31), 2**31)))
    _run(lcm, backend, *_valid(math.lcm, a, b))
    m = _ints(-3037000499, 3037000499)
    _run(powmod, backend, a, np.abs(_without(b, lambda v: v == -(2**63))), np.where(m == 0, 7, m))
    # A negative exponent: a modular inverse first (extended Euclid), every modulus size and sign
    for mods in (_ints(-60, 60), m, _ints()):
        _run(powmod, backend, *_valid(pow, a, _ints(-5, 3), mods))
        _run(powmod, backend, *_valid(pow, a, b, mods))
    _run(powmod, backend, np.array([7, 2**63 - 1, -(2**63), 0, 5, 3037000498, 12, 3]),
         np.array([-1, -1, -3, -5, -(2**63) + 1, -2, -(2**63) + 1, -(2**62)]),
         np.array([1, 3037000499, -3037000499, -1, 3037000499, -3037000499, 2**63 - 1, 3037000498]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_functions_raise_or_refuse_as_python(backend):
    # ValueError on the first negative lane; an earlier lane's int beyond int64 is refused first
    _run(factorial, backend, np.array([3, 20, 21, -1, 5]))
    _run(factorial, backend, np.array([3, -1, 21]))
    _run(factorial_float, backend, np.array([3.0, 4.0]))  # TypeError
    _run(bit_length_of_float, backend, np.array([3.0, 4.0]))  # AttributeError
    _run(gcd_float, backend, np.array([3.0, math.nan]), np.array([1, 2]))
    _run(gcd, backend, np.array([6, -(2**63), 4]), np.array([4, 0, 2]))  # 2**63: refused
    _run(gcd, backend, np.array([-(2**63), -(2**63)]), np.array([6, 2**62]))  # 2, 2**62: fit
    _run(comb, backend, np.array([5, 5, 70, 2**40]), np.array([2, -1, 35, 2]))
    _run(comb, backend, np.array([5, 70, 2**40]), np.array([7, 35, 2]))  # comb(70, 35) beyond int64
    _run(perm, backend, np.array([5, 21, -3]), np.array([7, 21, 1]))
    _run(isqrt, backend, np.array([0, 2**63 - 1, -1]))
    _run(lcm, backend, np.array([0, 2**40, 3]), np.array([5, 2**40 - 1, 0]))
    _run(powmod, backend, np.array([2, 3, 4, 5]), np.array([10, -1, 2, 2]), np.array([1000, 7, 0, 3]))  # 3 ** -1 mod 7 = 5
    _run(powmod, backend, np.array([2, 6]), np.array([-1, 5]), np.array([4, 9]))  # not invertible: ValueError
    _run(powmod, backend, np.array([3, 0, 5]), np.array([-1, -1, -1]), np.array([7, -1, 10]))  # lane 2 (0 mod -1 is 0)
    _run(powmod, backend, np.array([3, 4]), np.array([-(2**63), 1]), np.array([7, 0]))  # b == -2**63 re-run (4), then m == 0 raises
    _run(powmod, backend, np.array([3, 4, 2**62]), np.array([-2, -1, -1]), np.array([7, -1, 2**63 - 1]))  # |m| too big: re-run
    _run(powmod, backend, np.array([2, -7, 5, 2**62]), np.array([100, 3, 0, 2]), np.array([-7, 5, -1, 2**63 - 1]))
    _run(one_argument_forms, backend, np.array([5, -7, 0, 20]))
    _run(one_argument_forms, backend, np.array([5, -(2**63), 3]))  # gcd(-2**63) is 2**63: refused
    _run(guarded_factorial, backend, np.array([-(2**63), 30, 5, 25, 2**63 - 1]))


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hypothesis(backend, data):
    x = data.draw(arrays(floats(), min_size=1))
    y = data.draw(arrays(floats(), min_size=x.size, max_size=x.size))
    _run(remainder, backend, x, y)
    _run(remainder, backend, *_valid(math.remainder, x, y, safe=(1.0, 3.0)))
    _run(modf_both, backend, x)
    a = data.draw(arrays(ints(), dtype=np.int64, min_size=1))
    b = data.draw(arrays(ints(), dtype=np.int64, min_size=a.size, max_size=a.size))
    _run(gcd, backend, a, b)
    _run(lcm, backend, a, b)
    _run(lcm, backend, *_valid(math.lcm, a, b))
    _run(isqrt, backend, a)
    _run(isqrt, backend, *_valid(math.isqrt, a))
    _run(comb, backend, np.abs(a) % 80, b % 80)
    _run(comb, backend, *_valid(math.comb, np.abs(a) % 80, b % 80))
    m = data.draw(arrays(ints(-(2**62), 2**62), dtype=np.int64, min_size=a.size, max_size=a.size))
    _run(powmod, backend, a, b % 200, m)
    _run(powmod, backend, *_valid(pow, a, b % 200, m))
    _run(powmod, backend, a, b % 9 - 6, m)
    _run(powmod, backend, *_valid(pow, a, b % 9 - 6, m))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_item_of_a_tuple_valued_call(backend):
    _run(divmod_remainder, backend, _ints(), np.resize(np.array([3, -7, 0, 2**62, -1]), _ints().size))
    with pytest.raises(VectorizeError, match="tuple index out of range"):
        vectorize(modf_out_of_range, backend=backend, fallback="error")(np.array([1.5]))
