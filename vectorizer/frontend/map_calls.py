"""`map` of a function over a display, unpacked into names, becomes the calls it stands for (part
of frontend/desugar.py, before the fence). Before::

    s, t, p = list(map(np.asanyarray, (s, t, p)))
    (rate, nper) = map(np.asarray, [rate, nper])

After::

    s, t, p = np.asanyarray(s), np.asanyarray(t), np.asanyarray(p)
    (rate, nper) = np.asarray(rate), np.asarray(nper)

The items may also be NumPy's `np.broadcast_arrays` of as many names or numbers as there are
targets (astronomia's `year, day = list(map(np.array, np.broadcast_arrays(year, day)))`): a
tuple of that many values, each call taking its item::

    year, day = np.array(np.broadcast_arrays(year, day)[0]), np.array(np.broadcast_arrays(year, day)[1])

CPython's meaning is kept: unpacking consumes the map in order, so the function is called on the
items left to right, and a call that raises stops the statement before anything is bound, as the
tuple of calls does. Only where nothing else can differ: `map`, `list` and `tuple` are the
builtins, the function is a name or a dotted name (reading it twice reads the same object), the
display's items (np.broadcast_arrays' arguments) are names or number literals (evaluating them
cannot raise or run code; np.broadcast_arrays of the same values, made again for each item,
gives the same items and raises, if it does, on the first), and the targets are as many plain
names. Anything else is left to the fence.
"""

from __future__ import annotations

import builtins

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer


class MapCalls(PathTransformer):
    """Rewrites `a, b = map(f, (x, y))`; `rebuilt` maps each new node to its original."""

    def __init__(self, ns: Namespace, local: set[str]) -> None:
        super().__init__()
        self.ns, self.local = ns, local

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Assign) and self._calls(node) is not None

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        calls = self._calls(updated)
        if calls is None:
            return updated
        for call in calls:  # an error in one points at the map
            self.rebuilt[id(call)] = (call, original.value)
            if isinstance(call.args[0].value, cst.Subscript):
                self.rebuilt[id(call.args[0].value)] = (call.args[0].value, original.value)
        return updated.with_changes(value=cst.Tuple([cst.Element(c) for c in calls], lpar=[], rpar=[]))

    def _calls(self, node: cst.Assign) -> list[cst.Call] | None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Tuple | cst.List):
            return None
        targets = node.targets[0].target.elements
        if not all(isinstance(t, cst.Element) and isinstance(t.value, cst.Name) for t in targets):
            return None
        value = node.value
        if self._builtin_call(value, ("list", "tuple"), 1):
            value = value.args[0].value  # type: ignore[union-attr]
        if not self._builtin_call(value, ("map",), 2):
            return None
        func, items = (a.value for a in value.args)  # type: ignore[union-attr]
        if not _dotted(func):
            return None
        if self._broadcast(items):
            if len(items.args) != len(targets) or not all(_plain(a.value) for a in items.args):  # type: ignore[union-attr]
                return None
            made = [items if i == 0 else items.deep_clone() for i in range(len(targets))]  # one node, one place
            for clone in made[1:]:
                self.rebuilt[id(clone)] = (clone, items)
            return [cst.Call(func, [cst.Arg(cst.Subscript(m, [cst.SubscriptElement(cst.Index(cst.Integer(str(i))))]))])
                    for i, m in enumerate(made)]
        if not isinstance(items, cst.Tuple | cst.List) or len(items.elements) != len(targets):
            return None
        if not all(isinstance(e, cst.Element) and _plain(e.value) for e in items.elements):
            return None
        return [cst.Call(func, [cst.Arg(e.value)]) for e in items.elements]

    def _broadcast(self, node: cst.BaseExpression) -> bool:
        """`np.broadcast_arrays(...)` of positional arguments, `np` being NumPy."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name) and node.func.attr.value == "broadcast_arrays"):
            return False
        if any(a.keyword is not None or a.star for a in node.args) or node.func.value.value in self.local:
            return False
        return self.ns.resolve(node.func.value.value).kind == "numpy"

    def _builtin_call(self, node: cst.BaseExpression, names: tuple[str, ...], nargs: int) -> bool:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in names):
            return False
        if len(node.args) != nargs or any(a.keyword is not None or a.star for a in node.args):
            return False
        name = node.func.value
        if name in self.local:
            return False
        if self.ns.globals is not None:
            return name not in self.ns.globals and getattr(builtins, name, None) is not None
        glob = self.ns.resolve(name)  # judged from source: a binding of the module's shadows it
        return glob.kind in ("unknown", "builtin") and glob.name == name


def _plain(node: cst.BaseExpression) -> bool:
    """A name or a number literal: evaluating it cannot raise or run code."""
    return isinstance(node, cst.Name | cst.Integer | cst.Float)


def _dotted(node: cst.BaseExpression) -> bool:
    """`f` or `np.asarray`: reading it has no effect and gives the same object each time."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)
