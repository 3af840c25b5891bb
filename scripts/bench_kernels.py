"""The benchmark suite's scalar kernels and, for each, its hand-written baselines.

Every kernel is plain scalar Python with `math`, written as a scientist would, inside the subset
vectorizer supports. For each kernel this module also gives:

* `inputs(n, seed)`: deterministic inputs (NumPy `default_rng`), one 1-D array per parameter;
* a hand-written NumPy version, written the way a competent user would (`np.where` / `np.select`
  for branches, loops over the still-active lanes for while loops);
* a JAX version for `jax.jit(jax.vmap(...))` with `jax.lax` control flow (`while_loop`, `cond`,
  `fori_loop`); the benchmark turns on `jax_enable_x64` before using it;
* the Numba versions are built by `numba_prange` and `numba_ufunc`: the kernel's own scalar source
  under `@njit` (its same-module callees `@njit` too, as a Numba user decorates each function),
  driven by a hand-written `prange` loop, and the same source under `numba.vectorize`. Numba
  compiles Python semantics for this subset (floor `//` and `%` on ints, libm math, no
  fastmath), so the per-lane code is Python-faithful on the generated inputs (no int64 overflow,
  no division by zero).

Transcendental results may differ by a few ulp between implementations (NumPy's SIMD math, XLA,
which also contracts `a*b + c` into FMAs); the benchmark checks floats to a relative tolerance
and ints and bools exactly.

Only NumPy is imported at module level: Numba and JAX are imported when their versions are used.
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
import textwrap
import types
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------------
# Module-level constants the kernels use (vectorizer reads them as uniform values).

EARTH_RADIUS_KM = 6371.0088
SQRT_2 = 1.4142135623730951
DRAG_REGIMES = (1.0, 1000.0, 2.0e5)  # Stokes | Schiller-Naumann | Newton | drag crisis
MAX_ITER = 128  # escape-time iterations
KEPLER_TOL = 1e-12
KEPLER_MAX_ITER = 50
BISECT_RTOL = 1e-12
ZETA_TERMS = 64
SIMPSON_STEPS = 32  # even
BARRIER = 1.0
MAX_STEPS = 400


# --------------------------------------------------------------------------------------------
# Pure arithmetic


def poly_horner(x: float) -> float:
    """A degree-8 polynomial in Horner form."""
    return ((((((((2.4e-5 * x - 1.98e-4) * x + 1.39e-3) * x - 8.33e-3) * x + 4.17e-2) * x
              - 0.1667) * x + 0.5) * x - 1.0) * x + 1.0)


def poly_horner_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(-3.0, 3.0, n),)


def poly_horner_numpy(x: np.ndarray) -> np.ndarray:
    return ((((((((2.4e-5 * x - 1.98e-4) * x + 1.39e-3) * x - 8.33e-3) * x + 4.17e-2) * x
              - 0.1667) * x + 0.5) * x - 1.0) * x + 1.0)


def poly_horner_jax(x):
    return ((((((((2.4e-5 * x - 1.98e-4) * x + 1.39e-3) * x - 8.33e-3) * x + 4.17e-2) * x
              - 0.1667) * x + 0.5) * x - 1.0) * x + 1.0)


# --------------------------------------------------------------------------------------------
# Math-heavy formulas (and a call between user functions)


def norm_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / SQRT_2)


def black_scholes_call(spot: float, strike: float, vol: float, t: float, rate: float) -> float:
    """European call price; at or after expiry the option is worth its intrinsic value."""
    if t <= 0.0:
        return max(spot - strike, 0.0)
    sqrt_t = math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    return spot * norm_cdf(d1) - strike * math.exp(-rate * t) * norm_cdf(d2)


def black_scholes_call_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    spot = rng.uniform(50.0, 150.0, n)
    strike = rng.uniform(50.0, 150.0, n)
    vol = rng.uniform(0.05, 0.6, n)
    t = np.maximum(rng.uniform(-0.25, 2.0, n), 0.0)  # about 11% of the options have expired
    rate = rng.uniform(0.0, 0.08, n)
    return spot, strike, vol, t, rate


try:  # what a competent NumPy user reaches for; NumPy itself has no erfc
    from scipy.special import erfc as _np_erfc

    NUMPY_ERFC = "scipy.special.erfc"
except ImportError:  # pragma: no cover - depends on the environment
    _np_erfc = np.vectorize(math.erfc, otypes=[np.float64])
    NUMPY_ERFC = "math.erfc per element via np.vectorize (scipy is not installed)"


def _norm_cdf_numpy(x: np.ndarray) -> np.ndarray:
    return 0.5 * _np_erfc(-x / SQRT_2)


def black_scholes_call_numpy(spot, strike, vol, t, rate):
    live = t > 0.0
    tt = np.where(live, t, 1.0)  # keep expired lanes away from 0/0 in the unused formula
    sqrt_t = np.sqrt(tt)
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol * vol) * tt) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    price = spot * _norm_cdf_numpy(d1) - strike * np.exp(-rate * tt) * _norm_cdf_numpy(d2)
    return np.where(live, price, np.maximum(spot - strike, 0.0))


def _norm_cdf_jax(x):
    from jax import lax

    return 0.5 * lax.erfc(-x / SQRT_2)


def black_scholes_call_jax(spot, strike, vol, t, rate):
    import jax.numpy as jnp
    from jax import lax

    def priced(args):
        spot, strike, vol, t, rate = args
        sqrt_t = jnp.sqrt(t)
        d1 = (jnp.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
        d2 = d1 - vol * sqrt_t
        return spot * _norm_cdf_jax(d1) - strike * jnp.exp(-rate * t) * _norm_cdf_jax(d2)

    def expired(args):
        spot, strike = args[0], args[1]
        return jnp.maximum(spot - strike, 0.0)

    return lax.cond(t <= 0.0, expired, priced, (spot, strike, vol, t, rate))


def haversine_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance between two points given in degrees."""
    phi1 = math.radians(lat1)
    phi2 = math.radians(lat2)
    dphi = phi2 - phi1
    dlam = math.radians(lon2 - lon1)
    h = math.sin(dphi / 2.0) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlam / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * math.asin(math.sqrt(min(h, 1.0)))


def haversine_km_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(-90.0, 90.0, n), rng.uniform(-180.0, 180.0, n),
            rng.uniform(-90.0, 90.0, n), rng.uniform(-180.0, 180.0, n))


def haversine_km_numpy(lat1, lon1, lat2, lon2):
    phi1 = np.radians(lat1)
    phi2 = np.radians(lat2)
    dphi = phi2 - phi1
    dlam = np.radians(lon2 - lon1)
    h = np.sin(dphi / 2.0) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlam / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.minimum(h, 1.0)))


def haversine_km_jax(lat1, lon1, lat2, lon2):
    import jax.numpy as jnp

    phi1 = jnp.radians(lat1)
    phi2 = jnp.radians(lat2)
    dphi = phi2 - phi1
    dlam = jnp.radians(lon2 - lon1)
    h = jnp.sin(dphi / 2.0) ** 2 + jnp.cos(phi1) * jnp.cos(phi2) * jnp.sin(dlam / 2.0) ** 2
    return 2.0 * EARTH_RADIUS_KM * jnp.arcsin(jnp.sqrt(jnp.minimum(h, 1.0)))


# --------------------------------------------------------------------------------------------
# Branches


def drag_coefficient(reynolds: float) -> float:
    """Drag coefficient of a sphere: a piecewise model over the Reynolds number."""
    if reynolds < DRAG_REGIMES[0]:
        return 24.0 / reynolds
    elif reynolds < DRAG_REGIMES[1]:
        return 24.0 / reynolds * (1.0 + 0.15 * reynolds ** 0.687)
    elif reynolds < DRAG_REGIMES[2]:
        return 0.44
    else:
        return 0.1


def drag_coefficient_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (10.0 ** rng.uniform(-3.0, 6.0, n),)


def drag_coefficient_numpy(re):
    stokes = re < DRAG_REGIMES[0]
    transitional = re < DRAG_REGIMES[1]
    newton = re < DRAG_REGIMES[2]
    return np.select(
        [stokes, transitional, newton],
        [24.0 / re, 24.0 / re * (1.0 + 0.15 * re ** 0.687), 0.44],
        0.1,
    )


def drag_coefficient_jax(re):
    from jax import lax

    def low(re):
        return lax.cond(re < DRAG_REGIMES[0], lambda r: 24.0 / r,
                        lambda r: 24.0 / r * (1.0 + 0.15 * r ** 0.687), re)

    def high(re):
        return lax.cond(re < DRAG_REGIMES[2], lambda r: 0.44 + 0.0 * r, lambda r: 0.1 + 0.0 * r, re)

    return lax.cond(re < DRAG_REGIMES[1], low, high, re)


def softplus(x: float) -> float:
    """log(1 + exp(x)) without overflow for large x or loss of accuracy for negative x."""
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def softplus_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.normal(0.0, 20.0, n),)


def softplus_numpy(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def softplus_jax(x):
    import jax.numpy as jnp
    from jax import lax

    return lax.cond(x > 0.0, lambda v: v + jnp.log1p(jnp.exp(-v)), lambda v: jnp.log1p(jnp.exp(v)), x)


def clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def smoothstep(x: float, edge0: float, edge1: float) -> float:
    """Hermite smoothstep; a zero-width edge is a hard step."""
    if edge1 <= edge0:
        if x < edge0:
            return 0.0
        return 1.0
    t = clamp((x - edge0) / (edge1 - edge0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def smoothstep_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 2.0, n)
    edge0 = rng.uniform(-0.5, 0.5, n)
    width = np.where(rng.random(n) < 0.05, 0.0, rng.uniform(0.1, 1.5, n))
    return x, edge0, edge0 + width


def smoothstep_numpy(x, edge0, edge1):
    width = edge1 - edge0
    degenerate = width <= 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.clip((x - edge0) / width, 0.0, 1.0)
    smooth = t * t * (3.0 - 2.0 * t)
    return np.where(degenerate, np.where(x < edge0, 0.0, 1.0), smooth)


def smoothstep_jax(x, edge0, edge1):
    import jax.numpy as jnp
    from jax import lax

    def step(args):
        x, edge0, _ = args
        return jnp.where(x < edge0, 0.0, 1.0)

    def smooth(args):
        x, edge0, edge1 = args
        t = jnp.minimum(jnp.maximum((x - edge0) / (edge1 - edge0), 0.0), 1.0)
        return t * t * (3.0 - 2.0 * t)

    return lax.cond(edge1 <= edge0, step, smooth, (x, edge0, edge1))


def quadratic_root(a: float, b: float, c: float) -> float:
    """Larger real root of a*x**2 + b*x + c = 0 (nan if none), stable for every sign of b."""
    if a == 0.0:
        if b == 0.0:
            return math.nan
        return -c / b
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return math.nan
    q = -0.5 * (b + math.copysign(math.sqrt(disc), b))
    if q == 0.0:
        return 0.0
    return max(q / a, c / q)


def quadratic_root_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = np.where(rng.random(n) < 0.1, 0.0, rng.normal(0.0, 1.0, n))  # 10% linear equations
    b = np.where(rng.random(n) < 0.1, 0.0, rng.normal(0.0, 2.0, n))
    c = np.where(rng.random(n) < 0.02, 0.0, rng.normal(0.0, 1.0, n))
    return a, b, c


def quadratic_root_numpy(a, b, c):
    with np.errstate(divide="ignore", invalid="ignore"):
        linear = np.where(b == 0.0, np.nan, -c / b)
        disc = b * b - 4.0 * a * c
        q = -0.5 * (b + np.copysign(np.sqrt(np.maximum(disc, 0.0)), b))
        root = np.maximum(q / a, c / q)
        quad = np.where(disc < 0.0, np.nan, np.where(q == 0.0, 0.0, root))
    return np.where(a == 0.0, linear, quad)


def quadratic_root_jax(a, b, c):
    import jax.numpy as jnp
    from jax import lax

    def linear(args):
        a, b, c = args
        return lax.cond(b == 0.0, lambda: jnp.nan * b, lambda: -c / b)

    def quadratic(args):
        a, b, c = args
        disc = b * b - 4.0 * a * c

        def real(disc):
            q = -0.5 * (b + jnp.copysign(jnp.sqrt(disc), b))
            return lax.cond(q == 0.0, lambda: 0.0 * q, lambda: jnp.maximum(q / a, c / q))

        return lax.cond(disc < 0.0, lambda d: jnp.nan * d, real, disc)

    return lax.cond(a == 0.0, linear, quadratic, (a, b, c))


# --------------------------------------------------------------------------------------------
# While loops with per-lane trip counts


def mandelbrot_escape(cr: float, ci: float) -> int:
    """Escape time of c = cr + i*ci under z -> z*z + c."""
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < MAX_ITER:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def mandelbrot_escape_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-2.0, 0.6, n), rng.uniform(-1.2, 1.2, n)


def mandelbrot_escape_numpy(cr, ci):
    count = np.zeros(cr.shape, np.int64)
    idx = np.arange(cr.size)
    zr = np.zeros(cr.shape)
    zi = np.zeros(ci.shape)
    for _ in range(MAX_ITER):
        inside = zr * zr + zi * zi <= 4.0
        if not inside.all():  # drop the lanes that escaped
            idx, zr, zi, cr, ci = idx[inside], zr[inside], zi[inside], cr[inside], ci[inside]
            if idx.size == 0:
                break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count[idx] += 1
    return count


def mandelbrot_escape_jax(cr, ci):
    import jax.numpy as jnp
    from jax import lax

    def cond(state):
        zr, zi, n = state
        return (zr * zr + zi * zi <= 4.0) & (n < MAX_ITER)

    def body(state):
        zr, zi, n = state
        return zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, n + 1

    zero = jnp.zeros_like(cr)
    return lax.while_loop(cond, body, (zero, zero, jnp.zeros((), jnp.int64)))[2]


def collatz_steps(n: int) -> int:
    """Number of Collatz steps from n down to 1."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_steps_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.integers(1, 100_000, n, dtype=np.int64, endpoint=True),)


def collatz_steps_numpy(n):
    steps = np.zeros(n.shape, np.int64)
    idx = np.arange(n.size)
    n = n.copy()
    while True:
        running = n != 1
        if not running.all():
            idx, n = idx[running], n[running]
            if idx.size == 0:
                break
        n = np.where(n % 2 == 0, n // 2, 3 * n + 1)
        steps[idx] += 1
    return steps


def collatz_steps_jax(n):
    import jax.numpy as jnp
    from jax import lax

    def body(state):
        n, steps = state
        n = lax.cond(n % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, n)
        return n, steps + 1

    return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.zeros((), jnp.int64)))[1]


def kepler_solve(mean_anomaly: float, ecc: float) -> float:
    """Eccentric anomaly E with E - ecc*sin(E) = M, by Newton's method to a tolerance."""
    if ecc < 0.8:
        big_e = mean_anomaly
    else:
        big_e = math.pi
    delta = 1.0
    it = 0
    while abs(delta) > KEPLER_TOL and it < KEPLER_MAX_ITER:
        delta = (big_e - ecc * math.sin(big_e) - mean_anomaly) / (1.0 - ecc * math.cos(big_e))
        big_e -= delta
        it += 1
    return big_e


def kepler_solve_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.uniform(0.0, 2.0 * math.pi, n), rng.uniform(0.0, 0.99, n)


def kepler_solve_numpy(mean_anomaly, ecc):
    out = np.where(ecc < 0.8, mean_anomaly, math.pi)
    idx = np.arange(out.size)
    m, e, big_e = mean_anomaly, ecc, out.copy()
    for _ in range(KEPLER_MAX_ITER):
        delta = (big_e - e * np.sin(big_e) - m) / (1.0 - e * np.cos(big_e))
        big_e = big_e - delta
        out[idx] = big_e
        going = np.abs(delta) > KEPLER_TOL
        if not going.all():
            idx, m, e, big_e = idx[going], m[going], e[going], big_e[going]
            if idx.size == 0:
                break
    return out


def kepler_solve_jax(mean_anomaly, ecc):
    import jax.numpy as jnp
    from jax import lax

    def cond(state):
        _, delta, it = state
        return (jnp.abs(delta) > KEPLER_TOL) & (it < KEPLER_MAX_ITER)

    def body(state):
        big_e, _, it = state
        delta = (big_e - ecc * jnp.sin(big_e) - mean_anomaly) / (1.0 - ecc * jnp.cos(big_e))
        return big_e - delta, delta, it + 1

    start = jnp.where(ecc < 0.8, mean_anomaly, math.pi)
    return lax.while_loop(cond, body, (start, jnp.ones_like(start), jnp.zeros((), jnp.int64)))[0]


def cubic_root_bisect(c: float) -> float:
    """The real root of x**3 + x = c, by bisection to a relative tolerance."""
    lo = -1.0 - abs(c)
    hi = 1.0 + abs(c)
    while hi - lo > BISECT_RTOL * (1.0 + abs(lo)):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid + mid > c:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def cubic_root_bisect_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-3.0, 6.0, n),)


def cubic_root_bisect_numpy(c):
    lo = -1.0 - np.abs(c)
    hi = 1.0 + np.abs(c)
    out = np.empty(c.shape)
    idx = np.arange(c.size)
    while True:
        going = hi - lo > BISECT_RTOL * (1.0 + np.abs(lo))
        if not going.all():
            done = ~going
            out[idx[done]] = 0.5 * (lo[done] + hi[done])
            idx, lo, hi, c = idx[going], lo[going], hi[going], c[going]
            if idx.size == 0:
                break
        mid = 0.5 * (lo + hi)
        above = mid * mid * mid + mid > c
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return out


def cubic_root_bisect_jax(c):
    import jax.numpy as jnp
    from jax import lax

    def cond(state):
        lo, hi = state
        return hi - lo > BISECT_RTOL * (1.0 + jnp.abs(lo))

    def body(state):
        lo, hi = state
        mid = 0.5 * (lo + hi)
        return lax.cond(mid * mid * mid + mid > c, lambda: (lo, mid), lambda: (mid, hi))

    lo, hi = lax.while_loop(cond, body, (-1.0 - jnp.abs(c), 1.0 + jnp.abs(c)))
    return 0.5 * (lo + hi)


def is_prime(n: int) -> bool:
    """Primality by trial division."""
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    d = 3
    while d * d <= n:
        if n % d == 0:
            return False
        d += 2
    return True


def is_prime_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 200_000, n, dtype=np.int64),)


def is_prime_numpy(n):
    out = (n == 2) | ((n >= 2) & (n % 2 == 1))  # candidates: odd numbers >= 3 (and 2 itself)
    idx = np.flatnonzero(out & (n > 2))
    m = n[idx]
    d = 3
    while idx.size:
        testing = d * d <= m  # lanes whose divisor search is still running
        divides = testing & (m % d == 0)
        out[idx[divides]] = False
        keep = testing & ~divides
        idx, m = idx[keep], m[keep]
        d += 2
    return out


def is_prime_jax(n):
    import jax.numpy as jnp
    from jax import lax

    def odd(n):
        def cond(d):
            return (d * d <= n) & (n % d != 0)

        d = lax.while_loop(cond, lambda d: d + 2, jnp.full((), 3, jnp.int64))
        return d * d > n

    return lax.cond(n < 2, lambda m: m != m, lambda m: lax.cond(m % 2 == 0, lambda k: k == 2, odd, m), n)


# --------------------------------------------------------------------------------------------
# For-range accumulations (and calls between user functions)


def zeta_partial(s: float) -> float:
    """Partial sum of the Riemann zeta series."""
    total = 0.0
    for k in range(1, ZETA_TERMS + 1):
        total += k ** -s
    return total


def zeta_partial_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return (rng.uniform(1.1, 4.0, n),)


def zeta_partial_numpy(s):
    total = np.zeros(s.shape)
    for k in range(1, ZETA_TERMS + 1):
        total += float(k) ** -s
    return total


def zeta_partial_jax(s):
    from jax import lax

    return lax.fori_loop(1, ZETA_TERMS + 1, lambda k, acc: acc + k.astype(s.dtype) ** -s, 0.0 * s)


def gaussian(x: float) -> float:
    return math.exp(-0.5 * x * x)


def simpson_gauss(a: float, b: float) -> float:
    """Integral of exp(-x*x/2) over [a, b] by composite Simpson's rule, fixed step count."""
    h = (b - a) / SIMPSON_STEPS
    total = gaussian(a) + gaussian(b)
    for i in range(1, SIMPSON_STEPS):
        x = a + i * h
        if i % 2 == 1:
            total += 4.0 * gaussian(x)
        else:
            total += 2.0 * gaussian(x)
    return total * h / 3.0


def simpson_gauss_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-3.0, 1.0, n)
    return a, a + rng.uniform(0.0, 4.0, n)


def _gaussian_numpy(x):
    return np.exp(-0.5 * x * x)


def simpson_gauss_numpy(a, b):
    h = (b - a) / SIMPSON_STEPS
    total = _gaussian_numpy(a) + _gaussian_numpy(b)
    for i in range(1, SIMPSON_STEPS):
        weight = 4.0 if i % 2 == 1 else 2.0
        total += weight * _gaussian_numpy(a + i * h)
    return total * h / 3.0


def _gaussian_jax(x):
    import jax.numpy as jnp

    return jnp.exp(-0.5 * x * x)


def simpson_gauss_jax(a, b):
    import jax.numpy as jnp
    from jax import lax

    h = (b - a) / SIMPSON_STEPS

    def body(i, total):
        weight = jnp.where(i % 2 == 1, 4.0, 2.0)
        return total + weight * _gaussian_jax(a + i.astype(a.dtype) * h)

    total = lax.fori_loop(1, SIMPSON_STEPS, body, _gaussian_jax(a) + _gaussian_jax(b))
    return total * h / 3.0


def first_passage(x0: float, drift: float) -> int:
    """First step at which a drifting walker reaches the barrier (-1 if it never does)."""
    x = x0
    for step in range(MAX_STEPS):
        if x >= BARRIER:
            return step
        x = x + drift * (1.0 + 0.5 * math.sin(3.0 * x))
    return -1


def first_passage_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-4.0, 1.5, n), rng.uniform(0.005, 0.1, n)


def first_passage_numpy(x0, drift):
    out = np.full(x0.shape, -1, np.int64)
    idx = np.arange(x0.size)
    x = x0.copy()
    for step in range(MAX_STEPS):
        hit = x >= BARRIER
        if hit.any():
            out[idx[hit]] = step
            idx, x, drift = idx[~hit], x[~hit], drift[~hit]
            if idx.size == 0:
                break
        x = x + drift * (1.0 + 0.5 * np.sin(3.0 * x))
    return out


def first_passage_jax(x0, drift):
    import jax.numpy as jnp
    from jax import lax

    def cond(state):
        x, step = state
        return (step < MAX_STEPS) & (x < BARRIER)

    def body(state):
        x, step = state
        return x + drift * (1.0 + 0.5 * jnp.sin(3.0 * x)), step + 1

    _, step = lax.while_loop(cond, body, (x0, jnp.zeros((), jnp.int64)))
    return jnp.where(step < MAX_STEPS, step, -1)


def orbit_radius(mean_anomaly: float, ecc: float, semi_major: float) -> float:
    """Distance from the focus of a Keplerian orbit at a given mean anomaly."""
    ecc_anomaly = kepler_solve(mean_anomaly, ecc)
    return semi_major * (1.0 - ecc * math.cos(ecc_anomaly))


def orbit_radius_inputs(n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.uniform(0.0, 2.0 * math.pi, n), rng.uniform(0.0, 0.99, n), rng.uniform(0.4, 30.0, n)


def orbit_radius_numpy(mean_anomaly, ecc, semi_major):
    return semi_major * (1.0 - ecc * np.cos(kepler_solve_numpy(mean_anomaly, ecc)))


def orbit_radius_jax(mean_anomaly, ecc, semi_major):
    import jax.numpy as jnp

    return semi_major * (1.0 - ecc * jnp.cos(kepler_solve_jax(mean_anomaly, ecc)))


# --------------------------------------------------------------------------------------------
# The registry


@dataclass(frozen=True)
class Kernel:
    name: str
    func: Callable[..., Any]  # the scalar Python kernel: the oracle
    category: str
    summary: str
    inputs: Callable[[int, int], tuple[np.ndarray, ...]]
    numpy: Callable[..., np.ndarray]
    jax: Callable[..., Any]  # the scalar JAX version, for jax.jit(jax.vmap(...))
    out: str  # "float" | "int" | "bool"
    rtol: float = 1e-9
    atol: float = 1e-12
    quick: bool = False
    note: str = ""

    @property
    def seed(self) -> int:
        """A per-kernel seed that does not depend on which kernels are selected."""
        return zlib.crc32(self.name.encode())

    @property
    def dtype(self) -> type:
        return {"float": np.float64, "int": np.int64, "bool": np.bool_}[self.out]

    @property
    def params(self) -> tuple[str, ...]:
        return self.func.__code__.co_varnames[: self.func.__code__.co_argcount]


def _kernel(func: Callable[..., Any], category: str, out: str, **kw: Any) -> Kernel:
    name = func.__name__
    here = globals()
    summary = (func.__doc__ or "").strip().splitlines()[0] if func.__doc__ else name
    return Kernel(name, func, category, summary, here[f"{name}_inputs"], here[f"{name}_numpy"],
                  here[f"{name}_jax"], out, **kw)


KERNELS: tuple[Kernel, ...] = (
    _kernel(poly_horner, "arithmetic", "float", quick=True),
    _kernel(black_scholes_call, "math, call", "float", atol=1e-8,
            note=f"calls norm_cdf (math.erfc); hand-written NumPy uses {NUMPY_ERFC}"),
    _kernel(haversine_km, "math", "float", atol=1e-9),
    _kernel(drag_coefficient, "branches", "float"),
    _kernel(softplus, "branches", "float", quick=True),
    _kernel(smoothstep, "branches, clamp, call", "float", note="calls clamp (min/max)"),
    _kernel(quadratic_root, "branches", "float", note="degenerate cases: a == 0, b == 0, disc < 0, q == 0"),
    _kernel(mandelbrot_escape, "while", "int", quick=True),
    _kernel(collatz_steps, "while", "int"),
    _kernel(kepler_solve, "while", "float"),
    _kernel(cubic_root_bisect, "while", "float"),
    _kernel(is_prime, "while, early return", "bool"),
    _kernel(zeta_partial, "for-range", "float"),
    _kernel(simpson_gauss, "for-range, call", "float", quick=True, note="calls gaussian"),
    _kernel(first_passage, "for-range, early return", "int"),
    _kernel(orbit_radius, "call, while", "float", note="calls kepler_solve (a while loop)"),
)


# --------------------------------------------------------------------------------------------
# Numba versions (built on demand: Numba is optional)


def _njit_with_callees(nb: Any, func: types.FunctionType, done: dict[Any, Any]) -> tuple[Any, Any]:
    """(dispatcher, python clone) for `func`, whose same-module callees are @njit dispatchers.

    This is what a Numba user does by hand: decorate the kernel and every function it calls with
    @njit. The clone is the same code object with the callees rebound, for numba.vectorize.
    """
    if func in done:
        return done[func]
    namespace = dict(func.__globals__)
    for name in func.__code__.co_names:
        callee = namespace.get(name)
        if isinstance(callee, types.FunctionType) and callee.__module__ == func.__module__:
            namespace[name] = _njit_with_callees(nb, callee, done)[0]
    clone = types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__, func.__closure__)
    done[func] = (nb.njit(clone), clone)
    return done[func]


def _prange_driver(nb: Any, lane: Any, nargs: int, out_dtype: type) -> Any:
    """The hand-written parallel loop: one lane per iteration, spread over the cores."""
    prange = nb.prange
    if nargs == 1:
        def run(a):
            out = np.empty(a.shape[0], out_dtype)
            for i in prange(a.shape[0]):
                out[i] = lane(a[i])
            return out
    elif nargs == 2:
        def run(a, b):
            out = np.empty(a.shape[0], out_dtype)
            for i in prange(a.shape[0]):
                out[i] = lane(a[i], b[i])
            return out
    elif nargs == 3:
        def run(a, b, c):
            out = np.empty(a.shape[0], out_dtype)
            for i in prange(a.shape[0]):
                out[i] = lane(a[i], b[i], c[i])
            return out
    elif nargs == 4:
        def run(a, b, c, d):
            out = np.empty(a.shape[0], out_dtype)
            for i in prange(a.shape[0]):
                out[i] = lane(a[i], b[i], c[i], d[i])
            return out
    elif nargs == 5:
        def run(a, b, c, d, e):
            out = np.empty(a.shape[0], out_dtype)
            for i in prange(a.shape[0]):
                out[i] = lane(a[i], b[i], c[i], d[i], e[i])
            return out
    else:  # pragma: no cover - no kernel has more parameters
        raise ValueError(f"no prange driver for {nargs} arguments")
    return nb.njit(parallel=True)(run)


_NUMBA_TYPES = {"f": "float64", "i": "int64", "b": "boolean"}


def numba_signature(kernel: Kernel) -> str:
    """The numba.vectorize signature, from the dtypes of the kernel's inputs."""
    ins = [_NUMBA_TYPES[a.dtype.kind] for a in kernel.inputs(2, 0)]
    return f"{_NUMBA_TYPES[np.dtype(kernel.dtype).kind]}({', '.join(ins)})"


def numba_prange(nb: Any, kernel: Kernel) -> Any:
    """The kernel's scalar code under @njit, driven by a parallel prange loop (compiled lazily, at
    the first call)."""
    lane, _ = _njit_with_callees(nb, kernel.func, {})
    return _prange_driver(nb, lane, len(kernel.params), kernel.dtype)


def _c_pow() -> Any:
    """C's pow through ctypes, as a Numba user calls a C function: an indirect call, which LLVM
    neither simplifies (pow(x, 2.0) -> x * x) nor folds. It is the function CPython's `**` and
    math.pow call."""
    import ctypes
    import ctypes.util

    try:
        fn = ctypes.CDLL(None).pow  # the process's: the one CPython calls
    except (AttributeError, OSError):  # pragma: no cover - a platform without a global namespace
        fn = ctypes.CDLL(ctypes.util.find_library("m")).pow
    fn.restype = ctypes.c_double
    fn.argtypes = (ctypes.c_double, ctypes.c_double)
    return fn


class _ToCPow(ast.NodeTransformer):
    """`a ** b` and `math.pow(a, b)` -> `_c_pow(a, b)` (the kernels raise only floats to powers)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.Call(ast.Name("_c_pow", ast.Load()), [node.left, node.right], [])
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "pow" and isinstance(f.value, ast.Name) and f.value.id == "math":
            node.func = ast.Name("_c_pow", ast.Load())
        return node


def _with_c_pow(func: types.FunctionType, done: dict[Any, Any]) -> types.FunctionType:
    """`func` (and its same-module callees) recompiled with C's pow for `**` and math.pow."""
    if func in done:
        return done[func]
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    tree.body[0].decorator_list = []
    namespace = dict(func.__globals__, _c_pow=_C_POW())
    for name in func.__code__.co_names:
        callee = namespace.get(name)
        if isinstance(callee, types.FunctionType) and callee.__module__ == func.__module__:
            namespace[name] = _with_c_pow(callee, done)
    exec(compile(ast.fix_missing_locations(_ToCPow().visit(tree)), f"<{func.__name__} with C's pow>", "exec"),
         namespace)  # noqa: S102 - the benchmark's own kernel, transformed
    done[func] = namespace[func.__name__]
    return done[func]


_C_POW = functools.cache(_c_pow)


def numba_prange_exact(nb: Any, kernel: Kernel) -> Any:
    """`numba_prange` returning CPython's values: the kernel's code with C's pow where CPython
    calls it (`x ** 2` under @njit is LLVM's pow, which LLVM turns into x * x: other last bits on
    ~0.1% of inputs). The kernels' other math (math.exp, sin, erfc...) is the C library's already."""
    lane, _ = _njit_with_callees(nb, _with_c_pow(kernel.func, {}), {})
    return _prange_driver(nb, lane, len(kernel.params), kernel.dtype)


def numba_ufunc(nb: Any, kernel: Kernel) -> Any:
    """The kernel's scalar code as a numba.vectorize ufunc (default serial CPU target, compiled
    eagerly for the signature of the kernel's inputs)."""
    _, clone = _njit_with_callees(nb, kernel.func, {})
    return nb.vectorize([numba_signature(kernel)])(clone)


def by_name() -> dict[str, Kernel]:
    return {k.name: k for k in KERNELS}
