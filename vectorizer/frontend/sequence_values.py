"""The sequences of numbers a function holds that are the same for every lane and known when the
code is generated (part of frontend/sequence_args.py): what an expression is when it is built only
from such sequences by pure operations, computed by Python on the actual objects (a list stays a
list, a tuple a tuple, so `[1] + coefs` is a list for a list and raises TypeError for a tuple, as
the scalar function does).

The sequences: a parameter of a callee specialized on one (sequence_args.py's registry); a local
name bound once, at the function's top level, to a tuple or list display of number literals (the
caller checks it is never mutated or rebound); a module-level tuple, or a module-level list of
numbers, which the namespace reads as a table and fingerprint.Watch checks for changes (its items
when it was read: `Namespace.snapshots`). The operations: displays of number literals, `a + b`,
`a * k` (k an int literal), `a[i:j:k]` (literal bounds), `tuple(a)` and `list(a)`.
"""

from __future__ import annotations

import libcst as cst

from .namespace import ABSENT, Namespace

SEQUENCE_TYPES = (list, tuple)
_ITEM_TYPES = (int, float, bool)
_LONGEST = 4096  # items of a sequence made here (a table of the generated module)


class Raised:
    """An expression whose evaluation raises `exc` in Python (the TypeError of `(1,) + [2]`)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def number(node: cst.BaseExpression) -> int | float | None:
    """The value of a number literal, `-literal` or `+literal` (no bool: True is a Name)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        inner = number(node.expression)
        return None if inner is None else (-inner if isinstance(node.operator, cst.Minus) else inner)
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    return None


def display(node: cst.BaseExpression) -> list | tuple | None:
    """The list or tuple a display of number literals builds, or None."""
    if not isinstance(node, cst.Tuple | cst.List):
        return None
    values = []
    for el in node.elements:
        v = None if isinstance(el, cst.StarredElement) else number(el.value)
        if v is None:
            return None
        values.append(v)
    return values if isinstance(node, cst.List) else tuple(values)


def numbers_only(value: object) -> bool:
    return isinstance(value, SEQUENCE_TYPES) and all(type(v) in _ITEM_TYPES for v in value)


class Sequences:
    """Evaluates the sequence expressions of one function. `known`: local name -> list or tuple;
    `local`: every name the function binds (never a module global)."""

    def __init__(self, ns: Namespace, known: dict[str, list | tuple], local: set[str]) -> None:
        self.ns, self.known, self.local = ns, known, local

    def global_sequence(self, name: str) -> list | tuple | None:
        """A module-level tuple of numbers, or a list of numbers (read as a watched table)."""
        if name in self.local or name in self.ns.links:
            return None
        glob = self.ns.resolve(name)
        if glob.kind != "constant" or not isinstance(glob.value, tuple) or not numbers_only(glob.value):
            return None
        return list(glob.value) if isinstance(self.ns.seen.get(name), list) else glob.value

    def value(self, node: cst.BaseExpression) -> list | tuple | Raised | None:
        """The sequence `node` evaluates to, Raised when Python raises there, None when not decided."""
        if isinstance(node, cst.Name):
            if node.value in self.known:
                found = self.known[node.value]
                return list(found) if isinstance(found, list) else found  # a list: a fresh copy
            return self.global_sequence(node.value)
        if node.lpar and isinstance(node, cst.Tuple) and not node.elements:
            return ()
        shown = display(node)
        if shown is not None:
            return shown
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node)
        if isinstance(node, cst.Subscript):
            return self._slice(node)
        if isinstance(node, cst.Call):
            return self._convert(node)
        return None

    def _binary(self, node: cst.BinaryOperation) -> list | tuple | Raised | None:
        left = self.value(node.left)
        if isinstance(left, Raised):
            return left
        if isinstance(node.operator, cst.Add):
            right = self.value(node.right)
            if left is None or right is None or isinstance(right, Raised):
                return None if left is None else right
            return _run(lambda: left + right)  # type: ignore[operator]
        if isinstance(node.operator, cst.Multiply):
            if left is not None and isinstance(node.right, cst.Integer):
                count = number(node.right)
                return _run(lambda: left * count) if len(left) * max(count, 0) <= _LONGEST else None  # type: ignore[operator]
            right = self.value(node.right)
            if left is None and isinstance(node.left, cst.Integer) and right is not None and not isinstance(right, Raised):
                count = number(node.left)
                return _run(lambda: count * right) if len(right) * max(count, 0) <= _LONGEST else None  # type: ignore[operator]
        return None

    def _slice(self, node: cst.Subscript) -> list | tuple | Raised | None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
            return None
        part = node.slice[0].slice
        bounds = []
        for bound in (part.lower, part.upper, part.step):
            v = None if bound is None else number(bound)
            if bound is not None and type(v) is not int:
                return None
            bounds.append(v)
        seq = self.value(node.value)
        if seq is None or isinstance(seq, Raised):
            return seq
        return _run(lambda: seq[slice(*bounds)])

    def _convert(self, node: cst.Call) -> list | tuple | Raised | None:
        if not (isinstance(node.func, cst.Name) and node.func.value in ("tuple", "list") and len(node.args) == 1
                and not node.args[0].keyword and not node.args[0].star):
            return None
        name = node.func.value
        if name in self.local or name in self.ns.links or self.ns.value_of(name) is not ABSENT:
            return None  # not the builtin
        seq = self.value(node.args[0].value)
        if seq is None or isinstance(seq, Raised):
            return seq
        return tuple(seq) if name == "tuple" else list(seq)


def _run(compute) -> list | tuple | Raised | None:  # noqa: ANN001 - a thunk
    try:
        out = compute()
    except (TypeError, ValueError, OverflowError) as exc:
        return Raised(exc)
    return out if numbers_only(out) else None
