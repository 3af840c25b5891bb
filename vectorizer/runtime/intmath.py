"""NumPy forms of the `math` functions NumPy has no exact ufunc for: `remainder`, `comb`, `perm`,
`factorial`, `isqrt`, `lcm`, `powmod` (three-argument `pow`, a modular inverse for a negative exponent), `frexp`, `bit_length`.

Each is exact on the lanes it computes: float results bit for bit what CPython's C code gives
(the same operations in the same order), int results the exact int. A lane it cannot compute in
int64 gets -1 where the true result is never negative (`comb`, `perm`, `lcm`): the rule
(rules/mathcalls.py) flags it, and the runtime re-runs the scalar function there, which returns
the exact int (stored if it fits, else the integer-overflow refusal) or raises Python's error.
Lanes where Python raises get a harmless value; the rules' checks flag them. Self-contained
(NumPy only): generated modules carry copies (codegen/carry.py).
"""

from __future__ import annotations

import numpy as np

_VZ_FACTORIALS = (1, 1, 2, 6, 24, 120, 720, 5040, 40320, 362880, 3628800, 39916800, 479001600, 6227020800,
                  87178291200, 1307674368000, 20922789888000, 355687428096000, 6402373705728000,
                  121645100408832000, 2432902008176640000)  # 0! .. 20!; 21! is beyond int64
_VZ_I64_BIG = 9.2e18  # a float estimate of a product at or above this may not fit int64: flag
_VZ_ISQRT_MAX = 3037000499  # isqrt(2**63 - 1): its square is the largest square in int64


def _vz_scalar(value):
    """A 0-d result as a NumPy scalar, as NumPy's own ufuncs give for scalar operands."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def remainder(x, y):
    """math.remainder(x, y): CPython's m_remainder, step for step (fmod is exact). Lanes where
    Python raises (x infinite, y zero; neither NaN) give NaN; the rule flags them. The half-way
    case (a second fmod) and the special values are computed only where some lane needs them."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    finite = np.isfinite(x) & np.isfinite(y) & (y != 0)
    every = bool(np.all(finite))
    absx = np.abs(x) if every else np.where(finite, np.abs(x), 1.0)
    absy = np.abs(y) if every else np.where(finite, np.abs(y), 1.0)
    m = np.fmod(absx, absy)
    c = absy - m
    r = np.copysign(np.minimum(m, c), c - m)  # m if m < c else -c, without a branch a lane
    tie = m == c
    if np.any(tie):
        r = np.where(tie, m - 2.0 * np.fmod(0.5 * (absx - m), absy), r)
    r = np.copysign(1.0, x) * r  # not copysign(r, x): CPython multiplies (-0.0 for r = 0.0, x < 0)
    if every:
        return _vz_scalar(r)
    # NaN x gives x, NaN y gives y, an infinite y (x finite) gives x; the rest raise in Python.
    special = np.where(np.isnan(x), x, np.where(np.isnan(y), y, np.where(np.isinf(y) & np.isfinite(x), x, np.nan)))
    return _vz_scalar(np.where(finite, r, special))


def modf(x):
    """math.modf(x): C's modf through np.modf, (fraction, integral part)."""
    frac, whole = np.modf(np.asarray(x, dtype=np.float64))
    return _vz_scalar(frac), _vz_scalar(whole)


def frexp(x):
    """math.frexp(x) with an int64 exponent (NumPy's is int32; the values are C's frexp)."""
    m, e = np.frexp(np.asarray(x, dtype=np.float64))
    return _vz_scalar(m), _vz_scalar(e.astype(np.int64))


def factorial(n):
    """math.factorial(n) for 0 <= n <= 20 (a table); other lanes give 0 (the rule flags them)."""
    n = np.asarray(n, dtype=np.int64)
    table = np.array(_VZ_FACTORIALS, dtype=np.int64)
    ok = (n >= 0) & (n <= 20)
    return _vz_scalar(np.where(ok, table[np.where(ok, n, 0)], 0))


def comb(n, k):
    """math.comb(n, k) on int64 lanes; -1 where the product may leave int64 (re-run per lane).
    With j = min(k, n - k), j >= 34 means n >= 68 and comb >= comb(68, 34) > 2**63: no loop for
    those; otherwise r * (n - j + i) // i, i = 1..j, is exact (r is comb(n - j + i - 1, i - 1))."""
    n, k = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(k, dtype=np.int64))
    valid = (n >= 0) & (k >= 0) & (k <= n)
    j = np.where(valid, np.minimum(k, np.where(valid, n - k, 0)), 0)
    over = valid & (j >= 34)
    r = np.where(valid, 1, 0).astype(np.int64)
    steps = int(np.max(np.where(over, 0, j), initial=0))
    for i in range(1, steps + 1):
        active = (i <= j) & ~over
        num = np.where(active, n - j + i, 1)
        big = active & (np.abs(r.astype(np.float64) * num.astype(np.float64)) >= _VZ_I64_BIG)
        over |= big
        r = np.where(active & ~big, (r * np.where(big, 1, num)) // i, r)
    return _vz_scalar(np.where(over, -1, r))


def perm(n, k):
    """math.perm(n, k) on int64 lanes; -1 where the product may leave int64 (k >= 21 means
    n >= 21 and perm >= 21! > 2**63)."""
    n, k = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(k, dtype=np.int64))
    valid = (n >= 0) & (k >= 0) & (k <= n)
    over = valid & (k >= 21)
    r = np.where(valid, 1, 0).astype(np.int64)
    steps = int(np.max(np.where(valid & ~over, k, 0), initial=0))
    for i in range(steps):
        active = valid & (i < k) & ~over
        num = np.where(active, n - i, 1)
        big = active & (np.abs(r.astype(np.float64) * num.astype(np.float64)) >= _VZ_I64_BIG)
        over |= big
        r = np.where(active & ~big, r * np.where(big, 1, num), r)
    return _vz_scalar(np.where(over, -1, r))


def isqrt(n):
    """math.isqrt(n): the float square root (within 1 of the answer: n rounds to a double
    first), then corrected with exact int64 squares. Negative lanes give 0 (flagged)."""
    n = np.maximum(np.asarray(n, dtype=np.int64), 0)
    r = np.minimum(np.floor(np.sqrt(n.astype(np.float64))), float(_VZ_ISQRT_MAX)).astype(np.int64)
    for _ in range(2):
        r = np.where(r * r > n, r - 1, r)
    for _ in range(2):
        up = np.minimum(r + 1, _VZ_ISQRT_MAX)
        r = np.where((r < _VZ_ISQRT_MAX) & (up * up <= n), up, r)
    return _vz_scalar(r)


def lcm(a, b):
    """math.lcm(a, b): |a // gcd(a, b) * b|, 0 if either is 0; -1 where it may leave int64."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    g = np.gcd(a, b)
    over = (g < 0) | (np.abs(np.where(g > 0, a // np.where(g > 0, g, 1), 0).astype(np.float64) * b.astype(np.float64)) >= _VZ_I64_BIG)
    q = np.where((g > 0) & ~over, a // np.where(g > 0, g, 1), 0)
    return _vz_scalar(np.where(over, -1, np.abs(q * np.where(over, 0, b))))


def powmod(a, b, m):
    """pow(a, b, m) for 0 < |m| <= isqrt(2**63 - 1), where every product of two residues fits
    int64 (square and multiply); the result has the sign of m, as Python's. A negative b first
    replaces a by its inverse modulo |m| (extended Euclid; |m| == 1 gives 0, as in CPython, before
    any inverse). Lanes it does not compute give m, never a result (|result| < |m|): m == 0 (it
    raises), |m| too big, a base not invertible (ValueError) or b == -2**63; the rule flags them."""
    a, b, m = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in (a, b, m)))
    ok = (m != 0) & (m <= _VZ_ISQRT_MAX) & (m >= -_VZ_ISQRT_MAX) & (b != -9223372036854775807 - 1)
    mod = np.where(ok, np.abs(np.where(ok, m, 1)), 1)
    base = np.remainder(a, mod)
    neg = ok & (b < 0) & (mod > 1)
    if np.any(neg):  # the inverse of base modulo mod: t with t * base = gcd = 1 (mod mod)
        r0, r1 = np.where(neg, mod, 1), np.where(neg, base, 0)
        t0, t1 = np.zeros_like(r0), np.ones_like(r0)
        while np.any(r1):
            going = r1 != 0
            q = np.where(going, r0 // np.where(going, r1, 1), 0)
            r0, r1 = np.where(going, r1, r0), np.where(going, r0 - q * r1, r1)
            t0, t1 = np.where(going, t1, t0), np.where(going, t0 - q * t1, t1)
        ok &= ~neg | (r0 == 1)
        base = np.where(neg, np.remainder(t0, mod), base)
    e = np.where(ok, np.abs(b), 0)
    r = np.remainder(np.ones_like(mod), mod)
    while np.any(e):
        r = np.where(e & 1, (r * base) % mod, r)
        base = (base * base) % mod
        e = e >> 1
    r = np.where((m < 0) & (r != 0), r - mod, r)
    return _vz_scalar(np.where(ok, r, m))


def bit_length(n):
    """int.bit_length(): the bits of |n| (64 for -2**63), exact: frexp of a double is not
    (2**53 + 1 rounds up), so the count comes from comparisons with powers of two."""
    n = np.asarray(n, dtype=np.int64)
    # |n| as uint64 is exact for every int64 (-2**63 -> 2**63).
    mag = np.where(n < 0, (~n).astype(np.uint64) + np.uint64(1), n.astype(np.uint64))
    bits = np.zeros(n.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        high = mag >= (np.uint64(1) << np.uint64(shift))
        mag = np.where(high, mag >> np.uint64(shift), mag)
        bits += np.where(high, shift, 0)
    return _vz_scalar(bits + (mag > 0))
