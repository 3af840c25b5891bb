"""vmap's compiled path for pytrees (issue 31): a function that reads its pytree parameters by
constant subscripts/attributes and returns pytree literals runs as generated code on its leaves
(vectorizer/faces/pytree_flat.py, vmap_compile.py); anything else runs example by example, with
a FallbackWarning that says why.

The oracle is the loop vmap stands for, written out here: example b of each mapped leaf
(`np.take(leaf, b, axis)`, a number as a Python scalar), f called on the rebuilt trees, each
result leaf stacked along its out axis. "Compiled" is asserted by turning FallbackWarning into an
error around the call: the per-example path always warns.
"""

from __future__ import annotations

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

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
Quote = namedtuple("Quote", "bid ask")


@dataclass
class Particle:
    x: Any
    v: Any


def spread(p):
    mid = (p["bid"] + p["ask"]) / 2.0
    width = p["ask"] - p["bid"]
    if width < 0.0:
        width = -width
    return {"mid": mid, "rel": width / (mid + p["eps"]), "top": np.max(p["row"]), "wide": width > p["limit"]}


def quote_step(q, tick):
    lo, hi = tick
    return Quote(max(q.bid, lo), min(q[1], hi)), (hi - lo) * 0.5


def fall(s, dt):
    x, v = s.x, s.v
    n = 0
    while x > 0.0 and n < 20:
        v = v - 9.81 * dt
        x = x + v * dt
        n += 1
    return Particle(x=x, v=v)


def nested_read(p):
    return {"a": p["inner"]["u"] * p["w"], "b": (p["inner"]["v"], None)}


def checked(p):
    if p["x"] < 0.0:
        raise ValueError(f"negative x: {p['x']}")
    return {"root": math.sqrt(p["x"]), "inv": 1.0 / p["x"]}


def in_source_order(p):
    return {"b": 1.0 / p["x"], "a": math.log(p["x"])}  # Python evaluates b first: ZeroDivisionError at 0


def passes_on(p):
    return spread(p)


def counts(t):
    return len(t) * t[0]


def ragged(p):
    if p["x"] > 0:
        return {"a": p["x"]}
    return {"b": p["x"]}


def labelled(p):
    return {"y": p["x"] * 2.0}


def ex(a: Any, axis: int | None, b: int) -> Any:
    if axis is None:
        return a
    s = np.take(np.asarray(a), b, axis=axis)
    return s.item() if s.ndim == 0 else s


def stack(column: list[Any], axis: int) -> np.ndarray:
    return np.moveaxis(np.stack([np.asarray(v) for v in column]), 0, axis)


def assert_same(got: Any, want: Any) -> None:
    """Same containers and leaves: shape, dtype, values, NaNs and signs of zero."""
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            assert_same(got[k], want[k])
    elif isinstance(want, tuple | list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif isinstance(want, Particle):
        assert_same(vars(got), vars(want))
    elif want is None:
        assert got is None
    else:
        g, w = np.asarray(got), np.asarray(want)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_array_equal(g, w)
        if w.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))


def compiled(f, *args, **kwargs):
    """Call f; fail if it runs example by example (the per-example path always warns)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("error", FallbackWarning)
        return f(*args, **kwargs)


def hostile(data: st.DataObject, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    values = data.draw(st.lists(st.sampled_from(SPECIAL_FLOATS) | st.floats(-1e3, 1e3), min_size=n, max_size=n))
    return np.array(values, dtype=np.float64).reshape(shape)


@SETTINGS
@given(data=st.data())
def test_dict_in_dict_out_runs_compiled_and_equals_the_loop(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(0, 5), label="batch"), data.draw(st.integers(1, 3), label="dim")
    mapped = {k: data.draw(st.booleans(), label=f"{k} mapped") for k in ("bid", "ask", "eps")}
    row_axis = data.draw(st.sampled_from([0, 1, -1, None]), label="row axis")
    out = {k: data.draw(st.sampled_from([0, -1])) for k in ("mid", "rel", "top", "wide")}
    leaves = {k: hostile(data, (n,)) if mapped[k] else float(hostile(data, (1,))[0]) for k in mapped}
    row = hostile(data, (d,) if row_axis is None else (n, d) if row_axis in (0, -2) else (d, n))
    if row_axis is not None and not any(mapped.values()):
        mapped["bid"], leaves["bid"] = True, hostile(data, (n,))
    if row_axis is None and not any(mapped.values()):
        mapped["bid"], leaves["bid"] = True, hostile(data, (n,))
    p = {**leaves, "row": row, "limit": 1.5}
    spec = {**{k: 0 if mapped[k] else None for k in mapped}, "row": row_axis, "limit": None}
    try:
        with np.errstate(all="ignore"):
            outs = [spread({k: ex(v, spec[k], b) for k, v in p.items()}) for b in range(n)]
    except ArithmeticError as exc:  # the first failing example's exception, type and message
        with pytest.raises(type(exc)) as raised:
            compiled(vmap(spread, (spec,), out), p)
        assert str(raised.value) == str(exc)
        return
    got = compiled(vmap(spread, (spec,), out), p)
    if n:
        assert_same(got, {k: stack([o[k] for o in outs], out[k]) for k in sorted(out)})
    else:
        assert sorted(got) == sorted(out) and all(v.shape == (0,) for v in got.values())


@SETTINGS
@given(data=st.data())
def test_namedtuple_tuple_unpacking_and_out_axes_prefix(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 5))
    bid_mapped, hi_mapped = data.draw(st.booleans()), data.draw(st.booleans())
    q = Quote(hostile(data, (n,)) if bid_mapped else 0.25, hostile(data, (n,)))
    tick = (hostile(data, (n,)), hostile(data, (n,)) if hi_mapped else 2.0)
    in_axes = (Quote(0 if bid_mapped else None, 0), (0, 0 if hi_mapped else None))
    out_axes = data.draw(st.sampled_from([0, (Quote(0, -1), 0), [0, 0]]))
    got = compiled(vmap(quote_step, in_axes, out_axes), q, tick)
    outs = []
    for b in range(n):
        qb = Quote(ex(q.bid, in_axes[0].bid, b), ex(q.ask, 0, b))
        outs.append(quote_step(qb, (ex(tick[0], 0, b), ex(tick[1], in_axes[1][1], b))))
    assert_same(got, (Quote(stack([o[0].bid for o in outs], 0), stack([o[0].ask for o in outs], 0)),
                      stack([o[1] for o in outs], 0)))


@SETTINGS
@given(data=st.data())
def test_dataclass_in_and_out_with_a_loop(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 6))
    v_axis = data.draw(st.sampled_from([0, None]))
    s = Particle(hostile(data, (n,)), hostile(data, (n,)) if v_axis == 0 else 1.5)
    got = compiled(vmap(fall, (Particle(0, v_axis), None)), s, 0.01)
    outs = [fall(Particle(ex(s.x, 0, b), ex(s.v, v_axis, b)), 0.01) for b in range(n)]
    assert_same(got, Particle(stack([o.x for o in outs], 0), stack([o.v for o in outs], 0)))


@SETTINGS
@given(data=st.data())
def test_nested_vmap_over_pytrees_is_one_compiled_call(data: st.DataObject) -> None:
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    outer = data.draw(st.sampled_from([0, 1]))
    u = np.moveaxis(hostile(data, (m, n)), 0, outer)
    w, v = hostile(data, (m,)), hostile(data, (n,))
    p = {"inner": {"u": u, "v": v}, "w": w}
    inner = vmap(nested_read, ({"inner": {"u": 0, "v": 0}, "w": None},), {"a": 0, "b": 0})
    f = vmap(inner, ({"inner": {"u": outer, "v": None}, "w": 0},), {"a": 1, "b": (0, None)})
    got = compiled(f, p)
    rows = [[nested_read({"inner": {"u": np.take(u, i, axis=outer)[j].item(), "v": v[j].item()}, "w": w[i].item()})
             for j in range(n)] for i in range(m)]
    want = {"a": np.array([[r["a"] for r in row] for row in rows]).T,
            "b": (np.array([[r["b"][0] for r in row] for row in rows]), None)}
    assert_same(got, want)


def test_specializations_are_keyed_by_structure_and_show_their_source() -> None:
    f = vmap(labelled)
    x = np.array([1.0, -0.0, np.inf])
    assert_same(compiled(f, {"x": x}), {"y": x * 2.0})
    assert "def labelled(p_x)" in f.source and "return p_x * 2.0" in f.source
    assert_same(compiled(f, {"x": x, "unused": np.zeros(3)}), {"y": x * 2.0})  # another dict: its own specialization
    assert "def labelled(p_unused, p_x)" in f.source
    assert len(f._pytrees.flats) == 2


def test_an_exception_on_some_examples_is_the_loops_exception() -> None:
    x = np.array([4.0, 1.0, -2.0, -3.0])
    with pytest.raises(ValueError) as loop:
        [checked({"x": v}) for v in x.tolist()]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        with pytest.raises(ValueError) as got:
            vmap(checked)({"x": x})
    assert str(got.value) == str(loop.value) == "negative x: -2.0"
    with pytest.raises(ZeroDivisionError) as got_zero:
        compiled(vmap(checked), {"x": np.array([1.0, 0.0])})
    with pytest.raises(ZeroDivisionError) as loop_zero:
        checked({"x": 0.0})
    assert str(got_zero.value) == str(loop_zero.value)


def test_a_return_literal_is_evaluated_in_source_order() -> None:
    """{"b": 1/x, "a": log(x)} at x=0: Python raises ZeroDivisionError (b first), not log's ValueError."""
    with pytest.raises(ZeroDivisionError):
        in_source_order({"x": 0.0})
    with pytest.raises(ZeroDivisionError):
        compiled(vmap(in_source_order), {"x": np.array([1.0, 0.0])})
    got = compiled(vmap(in_source_order), {"x": np.array([1.0, 2.0, np.inf])})
    assert list(got) == ["a", "b"]  # flatten order (sorted keys), as the loop gives it
    assert_same(got, {"a": np.log(np.array([1.0, 2.0, np.inf])), "b": 1.0 / np.array([1.0, 2.0, np.inf])})


@pytest.mark.parametrize(("fun", "args", "reason"), [
    (passes_on, ({"bid": np.ones(2), "ask": np.ones(2), "eps": np.zeros(2), "row": np.ones((2, 2)), "limit": np.ones(2)},),
     "parameter p is used other than by constant subscripts"),
    (counts, ((np.ones(2), np.ones(2)),), "parameter t is used other than"),
    (ragged, ({"x": np.array([1.0, 2.0])},), "its returns build different pytrees"),
    (labelled, ({"x": np.array(["a", "b"])},), "p['x'] is a ndarray, not a number"),
])
def test_other_functions_run_example_by_example_saying_why(fun, args, reason) -> None:
    with pytest.warns(FallbackWarning, match=r"runs example by example \(slow, exact\): " + reason.replace("[", r"\[")
                      .replace("(", r"\(")) as caught:
        with np.errstate(all="ignore"):
            try:
                got = vmap(fun)(*args)
            except TypeError:  # labelled on strings: the loop raises what the function raises
                got = None
    assert caught[0].filename == __file__  # the caller's line
    if got is not None:
        n = len(np.asarray(next(iter(args[0].values())) if isinstance(args[0], dict) else args[0][0]))
        outs = [fun(*[{k: ex(v, 0, b) for k, v in a.items()} if isinstance(a, dict) else tuple(ex(v, 0, b) for v in a)
                      for a in args]) for b in range(n)]
        if isinstance(outs[0], dict):
            assert_same(got, {k: stack([o[k] for o in outs], 0) for k in outs[0]})
        else:
            assert_same(got, stack(outs, 0))
    with pytest.raises(VectorizeError, match="cannot run as generated code"):
        vmap(fun, fallback="error")(*args)


def test_ragged_returns_still_raise_the_loops_structure_error() -> None:
    with pytest.raises(VectorizeValueError, match=r"returned a dict with keys \['a'\] for example 0"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FallbackWarning)
            vmap(ragged)({"x": np.array([1.0, -1.0])})


@pytest.mark.numba
def test_compiled_pytrees_on_the_numba_backend() -> None:
    q = Quote(np.array([0.5, np.nan, -0.0, 3.0]), np.array([1.0, 2.0, 0.0, np.inf]))
    tick = (np.array([0.25, 0.0, -0.0, 1.0]), np.array([2.0, 1.0, 0.0, -np.inf]))
    f = vmap(quote_step, backend="numba")
    got = compiled(f, q, tick)
    outs = [quote_step(Quote(q.bid[b].item(), q.ask[b].item()), (tick[0][b].item(), tick[1][b].item())) for b in range(4)]
    assert_same(got, (Quote(stack([o[0].bid for o in outs], 0), stack([o[0].ask for o in outs], 0)),
                      stack([o[1] for o in outs], 0)))
    assert f._pytrees.last_vf is not None and f._pytrees.last_vf.backend == "numba"


def overwrite(p):
    p["x"] = p["x"] * 2.0
    return {"y": p["x"]}


def overwrite_tuple(t):
    t[0] = 1.0
    return t[0] + t[1]


def test_writes_into_a_pytree_parameter_run_example_by_example() -> None:
    """`p["x"] = ...` is not turned into a local variable: a tuple refuses item assignment."""
    x = np.array([1.0, -0.0, np.nan])
    with pytest.warns(FallbackWarning, match=r"assigns to a part of a pytree parameter \(what became p_x\)"):
        got = vmap(overwrite)({"x": x})
    assert_same(got, {"y": x * 2.0})
    with pytest.warns(FallbackWarning, match="assigns to a part"), pytest.raises(TypeError) as raised:
        vmap(overwrite_tuple)((x, x))
    with pytest.raises(TypeError) as loop:
        overwrite_tuple((1.0, 2.0))
    assert str(raised.value) == str(loop.value)


def test_a_shared_float32_number_keeps_numpys_float32_arithmetic() -> None:
    """A leaf shared by every example is passed as it is: np.float32 arithmetic per example."""
    x, w = np.array([1.0, 3.0, 1e-8]), np.float32(0.1)
    with pytest.warns(FallbackWarning, match=r"p\['w'\] is a float32 number shared by every example"):
        got = vmap(spread_w, ({"x": 0, "w": None},))({"x": x, "w": w})
    assert_same(got, {"y": stack([spread_w({"x": v, "w": w})["y"] for v in x.tolist()], 0)})


def spread_w(p):
    return {"y": p["w"] * 3.0 + p["x"]}


@pytest.mark.numba
def test_nested_compiled_pytrees_with_a_loop_on_the_numba_backend() -> None:
    x = np.array([[1.0, -0.0, np.inf], [np.nan, 5.0, 1e-300]])
    v = np.array([0.5, -2.0])
    inner = vmap(fall, (Particle(0, None), None))
    f = vmap(inner, (Particle(0, 0), None), Particle(1, 0), backend="numba")  # the outer level's options run
    got = compiled(f, Particle(x, v), 0.01)
    outs = [[fall(Particle(x[i, j].item(), v[i].item()), 0.01) for j in range(3)] for i in range(2)]
    assert_same(got, Particle(np.array([[o.x for o in row] for row in outs]).T,
                              np.array([[o.v for o in row] for row in outs])))
    assert f._pytrees.last_vf is not None and f._pytrees.last_vf.backend == "numba"


def pair_of(x):
    return x + 1.0, x - 1.0


def leaf_is_a_tuple(p):
    return {"a": pair_of(p["x"])}


def leaf_is_a_tuple_next_to_another(p):
    return {"a": pair_of(p["x"]), "b": p["x"]}


@pytest.mark.parametrize("fun", [leaf_is_a_tuple, leaf_is_a_tuple_next_to_another])
def test_a_literal_whose_leaf_is_a_tuple_at_run_time_takes_the_loop(fun) -> None:
    """The source shows one leaf where the value is a tuple: the engine's verdict sends it to the loop."""
    x = np.array([0.0, -0.0, np.inf, np.nan])
    with pytest.warns(FallbackWarning, match="runs example by example"):
        got = vmap(fun)({"x": x})
    outs = [fun({"x": v}) for v in x.tolist()]
    want = {"a": (stack([o["a"][0] for o in outs], 0), stack([o["a"][1] for o in outs], 0))}
    if "b" in outs[0]:
        want["b"] = stack([o["b"] for o in outs], 0)
    assert_same(got, want)
