"""The short paths of issue 33 (vectorizer/engine/fastpath.py): calls with scalars alone, one-lane
arrays, NumPy kernels run quietly through NumPy's error-state context variable.

Every call that takes a short path is checked twice: against the scalar function lane by lane
(the oracle, on Python numbers) and against the general path (`call_lanes`) for the exact type
and dtype of each result (scalars in give NumPy scalars out). Calls that must not take it (other
types, ints beyond int64, flagged lanes, specialized flags, rebound globals, 0-d arrays, lists)
are shown to miss and to agree all the same.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from oracle import check as oracle_check

from vectorizer import vectorize
from vectorizer.engine import fastpath

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
SCALE = 2.0


@pytest.fixture(params=BACKENDS)
def backend(request):
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


def mul_add(x: float, y: float) -> float:
    return x * y + 1.0


def clamp(x: float) -> float:
    if x < 0.0:
        return 0.0
    elif x > 1.0:
        return 1.0
    return x


def halve(n: int) -> int:
    return n // 2


def split(x: float) -> tuple[float, bool, int]:
    return x * 0.5, x > 0.0, 3


def positive(x: float) -> bool:
    if x > 0.0:
        return True  # constant branches: the NumPy kernel gives Python numbers
    return False


def root(x: float) -> float:
    if x < 0.0:
        raise ValueError(f"root needs x >= 0, got {x}")
    return math.sqrt(x)


def ratio(x: float, y: float) -> float:
    if y == 0.0:
        return math.inf
    return x / y


def scaled(x: float) -> float:
    return x * SCALE


def choose(x: float, exact: bool = False) -> float:
    if exact:
        return x + 1.0
    return x - 1.0


def same_result(got: object, want: object) -> None:
    """The same Python/NumPy type, dtype and bits as the general path's result."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    assert len(got_t) == len(want_t)
    for g, w in zip(got_t, want_t):
        assert type(g) is type(w), (g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes(), (g, w)


def short(vf, args: tuple) -> object:
    """The short path's result for `args` (it must be taken), checked against the general path."""
    got = fastpath.run(vf._fast, args)
    assert got is not fastpath.MISS, args
    same_result(got, vf.call_lanes(list(args)))
    return got


HOSTILE = [0.0, -0.0, 0.25, 1.0, 1.5, -3.0, math.nan, math.inf, -math.inf, 5e-324, 1.7e308]


@pytest.mark.parametrize("func, args", [
    (mul_add, [(2.0, 3.0), (-0.0, 1.0), (math.nan, 2.0), (1e308, 10.0), (5e-324, 0.5)]),
    (clamp, [(v,) for v in HOSTILE]),
    (halve, [(-(2**63),), (-3,), (0,), (7,), (2**63 - 1,)]),
    (split, [(v,) for v in HOSTILE]),
    (positive, [(v,) for v in HOSTILE]),
    (ratio, [(1.0, 0.0), (-0.0, 3.0), (math.inf, math.inf), (1.0, 5e-324)]),
])
def test_scalar_calls_take_the_short_path_and_keep_the_contract(backend, func, args):
    vf = vectorize(func, backend=backend)
    oracle_check(vf, func, *args[0])
    oracle_check(vf, func, *args[0])  # the second call: the plan of the first
    assert vf._fast is not None and vf._fast.scalars is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy scalars dividing by zero must not warn here either
        for lane in args:
            got = short(vf, lane)
            oracle_check(vf, func, *lane)
            kinds = [type(v) for v in (func(*lane) if isinstance(got, tuple) else (func(*lane),))]
            want = {float: np.float64, int: np.int64, bool: np.bool_}
            assert [type(g) for g in (got if isinstance(got, tuple) else (got,))] == [want[k] for k in kinds]


def test_other_scalar_types_python_or_numpy_each_get_their_own_plan(backend):
    vf = vectorize(mul_add, backend=backend)
    for args in [(2.0, 3.0), (2, 3), (True, 2.5), (np.float64(1.5), 2.0), (np.int64(4), np.bool_(True))]:
        oracle_check(vf, mul_add, *args)  # a new plan for these types (the one before misses)
        got = short(vf, args)
        assert type(got) is np.float64 and got == mul_add(*(a.item() if isinstance(a, np.generic) else a for a in args))


@pytest.mark.parametrize("other", ["int_beyond_int64", "float32", "zero_d", "list", "mixed", "one_lane_and_scalar"])
def test_scalar_calls_unlike_the_plan_miss_and_still_agree(backend, other):
    vf = vectorize(mul_add, backend=backend)
    vf(2.0, 3.0)
    plan = vf._fast
    args = {
        "int_beyond_int64": (2**63, 1.0),
        "float32": (np.float32(1.5), 2.0),
        "zero_d": (np.array(1.5), 2.0),
        "list": ([1.0, 2.0], 2.0),
        "mixed": (1.5, np.array([1.0, 2.0])),
        "one_lane_and_scalar": (np.array([1.5]), 2.0),
    }[other]
    assert fastpath.run(plan, args) is fastpath.MISS
    if other == "int_beyond_int64":  # the general path refuses it (issue 49 row 12: test_inputs_refused.py)
        from vectorizer import VectorizeInputError

        with pytest.raises(VectorizeInputError, match="argument 'x': 9223372036854775808 does not fit in int64"):
            vf(*args)
    else:
        oracle_check(vf, mul_add, *args)
        same_result(vf(*args), vf.call_lanes(list(args)))


def test_a_flagged_scalar_call_takes_the_general_path_and_raises_the_scalar_error(backend):
    vf = vectorize(root, backend=backend)
    oracle_check(vf, root, 4.0)
    oracle_check(vf, root, 4.0)
    assert fastpath.run(vf._fast, (-2.0,)) is fastpath.MISS
    with pytest.raises(ValueError, match="got -2.0"):
        vf(-2.0)
    oracle_check(vf, root, -2.0)
    assert short(vf, (9.0,)) == 3.0


def test_scalar_and_array_calls_keep_both_plans(backend):
    vf = vectorize(clamp, backend=backend)
    x = np.array([-1.0, 0.5, 2.0, np.nan, -0.0])
    for _ in range(2):
        oracle_check(vf, clamp, x)
        oracle_check(vf, clamp, 0.5)
    assert vf._fast.arrays is not None and vf._fast.scalars is not None
    short(vf, (x,))
    short(vf, (1.5,))
    array_key, scalar_key = vf._fast.arrays.used[0], vf._fast.scalars.used[0]
    assert array_key != scalar_key  # uniform vs batched: two specializations
    for args, key in [((x,), array_key), ((0.25,), scalar_key), ((x,), array_key)]:
        vf(*args)  # a short call: `.source` and `.backend` describe the specialization it ran
        assert vf._last == key and vf.source == vf._kernels[key].source and vf.backend == backend


def test_a_rebound_global_leaves_the_scalar_short_path(backend, monkeypatch):
    vf = vectorize(scaled, backend=backend)
    assert vf(1.5) == 3.0 and vf(1.5) == 3.0
    plan = vf._fast
    monkeypatch.setitem(globals(), "SCALE", 10.0)
    assert fastpath.run(plan, (1.5,)) is fastpath.MISS
    assert vf(1.5) == 15.0
    oracle_check(vf, scaled, 1.5)


def test_a_specialized_flag_gets_no_scalar_plan(backend):
    """A Python bool given to a parameter whose default is a bool keys its own code: each value
    must take the general path, which picks that code."""
    vf = vectorize(choose, backend=backend)
    for exact in (True, False, True, False):
        oracle_check(vf, choose, 2.0, exact)
        assert vf._fast is None or vf._fast.scalars is None


def test_one_lane_arrays_take_the_short_path(backend):
    vf = vectorize(split, backend=backend)
    x = np.array([0.5, -2.0, np.nan])
    oracle_check(vf, split, x)
    for v in HOSTILE:
        one = np.array([v])
        got = short(vf, (one,))
        assert all(type(r) is np.ndarray and r.shape == (1,) for r in got)
        oracle_check(vf, split, one)
    empty = np.array([], dtype=np.float64)
    assert fastpath.run(vf._fast, (empty,)) is fastpath.MISS
    oracle_check(vf, split, empty)


def test_the_kernel_runs_quietly_and_the_callers_error_state_is_restored():
    """NumPy kernels compute masked lanes that would warn (1/0 here): the short path sets NumPy's
    error state to ignore for the kernel alone, under whatever state the caller chose."""
    vf = vectorize(ratio)
    x, y = np.array([1.0, 2.0, -0.0]), np.array([0.0, 4.0, 0.0])
    oracle_check(vf, ratio, x, y)
    oracle_check(vf, ratio, 1.0, 0.0)
    before = np.geterr()
    for state in ("raise", "warn", "ignore"):
        with np.errstate(all=state), warnings.catch_warnings():
            warnings.simplefilter("error")
            inside = np.geterr()
            assert short(vf, (x, y)).tolist() == [math.inf, 0.5, math.inf]
            assert short(vf, (1.0, 0.0)) == math.inf
            assert np.geterr() == inside
    assert np.geterr() == before
