"""backend="jax" with an emulated float64's bounds (the TPU's, bounds.py: a pair of float32, its
range, its entry rounding), modelled on JAX's CPU backend with VECTORIZER_JAX_BOUNDS=tpu. On the
CPU the arithmetic is IEEE's, inside the modelled bounds, so the model must keep every discrete
outcome and exception of the loop (tests/oracle.py), re-run the lanes it cannot vouch for (out of
range arguments, constants and intermediates; zeros whose sign decides), and not be vacuous:
ordinary lanes stay on the device.

The functions under test are defined at the top of this file (vectorizer reads their source).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="backend='jax' needs JAX: pip install '.[jax]'")

from oracle import check  # noqa: E402

from vectorizer import vectorize  # noqa: E402

HOSTILE = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-30, -1e-36, 1e-300, 1e30, 3e38, -1e39, 1e300, math.inf,
           -math.inf, math.nan, 0.5, 3.0, 88.0, -90.0, 5e-324, 2.0 ** -91, 2.0 ** 124]


def decides(x: float, y: float) -> float:
    if x * 0.1 > y:  # 0.1 is not a pair of float32: its copy carries an error
        return x - y
    if abs(x) > 1e308:  # a constant the device holds as inf
        return 1.0
    if y > 1e-300:  # one it holds as 0
        return x * 1e-20 * 1e20  # an intermediate below the range for small x
    return y * 2.0 - x


def transcendental(x: float) -> int:
    if math.exp(x) > 2.0:
        return 1
    if math.sin(x) < 0.25:
        return int(math.floor(x * 3.0))
    return 2


def quadrant(y: float, x: float) -> float:
    return math.atan2(y, x) + math.copysign(1.0, y)


def remainder(x: float, y: float) -> float:
    if y == 0.0:
        return 0.0
    return x % y


def escape(cr: float, ci: float) -> int:
    zr = zi = 0.0
    n = 0
    while n < 40 and zr * zr + zi * zi <= 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def uniform_range(x: float, n: int) -> float:
    total = 0.0
    for k in range(1, 24):
        if math.exp(x) * k > 40.0:  # unsure near the threshold: flagged there, and the loop runs on
            return total + k
        total += math.sin(x * k) / k
    for j in range(n):  # a range over a lane's bound: flagged lanes stop
        total = total * 0.5 + j
    return total


def scaled(x: float, y: float) -> float:
    return (x * y) * 0.5 + 1.0


def above(x: float, y: float) -> int:
    if x * y > 0.75:
        return 1
    return 0


def straight(x: float, y: float) -> float:
    return (x * 1.5 + y) * (x - 0.25) / (y * y + 1.0)


@pytest.fixture(autouse=True)
def tpu_bounds(monkeypatch):
    monkeypatch.setenv("VECTORIZER_JAX_BOUNDS", "tpu")


def jax_vf(f):
    return vectorize(f, backend="jax", exact=False, fallback="error")


def flags(vf, *args):
    """The lanes the device flagged for the host (the kernel's own answer, before the re-run)."""
    vf(*args)
    kernel = vf._generations.current().kernels[vf._last].fn
    assert kernel.bounds.emulated
    _, flagged = kernel(*args)
    return np.zeros(len(args[0]), bool) if flagged is None else flagged


def test_discrete_outcomes_and_exceptions_stay_exact():
    a = np.array(HOSTILE * len(HOSTILE))
    b = np.repeat(np.array(HOSTILE), len(HOSTILE))
    check(jax_vf(decides), decides, a, b, rel=1e-9)
    check(jax_vf(quadrant), quadrant, a, b, rel=1e-9)
    check(jax_vf(remainder), remainder, a, b, rel=1e-9)
    x = np.array([v for v in HOSTILE if not math.isnan(v) and abs(v) < 700] + [math.log(2.0), math.pi / 6])
    check(jax_vf(transcendental), transcendental, x)


def test_out_of_range_lanes_are_re_run():
    x = np.array([1.0, 1e30, 1e39, 1e-20, 1e-30, 0.0, -2.0, 2.0 ** 124, 2.0 ** -92])
    y = np.full_like(x, 0.5)
    got = flags(jax_vf(straight), x, y)
    # the range is [2**-70 (8.5e-22), 2**124): 1e39, 1e-30, 2**124 and 2**-92 as arguments, and 1e30's
    # product (about 1.5e60) as an intermediate, leave it; 1.0, 1e-20, 0.0 and -2.0 stay inside
    assert got.tolist() == [False, True, True, False, True, False, False, True, True]
    check(jax_vf(straight), straight, x, y)


def test_zero_signs_are_re_run():
    y = np.array([0.0, -0.0, 1.0, -1.0])
    x = np.array([-1.0, -1.0, -1.0, 0.0])
    assert flags(jax_vf(quadrant), y, x).tolist() == [True, True, False, True]


def test_ordinary_lanes_stay_on_the_device():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(-10, 10, 4000), rng.uniform(-10, 10, 4000)
    assert not flags(jax_vf(straight), x, y).any()
    cr, ci = rng.uniform(-2, 1, 4000), rng.uniform(-1.5, 1.5, 4000)
    escaped = flags(jax_vf(escape), cr, ci)
    assert escaped.mean() < 0.1, escaped.mean()  # the orbits near the set's edge go to the host
    check(jax_vf(escape), escape, cr, ci)


def test_near_decisions_at_the_ranges_ends_are_re_run():
    """The error terms are float32s (the device's native type) whose smallest, 2**-52 |v| at the
    range's bottom, is a float32 normal: a product within a few units of 2**-52 of the threshold is
    flagged wherever its operands lie in the range, near its ends too, and a far one is not."""
    from vectorizer.backends.jax.approx import Approx, _Active, mag
    from vectorizer.backends.jax.bounds import Bounds

    _Active.bounds = Bounds("tpu")
    try:
        assert mag(jax.numpy.float64(3.0)).dtype == np.float32
        assert (Approx(jax.numpy.float64(3.0), 0) * 0.1).err.dtype == np.float32
    finally:
        _Active.bounds = None
    x = np.array([2.0 ** -69, 1e-20, 3e-19, 1e-5, 1.0, 1e20, 2.0 ** 68] * 3)  # y = 0.75 / x: in range too
    steps = np.repeat([1.0, -3.0, 2.0 ** 40], 7)  # units of 2**-52 from the threshold, then far
    y = 0.75 / x * (1.0 + steps * 2.0 ** -52)
    got = flags(jax_vf(above), x, y)
    assert got[:14].all() and not got[14:].any(), got
    check(jax_vf(above), above, x, y)


def test_float32_error_terms_bound_the_float64_ones():
    """On an emulated float64 the terms of math_error_models.MOVED and of pow's bound are float32s,
    from bounds of the arguments (no emulated division, root or log on the device): each must be at
    least the float64 formula's value, near the poles and domain ends too (where it may be inf)."""
    import jax.numpy as jnp

    from vectorizer.backends.jax.approx import GROW, _Active
    from vectorizer.backends.jax.bounds import Bounds
    from vectorizer.backends.jax.driver import x64
    from vectorizer.backends.jax.math_error_models import MOVED, log_bound

    rng = np.random.default_rng(11)
    a = np.concatenate([rng.uniform(-3, 3, 3000), 1.0 - rng.uniform(0, 1e-6, 500), 1.0 + rng.uniform(0, 1e-6, 500),
                        -1.0 + rng.uniform(0, 1e-6, 500), 10.0 ** rng.uniform(-20, 20, 1000), [1.0, -1.0, 0.5]])
    # a bound is at least a rounding's, 2**-52 |a|, as every error term of an emulated float64 is
    e = np.abs(a) * 10.0 ** rng.uniform(-15.6, -6, a.size)
    e[::7] = np.maximum(10.0 ** rng.uniform(-20, -1, e[::7].size), np.abs(a[::7]) * 2.0 ** -52)

    def terms(platform):
        _Active.bounds = Bounds(platform)
        try:
            with x64():
                av, ev = jnp.asarray(a), jnp.asarray(e)
                ev = ev.astype(jnp.float32) if platform == "tpu" else ev
                out = {name: np.asarray(fn(av, ev, getattr(jnp, {"asin": "arcsin", "acos": "arccos", "atanh": "arctanh",
                                                                    "acosh": "arccosh"}.get(name, name), jnp.exp)(av)),
                                        np.float64) for name, fn in MOVED.items()}
                out["log_bound"] = np.asarray(log_bound(av), np.float64)
                return out
        finally:
            _Active.bounds = None

    wide, exact = terms("tpu"), terms("cpu")
    with np.errstate(invalid="ignore"):
        for name, want in exact.items():
            got = wide[name]
            # the float32 roundings of the terms' own arithmetic (e's on its way in too): the call sites'
            # GROW covers them, as it covers those of every float32 error term
            short = ~(got * GROW >= want) & ~np.isnan(want)
            assert not short.any(), (name, a[short][:3], e[short][:3], got[short][:3], want[short][:3])


@pytest.mark.parametrize("platform", ["tpu", "cpu"])
def test_uniform_range_loops_run_on_for_flagged_lanes(platform, monkeypatch):
    """A range over uniform bounds is one loop for all lanes (a scalar counter and test under vmap,
    `uniform=True`): a lane flagged in it, or returned from it, runs on to its end, its later values
    never read; a range over a lane's bound still stops its flagged lanes."""
    monkeypatch.setenv("VECTORIZER_JAX_BOUNDS", platform)
    vf = jax_vf(uniform_range)
    rng = np.random.default_rng(3)
    # exp(x) * k == 40 at x = log(40 / k): lanes at those thresholds, within a few ulps, are unsure
    edges = np.log(40.0 / np.arange(1, 24))
    x = np.concatenate([rng.uniform(-3, 4, 300), edges, np.nextafter(edges, 9), [math.nan, 700.0, -1e300]])
    n = rng.integers(0, 5, x.size)
    check(vf, uniform_range, x, n, rel=1e-9)
    assert vf.source.count("uniform=True") == 1  # the first loop only
    _, flagged = vf._generations.current().kernels[vf._last].fn(x, n)
    assert flagged is not None and flagged[300:300 + 2 * edges.size].any() and not flagged[:300].all()


def test_only_results_of_operands_in_range_are_tested():
    """range_lost: a product of operands inside the range that leaves it is re-run (below it, or a
    zero that is an underflow; above it); one of a zero or an infinite operand is exact (0, inf or
    nan, as CPython's) and stays on the device."""
    x = np.array([1e-15, 0.0, math.inf, 1e-15, 3.0, 1e20, -0.0, 1e-15, math.nan])
    y = np.array([1e-15, 1e-15, 1.0, 1e-5, -3.0, 1e20, math.inf, 0.0, 2.0])
    assert flags(jax_vf(scaled), x, y).tolist() == [True, False, False, False, False, True, False, False, False]
    check(jax_vf(scaled), scaled, x, y)


def test_grouped_bands_bound_every_measured_band():
    """own_error picks a lane's bound from fewer groups than the measured bands: every measured band
    with a finite bound lies in a group whose bound is at least its own (bands without one are
    tainted lanes, whatever they get)."""
    from vectorizer.backends.jax.bounds import Bounds
    from vectorizer.backends.jax.math_error_models import _groups

    for platform in ("tpu", "cpu"):
        b = Bounds(platform)
        for name in b._bands:
            band = b.band(name)
            groups = _groups(tuple(band))
            assert len(groups) <= len(band)
            for limit, rel, ab in band:
                if math.isinf(rel) or math.isinf(ab):
                    continue
                group = next(g for g in groups if limit <= g[0]) if limit <= groups[-1][0] else groups[-1]
                assert group[1] >= rel and group[2] >= ab, (platform, name, limit)
