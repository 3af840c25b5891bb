"""Pytrees as JAX's vmap sees them: tuples, lists, dicts, namedtuples, dataclasses and None.

A pytree is a nest of containers whose leaves are arrays or numbers. `flatten` lists the leaves
with their key paths (written as JAX writes them: `p['x']`, `args[0]`, `n.a`), `unflatten`
rebuilds a tree from its structure and new leaves, and `broadcast_prefix` gives each leaf of a
value the axis a prefix tree (vmap's `in_axes`/`out_axes`) assigns it, with JAX's error when the
prefix does not fit. Dicts are flattened in sorted key order, as JAX does; None is a container
with no leaves in a value, and a leaf (no axis) in a prefix. Dataclass instances are containers
of their `__init__` fields (JAX needs them registered first; here any dataclass is one). Types
registered with `register_pytree_node` (faces/pytree_registry.py) are containers of the children
their flatten function gives, their structure also holding its aux data.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from ..errors import VectorizeValueError
from .pytree_registry import flatten_node, is_registered, unflatten_node

# A structure: None for a leaf, else (kind, type, keys, child structures), with the aux data
# appended for a registered node (kind 'custom').
Structure = tuple | None


def node_kind(x: Any) -> str | None:
    """'custom' (registered), 'dict', 'namedtuple', 'tuple', 'list', 'dataclass', 'none', or None
    for a leaf."""
    if x is None:
        return "none"
    if is_registered(x):  # first: a registered namedtuple or dataclass type is its own node
        return "custom"
    if isinstance(x, dict):
        return "dict"
    if isinstance(x, tuple):
        return "namedtuple" if hasattr(type(x), "_fields") else "tuple"
    if isinstance(x, list):
        return "list"
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return "dataclass"
    return None


def node_keys(x: Any, kind: str) -> tuple:
    """The keys of a pytree node of `kind` in their canonical order (a dict's sorted, as JAX has them)."""
    if kind == "dict":
        try:
            return tuple(sorted(x))
        except TypeError:  # keys that do not sort: insertion order
            return tuple(x)
    if kind == "namedtuple":
        return tuple(type(x)._fields)
    if kind == "dataclass":
        return tuple(f.name for f in dataclasses.fields(x) if f.init)
    if kind == "none":
        return ()
    if kind == "custom":
        return tuple(range(len(flatten_node(x)[0])))
    return tuple(range(len(x)))


def _child(x: Any, kind: str, key: Any) -> Any:
    if kind == "custom":
        return flatten_node(x)[0][key]
    return getattr(x, key) if kind in ("namedtuple", "dataclass") else x[key]


def _aux(x: Any, kind: str) -> tuple:
    """What a structure holds beyond its keys: a registered node's aux data."""
    return (flatten_node(x)[1],) if kind == "custom" else ()


def key_str(kind: str, key: Any) -> str:
    return f".{key}" if kind in ("namedtuple", "dataclass") else f"[{key!r}]"


def flatten(tree: Any, path: str = "", none_is_leaf: bool = False) -> tuple[list[tuple[str, Any]], Structure]:
    """The leaves of `tree` (with their key paths, `path` first) and its structure."""
    leaves: list[tuple[str, Any]] = []

    def walk(x: Any, at: str) -> Structure:
        kind = None if none_is_leaf and x is None else node_kind(x)
        if kind is None:
            leaves.append((at, x))
            return None
        if kind == "custom":
            children, aux = flatten_node(x)
            return kind, type(x), tuple(range(len(children))), tuple(
                walk(c, at + key_str(kind, k)) for k, c in enumerate(children)), aux
        keys = node_keys(x, kind)
        return kind, type(x), keys, tuple(walk(_child(x, kind, k), at + key_str(kind, k)) for k in keys)

    return leaves, walk(tree, path)


def unflatten(structure: Structure, leaves: Iterator[Any] | list[Any]) -> Any:
    """The tree of `structure` with the given leaves, in flatten's order."""
    it = iter(leaves)

    def build(s: Structure) -> Any:
        if s is None:
            return next(it)
        kind, cls, keys, children = s[:4]
        values = [build(c) for c in children]
        if kind == "custom":
            return unflatten_node(cls, s[4], values)
        if kind == "none":
            return None
        if kind == "dict":
            return cls(zip(keys, values)) if cls is dict else _rebuild_dict(cls, keys, values)
        if kind == "namedtuple":
            return cls(*values)
        if kind == "dataclass":
            return cls(**dict(zip(keys, values)))
        return cls(values)  # tuple, list, or a subclass that takes an iterable

    return build(structure)


def _rebuild_dict(cls: type, keys: tuple, values: list) -> Any:
    out = cls()
    for k, v in zip(keys, values):
        out[k] = v
    return out


def same_structure(a: Structure, b: Structure) -> bool:
    if a is None or b is None:
        return a is b
    return (a[0] == b[0] and a[1] is b[1] and a[2] == b[2] and _same_aux(a[4:], b[4:])
            and all(map(same_structure, a[3], b[3])))


def _same_aux(a: tuple, b: tuple) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # aux data that does not compare to a bool (arrays): identity
        return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def describe(s: Structure) -> str:
    """A structure in a few words, for an error."""
    if s is None:
        return "a leaf"
    kind, cls, keys, _ = s[:4]
    if kind == "custom":
        return f"a {cls.__name__} node with {len(keys)} children"
    if kind in ("dict", "namedtuple", "dataclass"):
        return f"a {cls.__name__} with keys {list(keys)!r}"
    if kind == "none":
        return "None"
    return f"a {cls.__name__} of length {len(keys)}"


def is_axis(a: Any) -> bool:
    return a is None or (isinstance(a, int) and not isinstance(a, bool))


def check_spec(spec: Any, name: str) -> None:
    """An in_axes/out_axes tree: containers of ints and None (JAX's TypeError otherwise)."""
    leaves, _ = flatten_spec(spec)
    bad = [v for _, v in leaves if not is_axis(v)]
    if bad:
        raise VectorizeValueError(f"vmap {name} must be an int, None, or a tuple, list, dict, namedtuple (nested) of "
                                  f"ints and None, got {spec!r}")


def flatten_spec(spec: Any, path: str = "") -> tuple[list[tuple[str, Any]], Structure]:
    """A prefix tree's leaves: None is a leaf here (an axis spec), not an empty container."""
    return flatten(spec, path, none_is_leaf=True)


def broadcast_prefix(prefix: Any, tree: Any, what: str, at: str) -> list[Any]:
    """The axis `prefix` gives each leaf of `tree` (flatten's order). A prefix leaf (an int or
    None) covers the whole subtree below it; a container must match the value's container
    (same kind, same keys) at that place, else a VectorizeValueError naming the place."""
    out: list[Any] = []

    def walk(p: Any, x: Any, here: str) -> None:
        if is_axis(p):
            out.extend([p] * len(flatten(x)[0]))
            return
        pk, xk = node_kind(p), node_kind(x)
        _, ps = flatten_spec(p)
        _, xs = flatten(x)
        if (pk != xk or type(p) is not type(x) and pk != "dict" or node_keys(p, pk) != node_keys(x, xk)  # type: ignore[arg-type]
                or not _same_aux(_aux(p, pk), _aux(x, xk))):  # type: ignore[arg-type]
            raise VectorizeValueError(f"vmap {what} specification must be a tree prefix of the corresponding value: "
                                      f"at {here} the specification is {describe(ps)} but the value is {describe(xs)}")
        for k in node_keys(p, pk):  # type: ignore[arg-type]
            walk(_child(p, pk, k), _child(x, xk, k), here + key_str(pk, k))  # type: ignore[arg-type]

    walk(prefix, tree, at)
    return out
