"""Lane versions of runtime/intmath.py's helpers, as text a Numba module carries where its lane
code calls them (Numba has no math.remainder, modf, factorial, comb, perm, isqrt or lcm).

Each computes what its NumPy twin computes on one lane, with the same sentinels: -1 for a
`comb`/`perm`/`lcm` result that may leave int64, a harmless value where Python raises (the
rules' checks flag those lanes and the scalar function re-runs them). Float results are CPython's
bits: the same operations in the same order (fmod and copysign are exact; Numba has np.fmod, not math.fmod).
"""

from __future__ import annotations

from collections.abc import Collection

_HEAD = '@numba.njit(cache=NUMBA_CACHE, error_model="numpy")\n'

SOURCES: dict[str, str] = {
    "_vz_remainder": '''
def _vz_remainder(x, y):
    """math.remainder(x, y): CPython's m_remainder; NaN where Python raises."""
    if math.isfinite(x) and math.isfinite(y) and y != 0.0:
        absx = abs(x)
        absy = abs(y)
        m = np.fmod(absx, absy)
        c = absy - m
        if m < c:
            r = m
        elif m > c:
            r = -c
        else:
            r = m - 2.0 * np.fmod(0.5 * (absx - m), absy)
        return math.copysign(1.0, x) * r
    if math.isnan(x):
        return x
    if math.isnan(y):
        return y
    if math.isinf(y) and math.isfinite(x):
        return x
    return math.nan
''',
    "_vz_modf": '''
def _vz_modf(x):
    """math.modf(x): (fraction, integral part), each with the sign of x."""
    if math.isinf(x):
        return math.copysign(0.0, x), x
    whole = np.trunc(x)
    return math.copysign(x - whole, x), whole
''',
    "_vz_frexp": '''
def _vz_frexp(x):
    m, e = math.frexp(x)
    return m, np.int64(e)
''',
    "_vz_factorial": '''
def _vz_factorial(n):
    """math.factorial(n) for 0 <= n <= 20; 0 elsewhere (flagged)."""
    if n < 0 or n > 20:
        return np.int64(0)
    r = np.int64(1)
    for i in range(2, n + 1):
        r *= i
    return r
''',
    "_vz_comb": '''
def _vz_comb(n, k):
    """math.comb(n, k); -1 where the result may leave int64."""
    if n < 0 or k < 0 or k > n:
        return np.int64(0)
    j = min(k, n - k)
    if j >= 34:
        return np.int64(-1)
    r = np.int64(1)
    for i in range(1, j + 1):
        num = n - j + i
        if abs(float(r) * float(num)) >= 9.2e18:
            return np.int64(-1)
        r = (r * num) // i
    return r
''',
    "_vz_perm": '''
def _vz_perm(n, k):
    """math.perm(n, k); -1 where the result may leave int64."""
    if n < 0 or k < 0 or k > n:
        return np.int64(0)
    if k >= 21:
        return np.int64(-1)
    r = np.int64(1)
    for i in range(k):
        num = n - i
        if abs(float(r) * float(num)) >= 9.2e18:
            return np.int64(-1)
        r = r * num
    return r
''',
    "_vz_isqrt": '''
def _vz_isqrt(n):
    """math.isqrt(n), corrected with exact int64 squares; 0 for n < 0 (flagged)."""
    if n <= 0:
        return np.int64(0)
    r = np.int64(min(math.floor(math.sqrt(float(n))), 3037000499.0))
    while r * r > n:
        r -= 1
    while r < 3037000499 and (r + 1) * (r + 1) <= n:
        r += 1
    return r
''',
    "_vz_lcm": '''
def _vz_lcm(a, b):
    """math.lcm(a, b); -1 where the result may leave int64."""
    g = np.gcd(a, b)
    if g < 0:
        return np.int64(-1)
    if g == 0:
        return np.int64(0)
    q = a // g
    if abs(float(q) * float(b)) >= 9.2e18:
        return np.int64(-1)
    return abs(q * b)
''',
    "_vz_powmod": '''
def _vz_powmod(a, b, m):
    """pow(a, b, m) for 0 < |m| <= 3037000499 (a negative b: the inverse of a modulo |m| first,
    by extended Euclid); m where it does not compute (flagged): m == 0, a base not invertible,
    |m| too big, b == -2**63."""
    if m == 0 or m > 3037000499 or m < -3037000499 or b == -9223372036854775807 - 1:
        return m
    mod = abs(m)
    base = a % mod
    if b < 0 and mod > 1:
        r0 = mod
        r1 = base
        t0 = np.int64(0)
        t1 = np.int64(1)
        while r1 != 0:
            q = r0 // r1
            r0, r1 = r1, r0 - q * r1
            t0, t1 = t1, t0 - q * t1
        if r0 != 1:
            return m
        base = t0 % mod
    r = np.int64(1) % mod
    e = abs(b)
    while e:
        if e & 1:
            r = (r * base) % mod
        base = (base * base) % mod
        e >>= 1
    if m < 0 and r != 0:
        r -= mod
    return r
''',
    "_vz_around": '''
def _vz_around(x, d):
    """np.around(x, d) of a float, as NumPy computes it: rint of x scaled by NumPy's power_of_ten
    (rules/array_number_calls.py), for a d known only when called."""
    if d == 0:
        return np.rint(x)
    n = d if d > 0 else -d
    scale = 1.0
    if n < 9:
        for _ in range(n):
            scale *= 10.0
    else:
        scale = 1e9
        for _ in range(min(n, 400) - 9):
            scale *= 10.0
    if d > 0:
        return np.rint(x * scale) / scale
    return np.rint(x / scale) * scale
''',
    "_vz_bit_length": '''
def _vz_bit_length(n):
    """int.bit_length(): the bits of |n| (64 for -2**63)."""
    mag = np.uint64(~n) + np.uint64(1) if n < 0 else np.uint64(n)
    bits = np.int64(0)
    while mag:
        mag >>= np.uint64(1)
        bits += 1
    return bits
''',
}


def intmath_source(called: Collection[str]) -> str:
    """The helpers of this module the lane functions call (`called`: the names they call), as module text."""
    return "\n\n\n".join(_HEAD + src.strip("\n") for name, src in SOURCES.items() if name in called)
