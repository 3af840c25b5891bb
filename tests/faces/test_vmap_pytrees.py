"""`vmap` over pytrees, as JAX maps them (issue 31): tuples, lists, dicts, namedtuples and
dataclasses of arrays as arguments and results, in_axes/out_axes as prefix trees, None leaves,
nesting, and errors that name the leaf.

The oracle is the loop the vmap stands for, written out per case below: take example b of each
mapped leaf (`np.take(leaf, b, axis)`, a number as a Python scalar), call f, and stack each result
leaf along its out axis. Where JAX is installed, `jax.vmap` of the same function is a second
oracle for the layout (tree structure, shapes) and the values (on ordinary floats: XLA's CPU code
may flush subnormals, so the hostile values are checked against the loop alone).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections import namedtuple
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import SPECIAL_FLOATS

from vectorizer import FallbackWarning, VectorizeError, VectorizeValueError, vmap

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
Pair = namedtuple("Pair", "lo hi")


@dataclass
class State:
    pos: Any
    vel: Any


def dict_model(p):
    return {"y": p["x"] * p["w"], "first": p["x"][0] - p["b"]}


def widen(pair, k):
    return Pair(pair.lo - k, pair.hi + k), (pair.hi - pair.lo, k * 2.0)


def step(s, dt):
    return State(s.pos + dt * s.vel, s.vel)


def total(parts):
    return parts[0] + parts[1]


def maybe_total(parts):
    return total(parts)


def maybe_add(x, extra):
    return x if extra is None else x + extra


def scale(x, k):
    return x * k


def split(x, k):
    return x * k, x - k


def kinds(p):
    return {"float": float(isinstance(p["v"], float)), "array": float(isinstance(p["row"], np.ndarray))}


def ex(a: np.ndarray, axis: int | None, b: int) -> Any:
    """Example b of a leaf mapped over `axis` (None: the leaf itself)."""
    if axis is None:
        return a
    s = np.take(a, b, axis=axis)
    return s.item() if s.ndim == 0 else s


def stack(column: list[Any], axis: int) -> np.ndarray:
    return np.moveaxis(np.stack([np.asarray(v) for v in column]), 0, axis)


def assert_same(got: Any, want: Any) -> None:
    """Same containers (type, keys) and leaves: shape, dtype, values, NaNs and signs of zero."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want) or sorted(got) == sorted(want), (list(got), list(want))
        for k in want:
            assert_same(got[k], want[k])
    elif isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif isinstance(want, State):
        assert_same(vars(got), vars(want))
    else:
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_array_equal(g, w)
        if w.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", FallbackWarning)
        return f(*args, **kwargs)


def hostile(data: st.DataObject, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    values = data.draw(st.lists(st.sampled_from(SPECIAL_FLOATS) | st.floats(-1e3, 1e3), min_size=n, max_size=n))
    return np.array(values, dtype=np.float64).reshape(shape)


def with_jax():
    try:
        import jax
    except ImportError:
        return None
    return jax.config.update("jax_enable_x64", True) or jax


def jax_agrees(f, in_axes, out_axes, args, got) -> None:
    """jax.vmap gives the same tree, shapes and values (where JAX is installed)."""
    jax = with_jax()
    if jax is None:
        return
    to_jax = lambda tree: jax.tree_util.tree_map(jax.numpy.asarray, tree)  # noqa: E731
    want = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)(*to_jax(args))
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree, (got_tree, want_tree)
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# --------------------------------------------------------------------------------------------
# Differential tests against the loop, hypothesis choosing shapes and axes


@SETTINGS
@given(data=st.data())
def test_dict_in_dict_out_with_prefix_axes(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(0, 4), label="batch"), data.draw(st.integers(1, 3), label="dim")
    ax, oy = data.draw(st.sampled_from([0, 1, -1, -2])), data.draw(st.sampled_from([0, 1, -1, -2]))
    ofirst, b_mapped = data.draw(st.sampled_from([0, -1])), data.draw(st.booleans())
    x = np.moveaxis(hostile(data, (n, d)), 0, ax)
    w, bias = hostile(data, (d,)), hostile(data, (n,)) if b_mapped else 0.5
    in_axes = ({"x": ax, "w": None, "b": 0 if b_mapped else None},)
    out_axes = {"y": oy, "first": ofirst}
    p = {"x": x, "w": w, "b": bias}
    got = quiet(vmap(dict_model, in_axes, out_axes), p)
    if n:
        outs = [quiet(dict_model, {"x": ex(x, ax, i), "w": w, "b": ex(bias, 0 if b_mapped else None, i)}) for i in range(n)]
        want = {"first": stack([o["first"] for o in outs], ofirst), "y": stack([o["y"] for o in outs], oy)}
        assert_same(got, want)
    else:
        assert got["y"].shape == np.moveaxis(np.empty((0, d)), 0, oy).shape and got["first"].shape == (0,)
    finite = {"x": np.moveaxis(np.arange(n * d, dtype=float).reshape(n, d) - 2.5, 0, ax), "w": np.full(d, 1.5),
              "b": np.arange(n) * 0.25 if b_mapped else 0.5}
    if n:
        jax_agrees(dict_model, in_axes, out_axes, (finite,), quiet(vmap(dict_model, in_axes, out_axes), finite))


@SETTINGS
@given(data=st.data())
def test_namedtuple_and_tuple_in_and_out(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    lo_ax, k_ax = data.draw(st.sampled_from([0, 1, -1])), data.draw(st.sampled_from([0, None]))
    out_hi = data.draw(st.sampled_from([0, 1, -1]))
    lo, hi = np.moveaxis(hostile(data, (n, d)), 0, lo_ax), hostile(data, (d,))
    k = hostile(data, (n,)) if k_ax == 0 else 2.0
    in_axes, out_axes = (Pair(lo_ax, None), k_ax), (Pair(0, out_hi), 0)
    got = quiet(vmap(widen, in_axes, out_axes), Pair(lo, hi), k)
    outs = [widen(Pair(ex(lo, lo_ax, i), hi), ex(k, k_ax, i) if k_ax is not None else k) for i in range(n)]
    want = (Pair(stack([o[0].lo for o in outs], 0), stack([o[0].hi for o in outs], out_hi)),
            (stack([o[1][0] for o in outs], 0), stack([o[1][1] for o in outs], 0)))
    assert_same(got, want)
    finite = (Pair(np.moveaxis(np.arange(n * d, dtype=float).reshape(n, d), 0, lo_ax), np.ones(d)),
              np.arange(n) / 4.0 if k_ax == 0 else 2.0)
    jax_agrees(widen, in_axes, out_axes, finite, quiet(vmap(widen, in_axes, out_axes), *finite))


@SETTINGS
@given(data=st.data())
def test_dataclass_and_list_arguments(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    vel_ax = data.draw(st.sampled_from([0, 1, None]))
    pos = hostile(data, (n, d))
    vel = hostile(data, (n, d) if vel_ax == 0 else (d, n) if vel_ax == 1 else (d,))
    got = quiet(vmap(step, (State(0, vel_ax), None)), State(pos, vel), 0.5)
    outs = [step(State(pos[i], ex(vel, vel_ax, i)), 0.5) for i in range(n)]
    want_vel = stack([o.vel for o in outs], 0)
    assert_same(got, State(stack([o.pos for o in outs], 0), want_vel))
    a, b = hostile(data, (n, d)), hostile(data, (d, n))
    assert_same(quiet(vmap(total, ([0, 1],)), [a, b]), stack([total([a[i], b[:, i]]) for i in range(n)], 0))
    jax_agrees(total, ([0, 1],), 0, ([np.ones((n, d)), np.arange(n * d, dtype=float).reshape(d, n)],),
               quiet(vmap(total, ([0, 1],)), [np.ones((n, d)), np.arange(n * d, dtype=float).reshape(d, n)]))


@SETTINGS
@given(data=st.data())
def test_nested_vmap_over_pytrees(data: st.DataObject) -> None:
    """The outer level maps x's axis `outer` and b; the inner one maps x's axis 0 (of what is left)."""
    m, n, d = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    outer = data.draw(st.sampled_from([0, 1, 2]))
    x = np.moveaxis(hostile(data, (m, n, d)), 0, outer)
    w, bias = hostile(data, (d,)), hostile(data, (m,))
    inner_f = vmap(dict_model, ({"x": 0, "w": None, "b": None},), {"y": 0, "first": 0})
    f = vmap(inner_f, ({"x": outer, "w": None, "b": 0},), {"y": 1, "first": 0})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="ignore"):
            got = f({"x": x, "w": w, "b": bias})
    assert len([c for c in caught if issubclass(c.category, FallbackWarning)]) == 1  # one, not one per example
    rows = []
    for i in range(m):
        xi = np.take(x, i, axis=outer)
        rows.append([quiet(dict_model, {"x": xi[j], "w": w, "b": bias[i].item()}) for j in range(n)])
    want = {"first": np.array([[r["first"] for r in row] for row in rows]),
            "y": np.moveaxis(np.array([[r["y"] for r in row] for row in rows]), 0, 1)}
    assert_same(got, want)
    finite = {"x": np.moveaxis(np.arange(m * n * d, dtype=float).reshape(m, n, d), 0, outer), "w": np.ones(d),
              "b": np.arange(m) / 2.0}
    jax = with_jax()
    if jax is not None:
        jinner = jax.vmap(dict_model, ({"x": 0, "w": None, "b": None},), {"y": 0, "first": 0})
        jax_agrees(jinner, ({"x": outer, "w": None, "b": 0},), {"y": 1, "first": 0}, (finite,), quiet(f, finite))


def test_keyword_pytrees_map_every_leaf_over_axis_0() -> None:
    x, w = np.arange(6.0).reshape(3, 2), np.array([1.0, -2.0, 0.5])
    got = quiet(vmap(dict_model), p={"x": x, "w": w, "b": np.zeros(3)})
    want = {"first": x[:, 0], "y": x * w[:, None]}
    assert_same(got, want)
    if (jax := with_jax()) is not None:
        assert_same({k: np.asarray(v) for k, v in jax.vmap(dict_model)(p={"x": x, "w": w, "b": np.zeros(3)}).items()},
                    want)


def test_none_is_an_empty_pytree_passed_through() -> None:
    x = np.array([[1.0, -0.0], [np.inf, 2.0]])
    assert_same(quiet(vmap(maybe_add), x, None), x)
    assert_same(quiet(vmap(maybe_add, (0, 0)), x, None), x)
    if (jax := with_jax()) is not None:
        assert_same(np.asarray(jax.vmap(maybe_add)(x, None)), x)


def test_axis_size_with_no_mapped_leaf_and_out_axes_none() -> None:
    p = {"x": np.array([2.0, 3.0]), "w": np.array([0.5, -1.0]), "b": 1.0}
    got = quiet(vmap(dict_model, None, {"y": 0, "first": None}, axis_size=3), p)
    one = dict_model(p)
    assert_same(got, {"first": np.asarray(one["first"]), "y": np.stack([one["y"]] * 3)})


def test_a_function_returning_a_dict_of_arrays() -> None:
    """The issue's first finding: vmap(f) with f returning a dict failed in float()."""
    def moments(v):  # a dict literal of leaves, but one leaf is a per-example array next to another
        return {"mean": v.mean(), "centered": v - v.mean()}  # leaf, which the engine refuses: the loop

    x = np.array([[1.0, 2.0, 6.0], [-1.0, 0.0, 1.0]])
    with pytest.warns(FallbackWarning, match="runs example by example.*an array cannot be used as a number") as caught:
        got = vmap(moments)(x)
    assert [w.filename for w in caught if issubclass(w.category, FallbackWarning)] == [__file__]  # the caller's line
    assert_same(got, {"centered": stack([moments(r)["centered"] for r in x], 0),
                      "mean": stack([moments(r)["mean"] for r in x], 0)})


@pytest.mark.numba
def test_pytree_plumbing_around_a_compiled_inner_vmap() -> None:
    """The outer level loops over dicts; the inner leaf-only level (numbers per lane: the Numba
    backend takes no per-example arrays) is generated code on Numba."""
    inner = vmap(scale, backend="numba")

    def outer(p):
        return {"z": inner(p["x"], p["k"])}

    x, k = np.arange(6.0).reshape(2, 3) - 3.0, np.array([[1.0, -0.0, 2.0], [np.inf, 0.5, -3.0]])
    got = quiet(vmap(outer, ({"x": 0, "k": 0},)), {"x": x, "k": k})
    with np.errstate(all="ignore"):
        want = {"z": np.array([[scale(x[i, j].item(), k[i, j].item()) for j in range(3)] for i in range(2)])}
    assert_same(got, want)
    assert inner._vf.backend == "numba" and "def scale" in inner.source


# --------------------------------------------------------------------------------------------
# Errors name the leaf


def test_inconsistent_sizes_name_each_leaf() -> None:
    with pytest.raises(VectorizeValueError, match=r"different sizes.*p\['w'\] has 4.*p\['x'\] has 3"):
        quiet(vmap(dict_model), {"x": np.ones((3, 2)), "w": np.ones(4), "b": np.ones(3)})
    with pytest.raises(VectorizeValueError, match=r"pair\.hi has 4"):
        quiet(vmap(widen), Pair(np.ones(3), np.ones(4)), np.ones(3))
    with pytest.raises(VectorizeValueError, match=r"axis_size=2 but the mapped axes have size 3 \(parts\[0\], parts\[1\]\)"):
        quiet(vmap(total, axis_size=2), [np.ones(3), np.ones(3)])
    jax = with_jax()
    if jax is not None:
        with pytest.raises(ValueError, match="inconsistent sizes"):
            jax.vmap(dict_model)({"x": np.ones((3, 2)), "w": np.ones(4), "b": np.ones(3)})


def test_a_prefix_that_does_not_fit_names_the_place() -> None:
    p = {"x": np.ones((3, 2)), "w": np.ones(2), "b": 1.0}
    with pytest.raises(VectorizeValueError, match=r"tree prefix.*at p the specification is a dict with keys "
                                                  r"\['x'\] but the value is a dict with keys \['b', 'w', 'x'\]"):
        quiet(vmap(dict_model, ({"x": 0},)), p)
    with pytest.raises(VectorizeValueError, match=r"at pair the specification is a tuple of length 2 but the value is "
                                                  r"a Pair"):
        quiet(vmap(widen, ((0, None), None)), Pair(np.ones(3), np.ones(3)), 1.0)
    with pytest.raises(VectorizeValueError, match=r"map argument p\['w'\] over axis 1, but it has rank 1"):
        quiet(vmap(dict_model, ({"x": 0, "w": 1, "b": None},)), p)
    with pytest.raises(VectorizeValueError, match=r"map argument p\['b'\] over axis 0.*a number cannot be mapped"):
        quiet(vmap(dict_model), p)
    with pytest.raises(VectorizeValueError, match="in_axes has 1 entries, but the function was called with 2"):
        quiet(vmap(widen, (0,)), Pair(np.ones(3), np.ones(3)), np.ones(3))


def test_output_errors_name_the_leaf() -> None:
    p = {"x": np.arange(6.0).reshape(3, 2), "w": np.ones(2), "b": 0.0}
    with pytest.raises(VectorizeValueError, match=r"out_axes=None, but the output varies.*at out\['y'\]"):
        quiet(vmap(dict_model, ({"x": 0, "w": None, "b": 0},), {"y": None, "first": 0}), p | {"b": np.zeros(3)})
    with pytest.raises(VectorizeValueError, match=r"out_axes 2 is out of bounds for an output of rank 0 \(at out\['first'\]\)"):
        quiet(vmap(dict_model, ({"x": 0, "w": None, "b": None},), 2), p)
    with pytest.raises(VectorizeValueError, match=r"at out the specification is a dict with keys \['y'\]"):
        quiet(vmap(dict_model, ({"x": 0, "w": None, "b": None},), {"y": 0}), p)

    def ragged(v):
        return {"a": v} if v > 0 else {"b": v}

    with pytest.raises(VectorizeValueError, match=r"returned a dict with keys \['a'\] for example 0 but a dict with "
                                                  r"keys \['b'\] for example 1"):
        quiet(vmap(ragged), np.array([1.0, -1.0]))


def test_bad_specifications_and_fallback_error() -> None:
    with pytest.raises(VectorizeValueError, match="in_axes as a dict"):
        vmap(dict_model, in_axes={"p": 0})
    with pytest.raises(VectorizeValueError, match="must be an int, None, or a tuple"):
        vmap(dict_model, in_axes=({"x": 0.0},))
    with pytest.raises(VectorizeValueError, match="must be an int, None, or a tuple"):
        vmap(dict_model, out_axes={"y": True})
    with pytest.raises(VectorizeError, match=r"cannot run as generated code: parameter parts is used other than"):
        vmap(maybe_total, fallback="error")(Pair(np.ones(2), np.ones(2)))
    np.testing.assert_array_equal(vmap(total, fallback="error")(Pair(np.ones(2), np.ones(2))), np.full(2, 2.0))
    strict = vmap(dict_model, fallback="error")  # pytree functions are judged at the call, on their leaves
    with pytest.raises(VectorizeError, match="an array cannot be used as a number"):
        strict({"x": np.ones((3, 2)), "w": np.ones((3, 2)), "b": np.zeros(3)})


def test_callables_that_are_not_python_functions_run_example_by_example() -> None:
    x = np.array([0.0, -0.0, 1.5, np.inf])
    with pytest.warns(FallbackWarning, match="not a Python function"), np.errstate(all="ignore"):
        got = vmap(math.atan)(x)
    assert_same(got, stack([math.atan(v) for v in x.tolist()], 0))
    with pytest.warns(FallbackWarning, match="not a Python function"):
        got = vmap(functools.partial(scale, k=3.0))(x)
    assert_same(got, stack([scale(v, 3.0) for v in x.tolist()], 0))
    with pytest.raises(VectorizeError, match="compiles Python functions"):
        vmap(math.atan, fallback="error")


def test_vmap_as_a_decorator_through_partial() -> None:
    @functools.partial(vmap, in_axes=({"x": 0, "w": None, "b": None},))
    def model(p):
        return {"y": p["x"] * p["w"]}

    got = quiet(model, {"x": np.arange(4.0).reshape(2, 2), "w": np.array([1.0, -1.0]), "b": 0.0})
    assert_same(got, {"y": np.array([[0.0, -1.0], [2.0, -3.0]])})


def test_axis_name_and_spmd_axis_name_are_refused_saying_why() -> None:
    with pytest.raises(VectorizeError, match="collectives"):
        vmap(scale, axis_name="batch")
    with pytest.raises(VectorizeError, match="does not shard over devices"):
        vmap(scale, spmd_axis_name="data")


def test_top_level_lists_for_in_axes_and_out_axes() -> None:
    """A list where JAX wants a tuple: JAX takes a top-level in_axes list; a list out_axes for a
    tuple result is accepted here as vmap always took it (JAX refuses it)."""
    x, k = np.array([1.0, -0.0, 3.0, np.inf, np.nan]), 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # numbers: generated code
        got = vmap(split, [0, None], [0, -1])(x, k)
    with np.errstate(all="ignore"):
        outs = [split(v, k) for v in x.tolist()]
    assert_same(got, (stack([o[0] for o in outs], 0), stack([o[1] for o in outs], 0)))
    a, b = np.arange(6.0).reshape(3, 2), np.arange(6.0).reshape(2, 3)
    assert_same(quiet(vmap(total, [[0, 1]]), [a, b]), stack([a[i] + b[:, i] for i in range(3)], 0))
    jax = with_jax()
    if jax is not None:
        np.testing.assert_array_equal(np.asarray(jax.vmap(total, [[0, 1]])([a, b])), a + b.T)


def test_a_mapped_number_is_a_python_scalar_per_example() -> None:
    """The scalar contract: example b of a mapped 1-d leaf is a Python number (JAX: a 0-d array)."""
    got = quiet(vmap(kinds), {"v": np.array([1.5, -0.0]), "row": np.ones((2, 3))})
    assert_same(got, {"array": np.array([1.0, 1.0]), "float": np.array([1.0, 1.0])})
