"""The libcst transformer of pytree_flat.specialize: a pytree parameter's reads become its leaves.

    p["x"] * p.w + t[0]      ──▶      p_x * p_w + t_0
    a, b = t                 ──▶      a, b = (t_0, t_1)
    return {"y": y, "z": z}  ──▶      return (y, z)        (the structure kept to rebuild it)

A read is rewritten only when each step is a constant subscript or attribute that the container's
plain built-in read resolves to a child (`_access_ok`: a dict's key, a tuple's index, a
namedtuple's field, a dataclass's plain attribute); anything else is left as it was, and
pytree_flat.specialize refuses the function when a parameter is still used. It is apart from
pytree_flat.py, which decides whether the rewrite is exact and compiles the result, because it is
the rewrite itself: one transformer and the helpers that read a chain of accesses and a body's
ends. libcst is imported inside the functions, so importing this module costs nothing.
"""

from __future__ import annotations

import ast
import collections
import types
from typing import Any

from .pytree import Structure
from .pytree_flat import Refused

_TUPLEGETTER = type(collections.namedtuple("_T", "a").a)  # a namedtuple field's class attribute


def _access_ok(s: tuple, how: str, key: Any) -> Any:
    """The child key a constant read `how` ('sub' or 'attr') with `key` reaches, or None."""
    kind, cls, keys = s[0], s[1], s[2]
    if how == "sub" and isinstance(key, bool):
        return None
    if kind == "dict":
        ok = how == "sub" and isinstance(key, str | int) and cls.__getitem__ is dict.__getitem__
        return key if ok and key in keys and type(keys[keys.index(key)]) is type(key) else None
    if how == "sub" and kind in ("tuple", "list", "namedtuple") and isinstance(key, int):
        ok = cls.__getitem__ in (tuple.__getitem__, list.__getitem__)
        return keys[key % len(keys)] if ok and -len(keys) <= key < len(keys) else None  # a field name for a namedtuple
    if how == "attr" and kind == "namedtuple" and key in keys:
        ok = isinstance(getattr(cls, key, None), _TUPLEGETTER) and cls.__getattribute__ is tuple.__getattribute__
        return key if ok else None
    if how == "attr" and kind == "dataclass" and key in keys:
        if cls.__getattribute__ is not object.__getattribute__:
            return None
        d = next((k.__dict__[key] for k in cls.__mro__ if key in k.__dict__), None)
        data = hasattr(type(d), "__set__") or hasattr(type(d), "__delete__")
        return key if not data or isinstance(d, types.MemberDescriptorType) else None
    return None


def rewriter(fun: types.FunctionType, trees: dict[str, Structure], leaves: dict[str, dict]):
    """The libcst transformer (built here so that libcst is imported only when a pytree call
    is first specialized)."""
    import libcst as cst

    from .pytree import same_structure
    from .pytree_returns import literal

    class Rewriter(cst.CSTTransformer):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 1  # it runs over the body; nested defs and classes keep their own returns
            self.returns: list[tuple[Structure | str, tuple[int, ...]]] = []
            self.bad: dict[str, str] = {}

        def note(self, name: str) -> str:
            return f" ({self.bad[name]})" if name in self.bad else ""

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self.depth += 1
            return True

        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            self.depth -= 1
            return updated

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            self.depth += 1
            return True

        def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
            self.depth -= 1
            return updated

        def _read(self, node: cst.BaseExpression) -> cst.BaseExpression:
            chain = _chain(node)
            if chain is None or chain[0] not in trees:
                return node
            name, s, path = chain[0], trees[chain[0]], ()
            for how, key in chain[1]:
                k = _access_ok(s, how, key) if s is not None else None
                if k is None:
                    self.bad.setdefault(name, f"{'.' + str(key) if how == 'attr' else f'[{key!r}]'} is not a "
                                              f"child of {name}{''.join(f'[{x!r}]' for x in path)}")
                    return node
                path, s = path + (k,), s[3][s[2].index(k)]
            return cst.Name(leaves[name][path]) if s is None else node  # an inner node: a longer read may follow

        def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
            return self._read(updated)

        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
            return self._read(updated)

        def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
            v = updated.value
            if (len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Tuple | cst.List)
                    and isinstance(v, cst.Name) and v.value in trees):
                unpacked = self._unpacked(trees[v.value], leaves[v.value], ())
                if unpacked is not None:
                    return updated.with_changes(value=unpacked)
            return updated

        def _unpacked(self, s: Structure, names: dict, path: tuple) -> cst.BaseExpression | None:
            if s is None:
                return cst.Name(names[path])
            if s[0] not in ("tuple", "list", "namedtuple") or s[1].__iter__ not in (tuple.__iter__, list.__iter__):
                return None
            items = [self._unpacked(c, names, path + (k,)) for k, c in zip(s[2], s[3])]
            if any(i is None for i in items):
                return None
            return cst.Tuple([cst.Element(i) for i in items])  # type: ignore[arg-type]

        def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
            if self.depth != 1:
                return updated
            value = updated.value if updated.value is not None else cst.Name("None")
            found = literal(value, fun)
            if found is None:
                self.returns.append(("opaque", ()))
                return updated
            s, exprs, order = found
            self.returns.append((s, order))
            if len(exprs) == 1:
                return updated.with_changes(value=exprs[0])
            return updated.with_changes(value=cst.Tuple([cst.Element(e) for e in exprs], lpar=[], rpar=[]))

        def result(self, body: Any) -> tuple[Structure | str, tuple[int, ...]]:
            if not self.returns:
                raise Refused("it has no return statement")
            first, order = self.returns[0]
            for s, o in self.returns[1:]:
                if (s == "opaque") != (first == "opaque"):
                    raise Refused("some of its returns build a pytree literal and some do not")
                if s != "opaque" and (not same_structure(s, first) or o != order):  # type: ignore[arg-type]
                    raise Refused("its returns build different pytrees (or list their leaves in different orders)")
            if first != "opaque":
                if not order:
                    raise Refused("it returns a pytree with no leaves")
                if not isinstance(body, cst.IndentedBlock) or not _ends(body.body):
                    raise Refused("it may end without a return (None where the other paths return a pytree)")
            return first, order

    return Rewriter()


def _ends(body: Any) -> bool:
    """Whether a statement list always ends in return or raise (so never falls off with None)."""
    import libcst as cst

    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], cst.Return | cst.Raise)
    if isinstance(last, cst.If):
        other = last.orelse
        if other is None:
            return False
        rest = [other] if isinstance(other, cst.If) else other.body.body  # elif / else
        return _ends(last.body.body) and _ends(rest)
    return False


def _chain(node: Any) -> tuple[str, list[tuple[str, Any]]] | None:
    """`p["x"].w[0]` as ('p', [('sub', 'x'), ('attr', 'w'), ('sub', 0)]): constant reads from a name."""
    import libcst as cst

    steps: list[tuple[str, Any]] = []
    while True:
        if isinstance(node, cst.Name):
            return node.value, steps[::-1]
        if isinstance(node, cst.Attribute):
            steps.append(("attr", node.attr.value))
            node = node.value
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = node.slice[0].slice
            if getattr(index, "star", None) is not None:
                return None
            try:
                key = ast.literal_eval(cst.Module([]).code_for_node(index.value))
            except (ValueError, SyntaxError, TypeError):
                return None
            if not isinstance(key, str | int):
                return None
            steps.append(("sub", key))
            node = node.value
        else:
            return None
