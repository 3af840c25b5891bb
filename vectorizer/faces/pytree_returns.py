"""The pytree a `return` builds, read from its source: `{"y": y, "z": (a, b)}`, `Pair(lo, hi)`.

`literal(expr, fun)` gives the structure (as faces/pytree.py's `flatten` would give it for the
value), the leaf expressions in source order (Python's evaluation order) and, for each leaf in
flatten order, its index among them; or None when the expression is not a pytree literal (a
leaf: what the code returns is then whatever it computes). A call counts as a literal only for a
namedtuple or a dataclass whose construction just stores the fields (the generated `__new__` or
`__init__`, no `__post_init__`): vmap rebuilds the result by calling the class on the stacked
leaves, as the per-example loop does, and a constructor that transforms its fields would see
them twice on one path and once on the other. Any other call of a pytree class (dict(...), a
registered node, a namedtuple with its own `__new__`) raises `Refused`.
"""

from __future__ import annotations

import ast
import dataclasses
import types
from typing import Any

from .pytree import Structure, node_keys
from .pytree_flat import Refused, resolve_global
from .pytree_registry import is_registered_type

Found = tuple[Structure, list[int]]  # a structure and, per leaf in flatten order, its expression's index


def literal(node: Any, fun: types.FunctionType) -> tuple[Structure, list[Any], tuple[int, ...]] | None:
    exprs: list[Any] = []
    s, order = _lit(node, fun, exprs)
    return None if s is None else (s, exprs, tuple(order))


def _lit(node: Any, fun: types.FunctionType, exprs: list[Any]) -> Found:
    import libcst as cst

    if isinstance(node, cst.Name) and node.value == "None":
        return ("none", type(None), (), ()), []
    if isinstance(node, cst.Dict) and all(isinstance(e, cst.DictElement) for e in node.elements):
        keys = [_constant(e.key) for e in node.elements]
        if all(k is not None for k in keys) and len(set(keys)) == len(keys):
            children = {k: _lit(e.value, fun, exprs) for k, e in zip(keys, node.elements)}  # source order
            return _node("dict", dict, children)
    if isinstance(node, cst.Tuple | cst.List) and all(isinstance(e, cst.Element) for e in node.elements):
        children = {i: _lit(e.value, fun, exprs) for i, e in enumerate(node.elements)}
        return _node("tuple" if isinstance(node, cst.Tuple) else "list", tuple if isinstance(node, cst.Tuple) else list,
                     children)
    if isinstance(node, cst.Call):
        cls = resolve_global(node.func, fun)
        kind = _constructor(cls)
        if kind is not None:
            fields = list(cls._fields) if kind == "namedtuple" else [f.name for f in dataclasses.fields(cls) if f.init]
            named = _arguments(node, fields)
            if named is not None:
                children = {name: _lit(value, fun, exprs) for name, value in named}
                return _node(kind, cls, children, tuple(fields))
        if isinstance(cls, type) and (issubclass(cls, dict | list | tuple) or is_registered_type(cls)
                                      or dataclasses.is_dataclass(cls)):
            raise Refused(f"it returns {cls.__name__}(...), a pytree vmap cannot rebuild from the call's arguments")
    exprs.append(node)
    return None, [len(exprs) - 1]


def _node(kind: str, cls: type, children: dict[Any, Found], keys: tuple | None = None) -> Found:
    if keys is None:
        keys = node_keys(dict.fromkeys(children), "dict") if kind == "dict" else tuple(children)
    return (kind, cls, keys, tuple(children[k][0] for k in keys)), [i for k in keys for i in children[k][1]]


def _constant(node: Any) -> str | int | None:
    import libcst as cst

    try:
        key = ast.literal_eval(cst.Module([]).code_for_node(node))
    except (ValueError, SyntaxError, TypeError):
        return None
    return key if isinstance(key, str | int) and not isinstance(key, bool) else None


def _arguments(call: Any, fields: list[str]) -> list[tuple[str, Any]] | None:
    """(field, expression) in source order, if the call gives each field exactly once."""
    out: list[tuple[str, Any]] = []
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if i >= len(fields):
                return None
            out.append((fields[i], arg.value))
        else:
            out.append((arg.keyword.value, arg.value))
    names = [n for n, _ in out]
    return out if sorted(names) == sorted(fields) and len(set(names)) == len(names) else None


def _constructor(cls: Any) -> str | None:
    """'namedtuple' or 'dataclass' when calling `cls` only stores its fields, else None."""
    if not isinstance(cls, type) or is_registered_type(cls):
        return None
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        owner = next((k for k in cls.__mro__ if "_fields" in k.__dict__), None)
        if owner is None or not (owner.__new__.__doc__ or "").startswith("Create new instance of"):
            return None
        for k in cls.__mro__[:cls.__mro__.index(owner)]:
            if "__new__" in k.__dict__ or "__init__" in k.__dict__:
                return None
        return "namedtuple"
    if dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and cls.__new__ is object.__new__:
        init = getattr(cls.__init__, "__code__", None)
        if init is not None and init.co_filename == "<string>":  # the __init__ dataclasses wrote
            return "dataclass"
    return None
