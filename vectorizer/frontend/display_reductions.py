"""`any`, `all` and `math.prod` over the few values a tuple or list display names are written out
(part of frontend/desugar.py, before the fence, before reductions.py's loops). Before::

    if any(np.isscalar(c) for c in (T, dt)) and any(not np.isscalar(c) for c in (T, dt)):
        raise ValueError("...")
    if not all((np.isscalar(T), np.isscalar(dt))):
        ...

After::

    if (np.isscalar(T) or np.isscalar(dt)) and (not np.isscalar(T) or not np.isscalar(dt)):
        raise ValueError("...")
    if not (np.isscalar(T) and np.isscalar(dt)):
        ...

CPython's meaning is kept: the display is built first, then any/all test the elements in order,
each with its truth (`bool(e)`, or `e` itself where it is a bool: `not x`, a comparison, np.isscalar), and stop at the first that decides (`or` and `and` of bools do the
same, and give a bool); an empty display gives False for any, True for all. Only where that holds
exactly: the display's items are names or number literals (building it runs nothing, and a name
read again later still holds what the display read: the element expression must not assign, so
no walrus, lambda or comprehension in it), the generator has one plain-name target and no `if`;
`any((a, b))` of a display itself only when its items are names, literals or np.isscalar of a
name (reading them early or late, or not at all, is the same). Anything else is
left to reductions.py and the fence.
"""

from __future__ import annotations

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer

_ITEMS = (cst.Name, cst.Integer, cst.Float)
_SCOPES = (cst.NamedExpr, cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)


class DisplayReductions(PathTransformer):
    def __init__(self, ns: Namespace, local: set[str]) -> None:
        super().__init__()
        self.ns, self.local = ns, local

    def wants(self, node: cst.CSTNode) -> bool:
        return self._unrolled(node) is not None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self._unrolled(original) is None:
            return updated
        found = self._unrolled(updated)
        return found if found is not None else updated

    def _unrolled(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        product = self._product(node)
        if product is not None:
            return product
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("any", "all")
                and _builtin(node.func.value, self.ns, self.local)
                and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star):
            return None
        arg = node.args[0].value
        if isinstance(arg, cst.GeneratorExp):
            tests = _generator_items(arg)
        elif isinstance(arg, cst.Tuple | cst.List) and all(_early(e, self.ns) for e in arg.elements):
            tests = [e.value for e in arg.elements]
        else:
            return None
        if tests is None:
            return None
        anyof = node.func.value == "any"
        if not tests:
            return cst.Name("False" if anyof else "True")
        parts = [t if _is_bool(t) else cst.Call(cst.Name("bool"), [cst.Arg(t)]) for t in tests]
        out: cst.BaseExpression = parts[0]
        for p in parts[1:]:
            out = cst.BooleanOperation(out, cst.Or() if anyof else cst.And(), p)
        return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if len(parts) > 1 else out


    def _product(self, node: cst.CSTNode) -> cst.BaseExpression | None:
        """`math.prod([a, b])` (or of a tuple, `start=` given or 1): `1 * a * b`, as math.prod
        multiplies, left to right from its start (exactly Python's `*` of each pair: its float
        loop is that product, its int loop gives Python's int product, a mixed pair Python's)."""
        if not (isinstance(node, cst.Call) and _is_math(node.func, "prod", self.ns, self.local)
                and node.args and not node.args[0].keyword and not node.args[0].star
                and all(a.keyword is not None and a.keyword.value == "start" for a in node.args[1:])
                and len(node.args) <= 2):
            return None
        arg = node.args[0].value
        if not isinstance(arg, cst.Tuple | cst.List) or not all(
                not isinstance(e, cst.StarredElement) and isinstance(e.value, _ITEMS) for e in arg.elements):
            return None
        start = node.args[1].value if len(node.args) == 2 else cst.Integer("1")
        if not isinstance(start, _ITEMS):
            return None
        out: cst.BaseExpression = start
        for e in arg.elements:
            out = cst.BinaryOperation(out, cst.Multiply(), e.value)
        return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if arg.elements else out


def _is_math(func: cst.BaseExpression, name: str, ns: Namespace, local: set[str]) -> bool:
    """`func` is math.<name> (`math.prod`, or a name bound to it)."""
    if isinstance(func, cst.Attribute) and func.attr.value == name and isinstance(func.value, cst.Name):
        return func.value.value not in local and ns.resolve(func.value.value).kind == "math"
    if isinstance(func, cst.Name) and func.value not in local:
        glob = ns.resolve(func.value)
        return glob.kind == "math_func" and glob.name == f"math.{name}"
    return False


def _is_bool(node: cst.BaseExpression) -> bool:
    """An expression whose value is a bool already: `not x`, a comparison, np.isscalar(x)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not) or isinstance(node, cst.Comparison):
        return True
    f = node.func if isinstance(node, cst.Call) else None
    return isinstance(f, cst.Attribute) and f.attr.value == "isscalar"


def _builtin(name: str, ns: Namespace, local: set[str]) -> bool:
    """`name` is Python's builtin of that name here (neither a local nor bound by the module)."""
    glob = ns.resolve(name)
    return name not in local and (glob.kind == "builtin" or glob.kind == "unknown" and glob.name == name and (
        ns.globals is None or name not in ns.globals))


def _generator_items(gen: cst.GeneratorExp) -> list[cst.BaseExpression] | None:
    """The element expression once per item of the display, the target replaced by the item."""
    comp = gen.for_in
    if comp.inner_for_in is not None or comp.ifs or comp.asynchronous is not None \
            or not isinstance(comp.target, cst.Name) or not isinstance(comp.iter, cst.Tuple | cst.List):
        return None
    items = comp.iter.elements
    if any(isinstance(e, cst.StarredElement) or not isinstance(e.value, _ITEMS) for e in items):
        return None
    if any(isinstance(n, _SCOPES) for n in _walk(gen.elt)):
        return None
    name = comp.target.value
    return [gen.elt.visit(_Substitute(name, e.value)) for e in items]  # type: ignore[misc]


def _early(el: cst.BaseElement, ns: Namespace) -> bool:
    """An item whose evaluation runs nothing and cannot raise: a name, a literal, np.isscalar of
    a name."""
    if isinstance(el, cst.StarredElement):
        return False
    v = el.value
    if isinstance(v, _ITEMS):
        return True
    f = v.func if isinstance(v, cst.Call) else None
    return isinstance(f, cst.Attribute) and f.attr.value == "isscalar" and isinstance(f.value, cst.Name) \
        and ns.resolve(f.value.value).kind == "numpy" and len(v.args) == 1 and not v.args[0].keyword \
        and not v.args[0].star and isinstance(v.args[0].value, cst.Name)  # type: ignore[union-attr]


class _Substitute(cst.CSTTransformer):
    def __init__(self, name: str, item: cst.BaseExpression) -> None:
        self.name, self.item = name, item

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)  # the attribute's own name is no read of the variable

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.item.deep_clone() if original.value == self.name else updated


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
