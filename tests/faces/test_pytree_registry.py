"""Custom pytree nodes for vmap (issue 31): `register_pytree_node(cls, flatten, unflatten)` and
`register_pytree_node_class`, with JAX's signatures. Registered nodes are arguments, results,
in_axes/out_axes prefixes and nest; they run example by example (their children are known only
through their flatten function), and errors name the leaf path (`b[1]`: the child's position).

The oracle is the loop vmap stands for, written out below: example b of each mapped leaf, f on
the rebuilt nodes, each result leaf stacked along its out axis.
"""

from __future__ import annotations

import collections
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import SPECIAL_FLOATS

from vectorizer import (
    FallbackWarning,
    VectorizeError,
    VectorizeValueError,
    register_pytree_node,
    register_pytree_node_class,
    vmap,
)
from vectorizer.faces import pytree_registry

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Box:
    """A plain class: children lo and hi, a label as aux data (static, must match)."""

    def __init__(self, lo: Any, hi: Any, label: str = "box") -> None:
        self.lo, self.hi, self.label = lo, hi, label

    def __repr__(self) -> str:
        return f"Box({self.lo!r}, {self.hi!r}, {self.label!r})"


register_pytree_node(Box, lambda b: ((b.lo, b.hi), b.label), lambda label, children: Box(*children, label))


@register_pytree_node_class
class Scaled:
    def __init__(self, value: Any, scale: float) -> None:
        self.value, self.scale = value, scale

    def tree_flatten(self):
        return (self.value,), self.scale

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(children[0], aux)


def width(b):
    return b.hi - b.lo


def grow(b, k):
    return Box(b.lo - k, b.hi + k, b.label)


def apply(s):
    return {"v": s.value * s.scale}


def ex(a: Any, axis: int | None, i: int) -> Any:
    if axis is None:
        return a
    s = np.take(np.asarray(a), i, axis=axis)
    return s.item() if s.ndim == 0 else s


def stack(column: list[Any], axis: int) -> np.ndarray:
    return np.moveaxis(np.stack([np.asarray(v) for v in column]), 0, axis)


def same(got: Any, want: Any) -> None:
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", FallbackWarning)
        return f(*args, **kwargs)


def hostile(data: st.DataObject, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    values = data.draw(st.lists(st.sampled_from(SPECIAL_FLOATS) | st.floats(-1e3, 1e3), min_size=n, max_size=n))
    return np.array(values, dtype=np.float64).reshape(shape)


@SETTINGS
@given(data=st.data())
def test_registered_node_in_and_out_with_prefix_axes(data: st.DataObject) -> None:
    n, d = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 3))
    lo_axis, hi_mapped = data.draw(st.sampled_from([0, 1, -1])), data.draw(st.booleans())
    out_lo, out_hi = data.draw(st.sampled_from([0, 1, -1])), data.draw(st.sampled_from([0, -1]))
    lo = np.moveaxis(hostile(data, (n, d)), 0, lo_axis)
    hi = hostile(data, (n,)) if hi_mapped else 2.5
    k = hostile(data, (n,))
    in_axes = (Box(lo_axis, 0 if hi_mapped else None, "spec"), 0)
    with pytest.raises(VectorizeValueError, match="tree prefix.*at b the specification is a Box node"):
        quiet(vmap(grow, in_axes), Box(lo, hi, "data"), k)  # aux data differ: not the same node
    in_axes = (Box(lo_axis, 0 if hi_mapped else None, "data"), 0)
    got = quiet(vmap(grow, in_axes, Box(out_lo, out_hi, "data")), Box(lo, hi, "data"), k)
    with np.errstate(all="ignore"):
        outs = [grow(Box(ex(lo, lo_axis, i), ex(hi, 0 if hi_mapped else None, i), "data"), k[i].item())
                for i in range(n)]
        widths = [width(Box(ex(lo, lo_axis, i), ex(hi, 0 if hi_mapped else None, i))) for i in range(n)]
    assert type(got) is Box and got.label == "data"
    same(got.lo, stack([o.lo for o in outs], out_lo))
    same(got.hi, stack([o.hi for o in outs], out_hi))
    w = quiet(vmap(width, (in_axes[0],)), Box(lo, hi, "data"))
    same(w, stack(widths, 0))


@SETTINGS
@given(data=st.data())
def test_nested_vmap_over_registered_nodes(data: st.DataObject) -> None:
    m, n = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    value = hostile(data, (m, n))
    inner = vmap(apply, (Scaled(0, 0.5),))
    f = vmap(inner, (Scaled(1, 0.5),), {"v": 1})
    got = quiet(f, Scaled(value, 0.5))
    # outer level: column j (axis 1); inner: its element i; outer out_axes 1 puts j second
    want = np.array([[apply(Scaled(value[i, j].item(), 0.5))["v"] for j in range(n)] for i in range(m)])
    assert list(got) == ["v"]
    same(got["v"], want)


def test_registered_nodes_run_example_by_example_saying_why() -> None:
    b = Box(np.array([0.0, -0.0, np.inf]), np.array([1.0, 2.0, np.nan]))
    with pytest.warns(FallbackWarning, match=r"registered pytree node \(Box\)"):
        got = vmap(width)(b)
    with np.errstate(all="ignore"):
        same(got, stack([width(Box(b.lo[i].item(), b.hi[i].item())) for i in range(3)], 0))
    with pytest.raises(VectorizeError, match="cannot run as generated code.*registered pytree node"):
        vmap(width, fallback="error")(b)


def test_errors_name_the_leaf_path() -> None:
    with pytest.raises(VectorizeValueError, match=r"different sizes.*b\[0\] has 3, b\[1\] has 4"):
        quiet(vmap(width), Box(np.ones(3), np.ones(4)))
    with pytest.raises(VectorizeValueError, match=r"map argument b\[1\] over axis 0.*a number cannot be mapped"):
        quiet(vmap(width), Box(np.ones(3), 1.0))
    with pytest.raises(VectorizeValueError, match=r"out_axes=None, but the output varies.*at out\[1\]"):
        quiet(vmap(grow, (0, 0), Box(0, None, "box")), Box(np.ones(3), np.ones(3)), np.arange(3.0))


def test_an_exception_on_some_examples_is_the_loops_exception() -> None:
    def inverse(s):
        return 1.0 / s.value

    with pytest.raises(ZeroDivisionError) as loop:
        [inverse(Scaled(v, 1.0)) for v in [2.0, 0.0]]
    with pytest.raises(ZeroDivisionError) as got:
        quiet(vmap(inverse), Scaled(np.array([2.0, 0.0]), 1.0))
    assert str(got.value) == str(loop.value)


def test_registration_is_checked() -> None:
    with pytest.raises(VectorizeValueError, match="Duplicate custom pytree node registration for Box"):
        register_pytree_node(Box, lambda b: ((), None), lambda a, c: Box(0, 0))
    with pytest.raises(TypeError, match="needs a class"):
        register_pytree_node(Box(1, 2), lambda b: ((), None), lambda a, c: None)

    class Bad:
        pass

    register_pytree_node(Bad, lambda b: 42, lambda a, c: Bad())
    with pytest.raises(VectorizeValueError, match=r"must return \(children, aux_data\), got 42"):
        quiet(vmap(width), Bad())


def span(p: Any) -> Any:
    return p["hi"] - p["lo"]


def pair_sum(tree: Any, scale: Any) -> Any:
    return tree["a"] * scale + tree["b"][0] + tree["b"][1][0] + (0.0 if tree["c"] is None else 1.0)


def _vmap_still_works() -> None:
    tree = {"a": np.array([1.0, 2.0]), "b": (np.array([3.0, 4.0]), [np.array([5.0, 6.0])]), "c": None}
    got = quiet(vmap(pair_sum, in_axes=(0, None)), tree, 2.0)
    assert got.tolist() == [2.0 + 3.0 + 5.0, 4.0 + 4.0 + 6.0]


@pytest.mark.parametrize("cls", [dict, list, tuple, type(None), collections.OrderedDict, collections.defaultdict,
                                 bool, int, float, complex, np.ndarray, np.float64, np.int64, np.bool_, np.float32],
                         ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_types_vmap_gives_a_meaning_are_refused(cls: type, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49 row 15: registering dict (or tuple, float, ndarray...) was accepted, and every vmap
    in the process then read its dicts, or its numbers, through the user's functions. JAX refuses
    its own containers with a ValueError ("Duplicate custom PyTreeDef type registration"); vmap
    refuses those and its leaves (numbers, NumPy arrays and scalars) alike. The registry is
    restored afterwards, so that a registration the bug lets through breaks no other test."""
    monkeypatch.setattr(pytree_registry, "_NODES", dict(pytree_registry._NODES))
    with pytest.raises(VectorizeValueError, match=rf"register_pytree_node.*{cls.__name__}") as info:
        register_pytree_node(cls, lambda x: ((), None), lambda aux, children: None)
    assert isinstance(info.value, ValueError)  # as JAX's
    assert not pytree_registry.is_registered_type(cls)
    _vmap_still_works()


def test_subclasses_of_those_types_are_nodes_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registered type is matched exactly, so a subclass changes nothing else (JAX accepts it too)."""
    monkeypatch.setattr(pytree_registry, "_NODES", dict(pytree_registry._NODES))

    class Pair(dict):
        pass

    register_pytree_node(Pair, lambda p: ((p["lo"], p["hi"]), None), lambda aux, c: Pair(lo=c[0], hi=c[1]))
    got = quiet(vmap(span), Pair(lo=np.array([1.0, 2.0]), hi=np.array([4.0, 4.0])))
    assert got.tolist() == [3.0, 2.0]
    _vmap_still_works()
