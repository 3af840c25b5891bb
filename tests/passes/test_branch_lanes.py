"""A costly batched branch run on the lanes that take it alone (analysis/branch_cost.py,
passes/if_to_select.py, passes/ops_to_numpy/branch_lanes.py, runtime.BranchLanes): both backends
against the scalar function lane by lane, values and the first failing lane's exception, with
hostile inputs (nan, +-inf, -0.0, subnormals, huge, ints near 2**63), on enough lanes that the
NumPy backend gathers (runtime.BranchLanes.MIN_LANES) and on too few."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS

from vectorizer import vectorize
from vectorizer.analysis import branch_cost
from vectorizer.runtime.helpers import BranchLanes

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
LANES = 6000  # over BranchLanes.MIN_LANES
HOSTILE = [*SPECIAL_FLOATS, 1e-300, -1e-300, 1e200, 3.0, 0.5]


def costly(x: float, s: float) -> float:
    """A branch of a rational approximation with a loop and libm calls; the other side cheap."""
    if x > 0:
        y = x * x
        z = math.exp(-y) * (1 + y * (0.5 + y * (0.25 + y * (0.125 + y * (0.1 + y * 0.01)))))
        for i in range(6):
            z = z * 0.5 + math.log(1 + z * z) / (1 + i)
        w = z / s  # ZeroDivisionError on the branch's lanes with s == 0
        r = w + 1.0
    else:
        r = -1.0
    return r


def both_costly(x: float, s: float) -> float:
    """if/elif/else, each side costly; the middle one raises on some of its lanes; a name first
    bound in each side is read after the branch."""
    if x > 1.0:
        t = x
        for i in range(8):
            t = math.sqrt(t * t + i) - 0.25 * t
        v = t * s
    elif x > -1.0:
        t = s
        for i in range(8):
            t = t * 0.5 + math.exp(-t * t) * (i + 1)
        if t > 3.0:
            raise ValueError("t too big")
        v = math.log(t) + x
    else:
        v = 0.0
        t = 1.0
        for i in range(8):
            v = v + math.sin(x * i) * t
            t = t * 0.5
    return v + t


def nested(x: float, s: float) -> float:
    """A costly branch with a costly branch inside it."""
    r = 0.0
    if x < 2.0:
        a = x * s
        for i in range(5):
            a = a * 0.75 + math.cos(a + i)
        if s > 0.5:
            b = a
            for _ in range(6):
                b = math.exp(-b * b) + b * 0.5
            r = b / (s - 1.0)  # ZeroDivisionError at s == 1.0, two levels deep
        else:
            r = a
    return r * 2.0


def in_loop(x: float, n: int) -> float:
    """A costly branch inside a loop whose lanes leave at different iterations."""
    total = 0.0
    k = 0
    while k < n:
        if (k + x) % 3.0 < 1.0:
            u = x + k
            for i in range(6):
                u = u * 0.5 + math.exp(-u * u * 0.01) * (i + 1)
            total = total + u
        else:
            total = total - 1.0
        k += 1
    return total


def big_ints(a: int, b: int) -> int:
    """Int arithmetic near 2**63 in a costly branch: an overflow is Python's big int, flagged."""
    if a > b:
        c = a
        for i in range(10):
            c = c // 3 + (b % 7) * i
        c = c * 2 + b
    else:
        c = b - a
    return c


def mixed_kinds(x: float, k: int) -> float:
    """The branch makes an int a float and a bool that the cheap side leaves an int."""
    v = k
    flagged = False
    if x > 0.5:
        v = x
        for i in range(10):
            v = v * 0.5 + math.exp(-v) * i
        flagged = v > 1.0
    return v + (10 if flagged else 0)


def hostile_floats(n: int, seed: int, lo: float = -3.0, hi: float = 3.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.uniform(lo, hi, n)
    x[::97] = np.resize(np.array(HOSTILE), x[::97].size)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [LANES, 40])
def test_a_costly_branch_raising_on_some_of_its_lanes(backend, n):
    vf = vectorize(costly, backend=backend, fallback="error")
    x, s = hostile_floats(n, 1), hostile_floats(n, 2)
    s[s == 0] = 2.0
    check(vf, costly, x, s)
    s[n // 2] = 0.0
    x[n // 2] = 1.5  # the branch's lane raising ZeroDivisionError
    check(vf, costly, x, s)
    x[3] = 2.0
    s[3] = -0.0  # an earlier one, with -0.0
    check(vf, costly, x, s)
    if backend == "numpy":
        assert "_vz_BranchLanes(" in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_branches_whose_lanes_are_none_or_all(backend):
    vf = vectorize(costly, backend=backend, fallback="error")
    s = hostile_floats(LANES, 3, 0.5, 2.0)
    s[s == 0] = 1.0
    check(vf, costly, np.full(LANES, -1.0), s)  # none take it: run on no lanes
    check(vf, costly, np.full(LANES, 2.0), s)  # all take it
    check(vf, costly, np.where(np.arange(LANES) == 7, 1.0, -1.0), s)  # one takes it
    check(vf, costly, np.where(np.arange(LANES) == 7, -1.0, 1.0), s)  # all but one


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_conditions(backend):
    """NaN takes no `x > 0` branch; -0.0 neither; inf does."""
    vf = vectorize(costly, backend=backend, fallback="error")
    x = np.resize(np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 5e-324, 1.0]), LANES)
    check(vf, costly, x, np.full(LANES, 2.0))
    check(vf, costly, hostile_floats(LANES, 4), np.full(LANES, np.nan))


@pytest.mark.parametrize("backend", BACKENDS)
def test_if_elif_else_each_costly(backend):
    vf = vectorize(both_costly, backend=backend, fallback="error")
    x, s = hostile_floats(LANES, 5), hostile_floats(LANES, 6, 0.0, 2.0)
    check(vf, both_costly, x, s)
    check(vf, both_costly, x, np.abs(s) + 0.1)
    check(vf, both_costly, np.abs(x) + 1.5, s)  # all take the first side
    if backend == "numpy":
        assert vf.source.count("_vz_BranchLanes(") >= 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_costly_branches(backend):
    vf = vectorize(nested, backend=backend, fallback="error")
    x, s = hostile_floats(LANES, 7), hostile_floats(LANES, 8, 0.0, 2.0)
    check(vf, nested, x, s)
    s[LANES - 5] = 1.0
    x[LANES - 5] = 0.0
    check(vf, nested, x, s)  # ZeroDivisionError two levels deep, late
    if backend == "numpy":
        assert vf.source.count("_vz_BranchLanes(") >= 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_costly_branch_inside_a_loop(backend):
    vf = vectorize(in_loop, backend=backend, fallback="error")
    x = hostile_floats(LANES, 9, 0.0, 5.0)
    n = np.random.default_rng(10).integers(-1, 12, LANES)
    check(vf, in_loop, x, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ints_near_2_63(backend):
    vf = vectorize(big_ints, backend=backend, fallback="error")
    rng = np.random.default_rng(11)
    top = np.iinfo(np.int64).max
    a = rng.integers(-10**6, 10**6, LANES)
    b = rng.integers(-10**6, 10**6, LANES)
    a[::50] = top - rng.integers(0, 5, a[::50].size)
    b[1::50] = np.iinfo(np.int64).min + rng.integers(0, 5, b[1::50].size)
    check(vf, big_ints, a, b)  # c * 2 past int64: Python's big int, refused as the contract says
    check(vf, big_ints, a // 4, b // 4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_branch_widens_what_the_other_side_keeps(backend):
    vf = vectorize(mixed_kinds, backend=backend, fallback="error")
    x = hostile_floats(LANES, 12, 0.0, 1.0)
    k = np.random.default_rng(13).integers(-5, 5, LANES)
    check(vf, mixed_kinds, x, k)
    check(vf, mixed_kinds, np.zeros(LANES), k)  # no lane widens


def test_the_cost_estimate():
    import libcst as cst

    def stmts(text: str) -> list[cst.BaseStatement]:
        return list(cst.parse_module(text).body)

    assert branch_cost.cost(stmts("y = x + 1.0\n")) < branch_cost.EXPENSIVE
    assert branch_cost.cost(stmts("for i in range(6):\n    z = z * 0.5 + math.log(1 + z * z)\n")) >= branch_cost.EXPENSIVE
    assert branch_cost.cost(stmts("while z > 1:\n    z = math.sqrt(z)\n")) >= branch_cost.EXPENSIVE
    assert branch_cost.cost(stmts("r = abs(x) + max(x, y)\n")) < branch_cost.EXPENSIVE


def test_the_runtime_keeps_every_lane_outside_the_branch():
    mask = np.zeros(5000, dtype=bool)
    mask[::3] = True
    lanes = BranchLanes(mask)
    x = np.arange(5000.0)
    flag = np.zeros(5000, dtype=bool)
    k = np.arange(5000)
    flag_g, k_g, x_g = lanes.gather(flag, k, x)
    assert lanes.lanes == mask.sum() and np.array_equal(x_g, x[mask])
    flag_g = flag_g | (x_g > 4000)
    k_g = k_g * 0.5  # int widened to float where the branch ran: `where` would make it float
    flag2, k2, fresh, x2 = lanes.scatter(flag_g, k_g, x_g * 2, fresh=1)
    assert x2 is x
    assert np.array_equal(flag2, mask & (x > 4000))
    assert k2.dtype == np.float64 and np.array_equal(k2, np.where(mask, k * 0.5, k))
    assert np.array_equal(fresh[mask], x[mask] * 2) and not fresh[~mask].any()
    # too few lanes, or most of them, or a number for a mask: no gathering
    for m in (mask[:100], np.ones(5000, dtype=bool), np.True_):
        few = BranchLanes(m)
        assert few.gather(x) == (x,) and few.scatter(x) == (x,)
    with pytest.raises(ValueError, match="a branch's lanes"):
        lanes.gather(x[:10])
