"""Differential tests of `vectorizer.vmap` against the loop it replaces (and against JAX's vmap).

The oracle is `loop_vmap`, JAX's vmap semantics written as a Python loop: take each mapped
argument's slice along its in_axis (`.item()` for a number, as the scalar contract passes),
call the per-example function, stack the results along axis 0 and move that axis to out_axes.
Nested loop_vmaps compose the same way nested vmaps do.

Comparison rule, per case (the `exact` column of CASES):
* exact: same shape, dtype, values, NaN positions and sign of zero. Used where the function has
  no reduction NumPy may reorder: elementwise code, loops that accumulate in order (the engine
  keeps float accumulation order unless reassociate=True), indexing, min/max, and the BLAS
  products np.dot / np.linalg.norm / np.outer / @ (each lane runs the per-example BLAS call).
* close: same shape and dtype, |got - want| <= 1e-9 + 1e-9 * |want| (NaN == NaN, inf == inf).
  Used where the function calls np.sum / np.mean or exp/log: the batched reduction
  (np.sum(axis=1)) may add in another order than the per-example call, and NumPy's SIMD
  transcendental kernels may differ by an ulp between layouts.
  Hostile inputs for these are NaN and +-inf (order-independent), not huge finite values.
"""

from __future__ import annotations

import ast
import math
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import vmap_cases as C
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import SPECIAL_FLOATS

from vectorizer import FallbackWarning, VectorizeError, VectorizeValueError, vmap

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------------------------
# The oracle: JAX's vmap semantics as a loop over the examples


def _slice(a: Any, axis: int, b: int) -> Any:
    s = np.take(np.asarray(a), b, axis=axis)
    return s.item() if s.ndim == 0 else s


def _dummy(a: Any, axis: int) -> Any:
    """An example of the right shape and dtype, to learn the output shape of an empty batch."""
    a = np.asarray(a)
    shape = a.shape[: axis % a.ndim] + a.shape[axis % a.ndim + 1:]
    s = np.zeros(shape, a.dtype)
    return s.item() if s.ndim == 0 else s


def loop_vmap(f: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, axis_size: int | None = None):
    """vmap by a Python loop: the reference the tests compare with."""

    def mapped(*args: Any, **kwargs: Any) -> Any:
        axes = list(in_axes) if isinstance(in_axes, tuple | list) else [in_axes] * len(args)
        sizes = [np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None]
        sizes += [np.shape(v)[0] for v in kwargs.values()]
        n = sizes[0] if sizes else axis_size

        def lane(b: int | None) -> Any:
            pick = _slice if b is not None else (lambda a, ax, _: _dummy(a, ax))
            return f(*(a if ax is None else pick(a, ax, b) for a, ax in zip(args, axes)),
                     **{k: pick(v, 0, b) for k, v in kwargs.items()})

        outs = [lane(b) for b in range(n)] if n else [lane(None)]
        single = not isinstance(outs[0], tuple)
        columns = [outs] if single else [list(c) for c in zip(*outs)]
        placed = []
        for k, column in enumerate(columns):
            axis = out_axes[k] if isinstance(out_axes, tuple | list) else out_axes
            stacked = np.stack([np.asarray(v) for v in column])[: n if n else 0]
            if axis is None:
                assert all(np.array_equal(stacked[0], s, equal_nan=True) for s in stacked)
                placed.append(stacked[0])
            else:
                placed.append(np.moveaxis(stacked, 0, axis))
        return placed[0] if single else tuple(placed)

    return mapped


def expected_outcome(f: Callable[[], Any]) -> tuple[str, Any]:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", f()
        except Exception as exc:  # the scalar function's own exception is what vmap must raise
            return "raised", exc


def assert_same(got: Any, want: Any, exact: bool) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_same(g, w, exact)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if exact or got.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        if got.dtype.kind == "f":  # -0.0 is not 0.0 (a NaN's sign bit means nothing)
            np.testing.assert_array_equal(np.signbit(got) & ~np.isnan(got), np.signbit(want) & ~np.isnan(want))
    else:
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9, equal_nan=True)


def run_both(f, in_axes, out_axes, args, kwargs=None, exact=True, axis_size=None) -> None:
    """vmap(f, in_axes, out_axes)(*args) against loop_vmap: the same values, or the same exception."""
    kwargs = kwargs or {}
    kind, want = expected_outcome(lambda: loop_vmap(f, in_axes, out_axes, axis_size)(*args, **kwargs))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a flagged lane's re-run is NumPy scalar code
        warnings.simplefilter("ignore", FallbackWarning)  # refusals are asserted in their own test
        vf = vmap(f, in_axes, out_axes, axis_size=axis_size)
        if kind == "raised":
            with pytest.raises(type(want)) as info:
                vf(*args, **kwargs)
            assert str(info.value) == str(want)
            return
        got = vf(*args, **kwargs)
    assert_same(got, want, exact)


# --------------------------------------------------------------------------------------------
# The cases: per-example argument shapes ("n" is the per-example size), element kinds, outputs


@dataclass(frozen=True)
class Arg:
    shape: tuple[Any, ...] = ("n",)  # () for a number
    kind: str = "float"  # float | int | index (may be out of range) | bin (0..NBINS)
    shareable: bool = True  # may be passed with in_axes None


@dataclass(frozen=True)
class Case:
    fn: Callable[..., Any]
    args: tuple[Arg, ...]
    out_ranks: tuple[int, ...]  # per-example rank of each output (one entry: a single output)
    exact: bool
    sizes: tuple[int, ...] = (1, 3, 4)
    tuple_out: bool = False
    xfail: str = ""
    label: str = ""

    @property
    def id(self) -> str:
        return self.fn.__name__ + self.label


N = Arg()
NUM = Arg(())
SQUARE = Arg(("n", "n"))
BUG_UNIFORM_ELIF = ("engine bug (silently wrong): `if <batched>: v = lo` + `elif <uniform>: v = hi` "
                    "with no else drops the elif test: every lane not taking the if gets v = hi")

# exact=False: the function reduces with np.sum / np.mean, or calls exp/log (see the module
# docstring); everything else must match bit for bit.
CASES = [
    Case(C.euclidean, (N, N), (0,), exact=False),
    Case(C.manhattan_loop, (N, N), (0,), exact=True),
    Case(C.cosine_similarity, (N, N), (0,), exact=True),
    Case(C.l2_norm, (N,), (0,), exact=False),
    Case(C.linalg_norm, (N,), (0,), exact=True),
    Case(C.max_norm_loop, (N,), (0,), exact=True),
    Case(C.det2x2, (Arg((2, 2)),), (0,), exact=True, sizes=(2,)),
    Case(C.det2x2, (Arg((2, 2), "int"),), (0,), exact=True, sizes=(2,), label="_int"),
    Case(C.weighted_sum, (N, N), (0,), exact=True),
    Case(C.matvec_loop, (Arg((3, "n")), N), (1,), exact=True),
    Case(C.trace_loop, (SQUARE,), (0,), exact=True),
    Case(C.outer_product, (N, Arg((2,))), (2,), exact=True),
    Case(C.histogram_loop, (N, NUM, NUM), (1,), exact=True),
    Case(C.count_in_bins, (Arg(kind="bin"),), (1,), exact=True),
    Case(C.moving_average3, (N,), (1,), exact=True, sizes=(3, 5)),
    Case(C.softmax, (N,), (1,), exact=False),
    Case(C.logsumexp, (N,), (0,), exact=False),
    Case(C.standardize, (N,), (1,), exact=False),
    Case(C.cumsum_loop, (N,), (1,), exact=True),
    Case(C.clip_loop, (Arg(), NUM, NUM), (1,), exact=True),
    Case(C.line_fit, (N, N), (0, 0), exact=True, tuple_out=True, sizes=(2, 4)),
    Case(C.horner, (N, NUM), (0,), exact=True),
    Case(C.argmax_loop, (N,), (0,), exact=True),
    Case(C.first_above, (N, NUM), (0,), exact=True),
    Case(C.first_above, (Arg(kind="int"), NUM), (0,), exact=True, label="_int"),
    Case(C.shrink_or_shift, (N, NUM), (1,), exact=False),
    Case(C.min_max, (N,), (0, 0), exact=True, tuple_out=True),
    Case(C.pick, (N, Arg((), "index")), (0,), exact=True),
    Case(C.distance_to_point_loop, (N, N), (0,), exact=True),
    Case(C.axpy, (NUM, N, N), (1,), exact=True),
]


def _elements(kind: str, n: int, exact: bool, in_range: bool) -> st.SearchStrategy:
    if kind == "index":  # some lanes read out of range: IndexError
        return st.integers(-n, n - 1) if in_range else st.integers(-n - 1, n)
    if kind == "bin":  # occasionally out of range
        return st.integers(0, C.NBINS - 1) | (st.nothing() if in_range else st.just(C.NBINS))
    if kind == "int":
        return st.integers(-50, 50)
    if exact:  # everything: NaN, +-inf, -0.0, subnormals, huge
        return st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(SPECIAL_FLOATS)
    return st.floats(-10.0, 10.0) | st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 0.0])


def _draw_array(data: st.DataObject, shape: tuple[int, ...], kind: str, n: int, exact: bool,
                in_range: bool = False) -> np.ndarray:
    count = math.prod(shape)
    values = data.draw(st.lists(_elements(kind, n, exact, in_range), min_size=count, max_size=count))
    dtype = np.float64 if kind == "float" else np.int64
    return np.array(values, dtype=dtype).reshape(shape)


def draw_call(data: st.DataObject, case: Case) -> tuple[list[Any], tuple[Any, ...], Any]:
    """Arguments, in_axes and out_axes for one vmap call of `case`."""
    n = data.draw(st.sampled_from(case.sizes), label="n")
    batch = data.draw(st.sampled_from([0, 1, 2, 3, 5]), label="batch")
    shared = [spec.shareable and data.draw(st.booleans()) for spec in case.args]
    if all(shared):
        shared[data.draw(st.integers(0, len(shared) - 1))] = False
    args, in_axes = [], []
    for spec, is_shared in zip(case.args, shared):
        shape = tuple(n if d == "n" else d for d in spec.shape)
        if is_shared:
            # with no lanes, the loop's output shape comes from one made-up example: keep it valid
            value = _draw_array(data, shape, spec.kind, n, case.exact, in_range=batch == 0)
            args.append(value.item() if value.ndim == 0 else value)
            in_axes.append(None)
            continue
        stacked = _draw_array(data, (batch, *shape), spec.kind, n, case.exact)
        axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="in_axis")
        args.append(np.moveaxis(stacked, 0, axis))
        in_axes.append(axis)
    outs = [data.draw(st.integers(-r - 1, r), label="out_axis") for r in case.out_ranks]
    out_axes = tuple(outs) if case.tuple_out else outs[0]
    return args, tuple(in_axes), out_axes


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)]
                                               if c.xfail else []) for c in CASES])
@SETTINGS
@given(data=st.data())
def test_vmap_equals_loop_over_examples(case: Case, data: st.DataObject) -> None:
    args, in_axes, out_axes = draw_call(data, case)
    run_both(case.fn, in_axes, out_axes, args, exact=case.exact)


def test_every_case_compiles_without_fallback() -> None:
    """The cases above run as generated array code, not element by element."""
    rng = np.random.default_rng(0)
    for case in CASES:
        if case.xfail:
            continue
        n = case.sizes[-1]
        args = []
        for spec in case.args:
            shape = (4, *(n if d == "n" else d for d in spec.shape))
            args.append(rng.integers(0, C.NBINS, shape) if spec.kind in ("bin", "index") else rng.normal(size=shape))
        with warnings.catch_warnings():
            warnings.simplefilter("error", FallbackWarning)
            vmap(case.fn)(*args)


# --------------------------------------------------------------------------------------------
# Nesting, shared arguments, keywords, axis_size, several outputs


def test_pairwise_distance_matrix() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    pairwise = vmap(vmap(C.euclidean, (None, 0)), (0, None))
    want = np.array([[C.euclidean(x, y) for y in b] for x in a])
    got = pairwise(a, b)
    assert got.shape == (4, 6) and got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13)
    # composition: the nest equals a loop over the rows of a calling the inner vmap
    run_both(vmap(C.euclidean, (None, 0)), (0, None), 0, [a, b], exact=False)


# fn: (per-example rank of fn's output, shapes of its two arguments given sizes k, m, n,
#      inner in_axes, outer in_axes)
NESTED = {
    "scale": (C.scale, 1, lambda k, m, n: [(m, n), (k,)], (0, None), (None, 0)),
    "outer_product": (C.outer_product, 2, lambda k, m, n: [(k, 3), (m, 2)], (None, 0), (0, None)),
    "manhattan_loop": (C.manhattan_loop, 0, lambda k, m, n: [(k, 3), (m, 3)], (None, 0), (0, None)),
}


@SETTINGS
@given(data=st.data())
def test_nested_vmap_with_out_axes(data: st.DataObject) -> None:
    """vmap(vmap(f, inner_in, inner_out), outer_in, outer_out) against the nested loop."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    fn, rank, shapes, inner_in, outer_in = NESTED[data.draw(st.sampled_from(sorted(NESTED)))]
    k, m, n = (data.draw(st.sampled_from([0, 1, 2, 4])) for _ in range(3))
    args = [rng.normal(size=shape) for shape in shapes(k, m, n)]
    inner_out = data.draw(st.integers(-rank - 1, rank))
    outer_out = data.draw(st.integers(-rank - 2, rank + 1))  # the inner vmap's output has rank + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = loop_vmap(loop_vmap(fn, inner_in, inner_out), outer_in, outer_out)(*args)
    got = vmap(vmap(fn, inner_in, inner_out), outer_in, outer_out)(*args)
    assert_same(got, want, exact=True)


def test_nested_out_axes_1_transposes_the_distance_matrix() -> None:
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    rows = vmap(vmap(C.manhattan_loop, (None, 0)), (0, None))(a, b)
    cols = vmap(vmap(C.manhattan_loop, (None, 0)), (0, None), out_axes=1)(a, b)
    inner_cols = vmap(vmap(C.manhattan_loop, (None, 0), out_axes=0), (0, None), out_axes=-1)(a, b)
    assert rows.shape == (3, 4) and cols.shape == (4, 3)
    np.testing.assert_array_equal(cols, rows.T)
    np.testing.assert_array_equal(inner_cols, rows.T)


def test_three_levels_of_nesting() -> None:
    rng = np.random.default_rng(3)
    x, factor = rng.normal(size=(2, 3)), rng.normal(size=(5, 4))
    got = vmap(vmap(vmap(C.scale, (0, None)), (None, 0)), (None, 0))(x, factor)
    want = loop_vmap(loop_vmap(loop_vmap(C.scale, (0, None)), (None, 0)), (None, 0))(x, factor)
    assert got.shape == (5, 4, 2, 3)
    assert_same(got, want, exact=True)


def test_shared_arguments_are_not_mapped() -> None:
    rng = np.random.default_rng(4)
    xs, a = rng.normal(size=(7, 4)), rng.normal(size=(4, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        got = vmap(C.project, (0, None))(xs, a)
    np.testing.assert_array_equal(got, np.stack([C.project(x, a) for x in xs]))  # the same BLAS call per lane
    # a shared per-example array next to a mapped number
    got = vmap(C.horner, (None, 0))(np.array([1.0, -2.0, 0.5]), np.array([0.0, 1.0, -1.0, 2.0]))
    np.testing.assert_array_equal(got, [0.5, -0.5, 3.5, 0.5])


def test_keyword_arguments_are_mapped_over_axis_0() -> None:
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    run_both(C.axpy, (None, 1), 0, [2.0, x.T], {"y": y})
    run_both(C.axpy, (None,), 1, [2.0], {"x": x, "y": y})
    run_both(C.axpy, 0, 0, [np.array([1.0, 2.0, 3.0, 4.0])], {"y": y, "x": x})
    with pytest.raises(VectorizeValueError, match="x has 4, y has 3"):
        vmap(C.axpy, (None, 0))(2.0, x, y=y[:3])


def test_keyword_argument_with_default_left_out() -> None:
    got = vmap(C.scalar_affine)(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(got, [3.0, 5.0])
    got = vmap(C.scalar_affine, (0,))(np.array([1.0, 2.0]), b=np.array([10.0, 20.0]))
    np.testing.assert_array_equal(got, [12.0, 24.0])


def test_axis_size_with_no_mapped_input() -> None:
    got = vmap(C.fill_value, None, axis_size=3)(1.0)
    np.testing.assert_array_equal(got, np.full((3, 3), 2.5))
    got = vmap(C.fill_value, None, out_axes=1, axis_size=2)(1.0)
    assert got.shape == (3, 2)
    got = vmap(C.euclidean, (None, None), axis_size=4)(np.ones(3), np.zeros(3))
    np.testing.assert_allclose(got, np.full(4, math.sqrt(3.0)), rtol=1e-15)
    assert vmap(C.constant_of_lane, None, axis_size=0)(5).shape == (0,)
    # axis_size agrees with the mapped size, or it is an error
    assert vmap(C.scale, (0, None), axis_size=2)(np.ones((2, 3)), 2.0).shape == (2, 3)
    with pytest.raises(VectorizeValueError, match="axis_size=3"):
        vmap(C.scale, (0, None), axis_size=3)(np.ones((2, 3)), 2.0)


def test_out_axes_none_for_an_output_that_does_not_vary() -> None:
    got = vmap(C.euclidean, (None, None), out_axes=None, axis_size=3)(np.ones(2), np.zeros(2))
    assert np.ndim(got) == 0 and got == math.sqrt(2.0)
    slope, intercept = vmap(C.line_fit, (None, 0), out_axes=(None, 0))(np.array([0.0, 1.0]),
                                                                       np.array([[1.0, 1.0], [2.0, 2.0]]))
    assert slope.shape == () and slope == 0.0
    np.testing.assert_array_equal(intercept, [1.0, 2.0])


@SETTINGS
@given(data=st.data())
def test_tuple_outputs_with_one_out_axis_each(data: st.DataObject) -> None:
    """(number, number) and (number, array) results, each output with its own out_axes."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    batch = data.draw(st.sampled_from([1, 3]))  # batch 0 falls back wrongly: see the xfail below
    x = rng.normal(size=(batch, 4))
    out_axes = (data.draw(st.sampled_from([0, -1])), data.draw(st.integers(-2, 1)))
    in_axis = data.draw(st.sampled_from([0, 1, -1]))
    run_both(C.mean_and_centered, in_axis, out_axes, [np.moveaxis(x, 0, in_axis)], exact=False)
    run_both(C.min_max, in_axis, out_axes[:1] + (0,), [np.moveaxis(x, 0, in_axis)])


def test_empty_batch_of_a_tuple_function_that_falls_back() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        got = vmap(C.mean_and_centered)(np.ones((0, 3)))
    assert isinstance(got, tuple) and len(got) == 2 and all(g.shape[:1] == (0,) for g in got)


def test_empty_batch_of_a_tuple_function_with_per_output_out_axes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        mean, centered = vmap(C.mean_and_centered, 1, (0, 0))(np.ones((3, 0)))
        assert mean.shape == (0,) and centered.shape[:1] == (0,)  # per-example sizes are unknown without a lane
        got = vmap(vmap(C.mean_and_centered))(np.ones((2, 0, 3)))
    assert isinstance(got, tuple) and [g.shape[:2] for g in got] == [(2, 0), (2, 0)]


def test_source_before_the_first_call_says_why() -> None:
    for vf in (vmap(C.euclidean), vmap(C.pick, (None, 0)), vmap(vmap(C.euclidean, (None, 0)), (0, None))):
        with pytest.raises(VectorizeError, match="at the first call") as info:
            vf.source  # noqa: B018
        assert "len() is only supported" not in str(info.value) and info.value.hint
    vf = vmap(C.euclidean)
    vf(np.ones((4, 3)), np.zeros((4, 3)))
    assert "def euclidean" in vf.source


def test_fallback_warning_points_at_the_callers_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vmap(C.mean_and_centered)(np.ones((2, 3)))
        vmap(vmap(C.mean_and_centered), 1)(np.ones((2, 3, 4)))
    fallbacks = [w for w in caught if issubclass(w.category, FallbackWarning)]
    assert [w.filename for w in fallbacks] == [__file__] * 2, [(w.filename, str(w.message)) for w in caught]


def test_empty_batch_gives_empty_outputs_of_the_right_shape() -> None:
    assert vmap(C.euclidean)(np.ones((0, 3)), np.ones((0, 3))).shape == (0,)
    assert vmap(C.softmax)(np.ones((0, 3))).shape == (0, 3)
    assert vmap(C.softmax, 1, 1)(np.ones((3, 0))).shape == (3, 0)
    assert [a.shape for a in vmap(C.line_fit)(np.ones((0, 3)), np.ones((0, 3)))] == [(0,), (0,)]
    assert vmap(C.outer_product, (0, None), 2)(np.ones((0, 3)), np.ones(2)).shape == (3, 2, 0)


# --------------------------------------------------------------------------------------------
# Errors


def test_mismatched_sizes_name_the_arguments() -> None:
    with pytest.raises(VectorizeValueError, match="different sizes.*x has 4, y has 5"):
        vmap(C.euclidean)(np.ones((4, 3)), np.ones((5, 3)))
    with pytest.raises(VectorizeValueError, match="x has 3, y has 2"):
        vmap(C.euclidean, (1, 0))(np.ones((4, 3)), np.ones((2, 4)))
    with pytest.raises(VectorizeValueError, match="different sizes"):  # the inner level of a nest
        vmap(vmap(C.euclidean))(np.ones((2, 4, 3)), np.ones((2, 5, 3)))


def test_nothing_mapped_without_axis_size() -> None:
    with pytest.raises(VectorizeValueError, match="at least one mapped argument"):
        vmap(C.euclidean, (None, None))(np.ones(3), np.ones(3))
    with pytest.raises(VectorizeValueError, match="at least one mapped argument"):
        vmap(C.fill_value, None)(1.0)


def test_out_of_range_in_axes() -> None:
    with pytest.raises(VectorizeValueError, match="'x' over axis 2, but it has rank 2"):
        vmap(C.euclidean, (2, 0))(np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(VectorizeValueError, match="'y' over axis -3, but it has rank 2"):
        vmap(C.euclidean, (0, -3))(np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(VectorizeValueError, match="a number cannot be mapped"):
        vmap(C.scale)(np.ones((3, 4)), 2.0)


def test_out_of_range_out_axes() -> None:
    with pytest.raises(VectorizeValueError, match="out_axes 2 is out of bounds for an output of rank 1"):
        vmap(C.scale, (0, None), out_axes=2)(np.ones((3, 4)), 2.0)
    with pytest.raises(VectorizeValueError, match="out_axes -3 is out of bounds"):
        vmap(C.scale, (0, None), out_axes=-3)(np.ones((3, 4)), 2.0)
    with pytest.raises(VectorizeValueError, match="out_axes has 3 entries for 2 returned values"):
        vmap(C.min_max, out_axes=(0, 0, 0))(np.ones((3, 4)))


def test_out_axes_none_on_a_varying_output() -> None:
    with pytest.raises(VectorizeValueError, match="out_axes=None, but the output varies"):
        vmap(C.euclidean, out_axes=None)(np.arange(6.0).reshape(3, 2), np.zeros((3, 2)))
    with pytest.raises(VectorizeValueError, match="out_axes=None, but the output varies"):
        vmap(C.min_max, out_axes=(0, None))(np.arange(6.0).reshape(3, 2))


def test_bad_axes_specifications() -> None:
    with pytest.raises(VectorizeValueError, match="in_axes has 2 entries, but the function was called with 3"):
        vmap(C.axpy, (None, 0))(2.0, np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(VectorizeValueError, match="must be an int, None, or a tuple"):
        vmap(C.scale, in_axes=True)
    with pytest.raises(VectorizeValueError, match="must be an int, None, or a tuple"):
        vmap(C.scale, out_axes="0")
    with pytest.raises(VectorizeValueError, match="as a dict"):
        vmap(C.scale, in_axes={"x": 0})
    with pytest.raises(VectorizeValueError, match="axis_size must be a non-negative int"):
        vmap(C.scale, axis_size=-1)


# --------------------------------------------------------------------------------------------
# Exceptions raised by some lanes


@SETTINGS
@given(data=st.data())
def test_lane_exception_is_the_first_failing_lane(data: st.DataObject) -> None:
    """An index read out of range on some lanes: the same IndexError as the loop's first failure."""
    batch = data.draw(st.integers(1, 6))
    idx = np.array(data.draw(st.lists(st.integers(-6, 5), min_size=batch, max_size=batch)))
    x = np.arange(batch * 4, dtype=np.float64).reshape(batch, 4)
    axis = data.draw(st.sampled_from([0, 1, -1]))
    run_both(C.pick, (axis, 0), 0, [np.moveaxis(x, 0, axis), idx])


def test_lane_exception_message_type_and_note() -> None:
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([0, 7, -9])
    with pytest.raises(IndexError) as scalar:
        C.pick(x[1], 7)
    with pytest.raises(IndexError) as batched:
        vmap(C.pick)(x, idx)
    assert str(batched.value) == str(scalar.value) == "index 7 is out of bounds for axis 0 with size 4"
    assert "lane (1,)" in " ".join(batched.value.__notes__)


def test_lane_exception_in_a_grid_is_first_in_c_order() -> None:
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([1, 9, 2, -7])
    grid = vmap(vmap(C.pick, (None, 0)), (0, None))
    with pytest.raises(IndexError, match="index 9 is out of bounds") as info:
        grid(x, idx)
    assert "lane (0, 1)" in " ".join(info.value.__notes__)
    run_both(vmap(C.pick, (None, 0)), (0, None), 0, [x, idx])


def test_bin_index_out_of_range_raises_like_the_loop() -> None:
    bins = np.array([[0, 1, 2], [3, 4, 0], [9, 0, 0]])
    run_both(C.count_in_bins, 0, 0, [bins])
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        vmap(C.count_in_bins)(bins)


# --------------------------------------------------------------------------------------------
# Findings: refusals of natural code, and engine bugs (strict xfails: they pass once fixed)


@pytest.mark.parametrize(("fn", "message"), [
    (C.mean_and_centered, "an array cannot be used as a number here"),  # a tuple holding an array
    (C.sum_by_iteration, "'for' loops must iterate over range"),
    (C.standardize_std, "np.std has no batching rule"),
    (C.two_rows, "tuples are only supported in"),
    (C.columns_of_transpose, "attribute access is only supported for math"),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_refused_and_run_element_by_element(fn, message) -> None:
    """Natural code outside the subset falls back (exact, slow) with a FallbackWarning saying why."""
    x = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.0]])
    with pytest.warns(FallbackWarning, match=message), np.errstate(all="ignore"):
        got = vmap(fn)(x)
    assert_same(got, loop_vmap(fn)(x), exact=True)


def test_a_reduction_method_of_an_expression_is_vectorized() -> None:
    """`np.abs(x).max()` (refused, element by element, until this stop): one
    np.max over the example axis, NaN and infinities as the loop gives them."""
    x = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.0], [np.nan, 1.0, 2.0], [-0.0, 0.0, -np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        got = vmap(C.largest_magnitude)(x)
    assert_same(got, loop_vmap(C.largest_magnitude)(x), exact=True)


def test_matmul_operator_is_vectorized() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        vmap(C.project, (0, None))(np.ones((2, 3)), np.ones((3, 2)))


def test_reduction_of_a_row_inside_a_loop() -> None:
    a = np.arange(18.0).reshape(2, 3, 3)
    got = vmap(C.row_sums_loop)(a)
    np.testing.assert_array_equal(got, np.stack([C.row_sums_loop(r) for r in a]))


def test_row_times_element_inside_a_loop() -> None:
    a, w = np.arange(18.0).reshape(2, 3, 3), np.array([[1.0, 10.0, 100.0], [2.0, 3.0, 4.0]])
    got = vmap(C.row_scale_loop)(a, w)
    np.testing.assert_array_equal(got, np.stack([C.row_scale_loop(r, v) for r, v in zip(a, w)]))


def test_zeros_like_of_a_mapped_array() -> None:
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.5, -1.0]])
    got = vmap(C.relu_loop)(x)
    np.testing.assert_array_equal(got, [[1.0, 0.0, 3.0], [0.5, 0.5, 0.0]])


def test_clip_loop_with_a_shared_array_and_mapped_bounds() -> None:
    """Was silently wrong (every lane not taking the `if` got hi): BUG_UNIFORM_ELIF."""
    x, lo = np.array([0.0, 0.5, 2.0]), np.array([0.0, 1.0])
    got = vmap(C.clip_loop, (None, 0, None))(x, lo, 1.5)
    np.testing.assert_array_equal(got, np.stack([C.clip_loop(x.copy(), float(b), 1.5) for b in lo]))


def test_contractions_keep_the_sign_of_zero() -> None:
    got = vmap(C.outer_product, (0, None))(np.array([[0.0]]), np.array([0.0, -0.0]))
    assert np.signbit(got[0, 0, 1])
    got = vmap(C.weighted_sum, (0, None))(np.array([[-0.0]]), np.array([1.0]))
    assert np.signbit(got[0])  # np.dot([-0.0], [1.0]) is -0.0


def test_argmax_by_loop() -> None:
    x = np.array([[1.0, 3.0, 2.0], [np.inf, 0.0, 5.0], [0.0, -1.0, -2.0]])
    np.testing.assert_array_equal(vmap(C.argmax_loop)(x), [1, 0, 0])


# --------------------------------------------------------------------------------------------
# The generated code has no loop over the lanes


def _loops(source: str) -> list[ast.For | ast.While]:
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.For | ast.While)]


def test_generated_code_has_no_loop_over_lanes() -> None:
    for fn in (C.euclidean, C.softmax, C.cosine_similarity):
        vf = vmap(fn) if fn is C.softmax else vmap(fn, (0, None))
        args = (np.ones((50, 5)),) if fn is C.softmax else (np.ones((50, 5)), np.ones(5))
        vf(*args)
        assert "np." in vf.source and not _loops(vf.source), vf.source
    # a loop over the 5 elements of each example stays a loop over 5, whatever the batch size
    vf = vmap(C.manhattan_loop)
    vf(np.ones((50, 5)), np.zeros((50, 5)))
    source = vf.source
    vf(np.ones((3, 5)), np.zeros((3, 5)))
    assert vf.source == source
    (loop,) = _loops(source)
    assert ast.unparse(loop.iter) in ("np.arange(5)", "range(5)"), ast.unparse(loop.iter)


# --------------------------------------------------------------------------------------------
# The same layouts as JAX's own vmap


@SETTINGS
@given(data=st.data())
def test_layouts_agree_with_jax(data: st.DataObject) -> None:
    """Two levels of vmap over x * factor, any in_axes/out_axes: the same array as jax.vmap's."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    inner_in, inner_out = data.draw(st.integers(-2, 1)), data.draw(st.integers(-2, 1))
    outer_out = data.draw(st.integers(-3, 2))
    rows = np.moveaxis(rng.normal(size=(3, 4)), 0, inner_in)  # what the inner level maps
    if data.draw(st.booleans(), label="outer level maps x"):
        outer_in = (data.draw(st.integers(-3, 2)), None)
        args = (np.moveaxis(np.stack([rows, 2.0 * rows]), 0, outer_in[0]), 1.5)
    else:
        outer_in = (None, 0)
        args = (rows, rng.normal(size=2))
    ours = vmap(vmap(C.scale, (inner_in, None), inner_out), outer_in, outer_out)
    theirs = jax.vmap(jax.vmap(lambda v, k: v * k, (inner_in, None), inner_out), outer_in, outer_out)
    want = np.asarray(theirs(*(jax.numpy.asarray(a) for a in args)))
    got = ours(*args)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------------------------
# The benchmark script runs (tiny sizes, no timing asserted)


def test_bench_vmap_smoke() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_vmap.py"), "--rows", "50",
                           "--dim", "4", "--repeats", "2"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}"
    assert "| kernel |" in proc.stdout and "vectorizer.vmap" in proc.stdout
    assert "MISMATCH" not in proc.stdout
