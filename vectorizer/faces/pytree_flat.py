"""A function of pytrees, specialized into a function of their leaves (vmap's compiled path).

    def model(p, t):                          def model(p_b, p_w, p_x, t_0, t_1):
        a, b = t                                  a, b = (t_0, t_1)
        y = p["x"] * p["w"] + a        ──▶        y = p_x * p_w + a
        return {"y": y, "z": p["b"] - b}          return (y, p_b - b)

for p a dict with keys b, w, x of leaves and t a 2-tuple of leaves. The result is a function the
engine vectorizes like any other, plus the structure to rebuild its result (a dict with keys y,
z). The rewrite is exact only when each pytree parameter is read ONLY by constant subscripts or
attributes that reach a leaf (`p["x"]`, `s.pos`, `t[0]`, `n.inner["a"]`), or unpacked whole into a
tuple target (`a, b = t`), on containers whose reads are the plain built-in ones; and when every
`return` builds the same pytree literal (dict, tuple, list, namedtuple or dataclass call, None)
or none does. Anything else (the name passed on, iterated, rebound, shadowed, `len(t)`, a
registered node) raises `Refused` with the reason, and vmap runs the examples one by one.
Leaves are returned in source order, so a return's expressions are evaluated in Python's order
(the first one that raises is the one Python would raise); `order` puts them in flatten order.
"""

from __future__ import annotations

import builtins
import dataclasses
import hashlib
import linecache
import re
import types
from typing import Any

from ..frontend.source import source_of
from .pytree import Structure


class Refused(Exception):
    """Why a function cannot be specialized on its leaves (the message is the reason)."""


@dataclasses.dataclass(frozen=True)
class Flat:
    fn: types.FunctionType  # the function of the leaves
    out: Structure | str  # the result's structure, or "opaque": whatever the code returns (a leaf, a tuple)
    order: tuple[int, ...]  # flatten position j of the result is the returned value order[j]
    params: tuple[str, ...]  # the leaf parameters, in order


def leaf_paths(s: Structure, at: tuple = ()) -> list[tuple]:
    """The key path (keys from the root) of each leaf of a structure, in flatten order."""
    if s is None:
        return [at]
    return [p for k, c in zip(s[2], s[3]) for p in leaf_paths(c, at + (k,))]


def specialize(fun: types.FunctionType, trees: dict[str, Structure]) -> Flat:
    """`fun` with each parameter of `trees` (name -> structure of its value) replaced by its leaves
    and its pytree-literal results returned as a flat tuple; raise `Refused` if not exact."""
    import libcst as cst

    from .pytree_rewrite import rewriter as rewriter_of

    if fun.__code__.co_freevars:
        raise Refused(f"{fun.__qualname__} reads variables of an enclosing function")
    src = source_of(fun)
    try:
        module = cst.parse_module(src.text)
    except cst.ParserSyntaxError as exc:
        raise Refused(f"its source does not parse alone: {exc}") from None
    fdef = module.body[0] if module.body else None
    if not isinstance(fdef, cst.FunctionDef) or fdef.asynchronous is not None:
        raise Refused("its source is not one plain def")
    p = fdef.params
    if not isinstance(p.star_arg, cst.MaybeSentinel) or p.star_kwarg is not None:
        raise Refused("it takes *args or **kwargs")
    for name, s in trees.items():
        _check_readable(name, s)
    taken = set(re.findall(r"[A-Za-z_]\w*", src.text))
    leaves = {name: {path: _fresh(name, path, taken) for path in leaf_paths(s)} for name, s in trees.items()}
    rewriter = rewriter_of(fun, trees, leaves)
    body = fdef.body.visit(rewriter)
    params = []
    for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
        name = param.name.value
        new_names = [name] if name not in trees else list(leaves[name].values())
        params += [cst.Param(cst.Name(n)) for n in new_names]
        if new_names:  # the original's comma and whitespace (its newlines): the body keeps its lines
            params[-1] = params[-1].with_changes(comma=param.comma, whitespace_after_param=param.whitespace_after_param)
    new = fdef.with_changes(decorators=(), leading_lines=(), returns=None, body=body,
                            params=cst.Parameters(params=params))
    left = _leftover(new.body, set(trees))
    if left is not None:
        raise Refused(f"parameter {left} is used other than by constant subscripts or attributes that reach "
                      "a leaf (p['x'], p.w, t[0]) or by unpacking (a, b = t)" + rewriter.note(left))
    written = _assigned(new.body, {leaf for names in leaves.values() for leaf in names.values()})
    if written is not None:
        raise Refused(f"it assigns to a part of a pytree parameter (what became {written})")
    out, order = rewriter.result(new.body)
    if not trees and out == "opaque":
        raise Refused("unchanged")  # no pytree in or out: the engine's own verdict stands
    text = cst.Module(body=[new]).code
    def_line = src.first_line + next(i for i, line in enumerate(src.text.splitlines())
                                     if re.match(r"(async\s+)?def\s", line))
    padded = "\n" * (def_line - 1) + text  # the def at its line in the user's file
    digest = hashlib.sha256(padded.encode()).hexdigest()[:12]
    filename = f"<vectorizer: {fun.__qualname__} on pytree leaves {digest}, from {src.filename}>"
    linecache.cache[filename] = (len(padded), None, padded.splitlines(True), filename)  # inspect reads it
    code = next(c for c in compile(padded, filename, "exec").co_consts
                if isinstance(c, types.CodeType) and c.co_name == fun.__name__)
    fn = types.FunctionType(code, fun.__globals__, fun.__name__)
    fn.__qualname__, fn.__module__ = fun.__qualname__, fun.__module__
    names = tuple(cst.ensure_type(q.name, cst.Name).value for q in params)
    return Flat(fn, out, order, names)


def _assigned(tree: Any, names: set[str]) -> str | None:
    """The first of `names` bound in `tree` (an assignment, del, for or with target), or None: a
    leaf name bound there was a write `p["x"] = ...` to the container, which the rewrite must not
    turn into a local variable (a tuple refuses item assignment; `del p["x"]` raises KeyError)."""
    import libcst as cst

    found: list[str] = []

    def targets(node: Any) -> None:
        if isinstance(node, cst.Name) and node.value in names:
            found.append(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for e in node.elements:
                targets(e.value)
        elif isinstance(node, cst.StarredElement | cst.Element):
            targets(node.value)

    class Visit(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            targets(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            targets(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            targets(node.target)

        def visit_Del(self, node: cst.Del) -> None:
            targets(node.target)

        def visit_For(self, node: cst.For) -> None:
            targets(node.target)

        def visit_CompFor(self, node: cst.CompFor) -> None:
            targets(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            targets(node.name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            targets(node.target)

    tree.visit(Visit())
    return found[0] if found else None


def _fresh(name: str, path: tuple, taken: set[str]) -> str:
    base = "_".join([name, *(re.sub(r"\W", "_", str(k)) for k in path)])
    out, n = base, 1
    while out in taken:
        n += 1
        out = f"{base}_{n}"
    taken.add(out)
    return out


def _check_readable(name: str, s: Structure) -> None:
    if s is None:
        return
    if s[0] == "custom":
        raise Refused(f"parameter {name} holds a registered pytree node ({s[1].__name__}): its children are known "
                      "only through its flatten function")
    for c in s[3]:
        _check_readable(name, c)


def _leftover(tree: Any, names: set[str]) -> str | None:
    """The first of `names` still used in `tree` (any Name node but an attribute's name), or None."""
    import libcst as cst

    found: list[str] = []

    class Visit(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in names:
                found.append(node.value)

    tree.visit(Visit())
    return found[0] if found else None


def resolve_global(node: Any, fun: types.FunctionType) -> Any:
    """What a name or dotted name in `fun` means, if it is a global (or builtin) it does not rebind."""
    import libcst as cst

    if isinstance(node, cst.Attribute):
        base = resolve_global(node.value, fun)
        return getattr(base, node.attr.value, None) if isinstance(base, types.ModuleType | type) else None
    if isinstance(node, cst.Name):
        name = node.value
        if name in fun.__code__.co_varnames or name in fun.__code__.co_cellvars:
            return None
        return fun.__globals__.get(name, getattr(builtins, name, None))
    return None
