"""Mask stores into one-element arrays (analysis/one_d_masks.py) become selects. Before::

    K = np.ones_like(year)
    K[:] = 2
    K[np.atleast_1d(leap)] = 1
    mon = E - 13
    mon[E < 14] = E[E < 14] - 1
    mon[N < 32] = f(N)

After::

    K = np.atleast_1d(1)
    K = np.atleast_1d(2)
    K = np.atleast_1d(1) if np.atleast_1d(leap) else K
    mon = E - 13
    mon = np.atleast_1d(E - 1) if E < 14 else mon
    value = f(N)
    mon = np.atleast_1d(value) if N < 32 else mon

On a lane a one-element array is its number and its mask its truth. The value is cast to the
target's dtype as NumPy's assignment casts it: a NumPy value with `.astype` (the same cast
loop), a constant folded here (a float constant into an int array only when it is finite and fits:
NumPy raises for NaN and casts others its own way, refused). A value is evaluated before the mask,
on every lane, as Python does (`value = f(N)` above); one that reads `a[mask]` under the store's
own mask is element-wise (checked: operators only, a mask without calls), so it cannot raise, and
runs on the lanes the mask selects: there the read is the array itself. A masked read anywhere
else is refused: an empty array's `.item()`, sum or length is not its number's.

The rewrite changes the name, not the array: it is exact only where no other name or object holds
the array. Each stored name must be made fresh on every assignment (arithmetic, a comparison, np.ones_like
/ zeros_like / full_like, `.astype`, `.copy`, np.array, also an item of `p, q = np.array(a), np.array(b)`),
not be a parameter, and be read only as an operand, an indexed or attribute base, or in `return`.
"""

from __future__ import annotations

import math

import libcst as cst

from ..analysis.facts import Facts
from ..core.types import BOOL, FLOAT, INT, Type
from ..errors import VectorizeError
from .base import Context, code, expr

DTYPES = {FLOAT: "np.float64", INT: "np.int64", BOOL: "np.bool_"}
HINT = "write the scalar form (np.where, or an if on x.item()) or keep the array in one name"
FRESH_CALLS = ("ones_like", "zeros_like", "full_like", "copy", "astype", "array")
LIKE = {"ones_like": 1, "zeros_like": 0, "full_like": None}
ELEMENTWISE = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget)


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    text = code(func)
    if "[" not in text and "_like(" not in text:
        return func
    facts = ctx.analyze(func)

    def refuse(node: cst.CSTNode, message: str) -> VectorizeError:
        location = ctx.parsed.location(node) if ctx.parsed is not None else None
        return VectorizeError(message, location, hint=HINT, construct=type(node).__name__)

    names = {t.value.value for t in facts.one_d_stores if isinstance(t.value, cst.Name)}
    _check_unshared(func, names, facts, refuse)
    return func.visit(_Rewrite(ctx, facts, refuse))  # type: ignore[return-value]


def _check_unshared(func: cst.FunctionDef, names: set[str], facts: Facts, refuse) -> None:
    params = {p.name.value for p in func.params.params}
    for name in names & params:
        raise refuse(func, f"assigning into {name!r}, a parameter: the caller's array would change with it")
    parents: list[cst.CSTNode] = []

    class Walk(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    pairs = _pairs(t.target, node.value)  # `p, q = np.array(a), np.array(b)`: each name its value
                    if pairs is None and not isinstance(t.target, cst.Name | cst.Subscript) and _mentions(t.target, names):
                        raise refuse(t.target, "unpacking into a name that is assigned into with a mask")
                    for name, value in pairs or ([(t.target.value, node.value)] if isinstance(t.target, cst.Name) else []):
                        if name in names and not _fresh(value, facts):
                            raise refuse(value, f"{name!r} is assigned into with a mask but may share its array with "
                                         "another name here (the store would change both)")
            if isinstance(node, cst.Name) and node.value in names and parents and not _allowed(node, parents):
                raise refuse(node, f"{node.value!r} is assigned into with a mask and read here where another name "
                             "or object may keep its array (the store would change both)")
            parents.append(node)
            return not isinstance(node, cst.Return)  # what is returned is not stored into later

        def on_leave(self, original: cst.CSTNode) -> None:
            parents.pop()

    func.body.visit(Walk())


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """(name, value) of `a, b = x, y` (names, a display of as many items, no star); else None."""
    displays = isinstance(target, cst.Tuple | cst.List) and isinstance(value, cst.Tuple | cst.List)
    pairs = list(zip(target.elements, value.elements)) if displays else []  # type: ignore[attr-defined]
    if not displays or len(target.elements) != len(value.elements) or not all(  # type: ignore[attr-defined]
            type(t) is cst.Element and isinstance(t.value, cst.Name) and type(v) is cst.Element for t, v in pairs):
        return None
    return [(t.value.value, v.value) for t, v in pairs]


def _mentions(node: cst.CSTNode, names: set[str]) -> bool:
    found: list[bool] = []

    class Find(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            found.append(n.value in names)

    node.visit(Find())
    return any(found)


def _fresh(value: cst.BaseExpression, facts: Facts) -> bool:
    if isinstance(value, ELEMENTWISE):
        return True
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "atleast_1d" \
            and len(value.args) == 1 and value.args[0].value in facts.vals:
        return facts.vals[value.args[0].value].one_d is False  # of a number: a new array (of an array: itself)
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in FRESH_CALLS


def _allowed(node: cst.Name, parents: list[cst.CSTNode]) -> bool:
    parent = parents[-1]
    if isinstance(parent, cst.Assign | cst.AssignTarget | cst.Subscript | cst.Attribute):
        return not isinstance(parent, cst.Assign) or parent.value is not node  # `b = a` shares it
    if isinstance(parent, ELEMENTWISE) or (isinstance(parent, cst.Element) and isinstance(parents[-3:][0], cst.AssignTarget)):
        return True  # an operand; or bound by `p, q = ...` (each value checked fresh above)
    if isinstance(parent, cst.Arg) and len(parents) > 1:  # np.ones_like(a); np.array(np.broadcast_arrays(a, b)[0])
        copied = [type(p) for p in parents[-4:-2]] == [cst.Arg, cst.Subscript] and _method(parents[-5], ("array", "copy"))
        return _method(parents[-2], FRESH_CALLS[:3]) or (_method(parents[-2], ("broadcast_arrays",)) and copied)
    return False


def _method(node: cst.CSTNode, names: tuple[str, ...]) -> bool:  # `<...>.name(...)`
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in names


class _Rewrite(cst.CSTTransformer):
    def __init__(self, ctx: Context, facts: Facts, refuse) -> None:
        super().__init__()
        self.ctx, self.facts, self.refuse = ctx, facts, refuse
        self.allowed_reads: set[cst.Subscript] = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        for small in node.body:
            if isinstance(small, cst.Assign) and any(t.target in self.facts.one_d_stores for t in small.targets):
                self._check_reads(small)
        return True

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        """np.ones_like(a) of a one-element array: np.atleast_1d of the constant, cast to a's dtype."""
        f = original.func
        if not (isinstance(f, cst.Attribute) and f.attr.value in LIKE and original.args
                and self.facts.vals.get(original.args[0].value) is not None
                and self.facts.vals[original.args[0].value].one_d and original in self.facts.vals
                and self.facts.vals[original].one_d):
            return updated
        t = self.facts.vals[original].type
        assert isinstance(t, Type)
        fill = self.facts.vals[original.args[1].value].const if f.attr.value == "full_like" else LIKE[f.attr.value]
        return expr(f"np.atleast_1d({_folded(fill, t, original, self.refuse)})")

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if node.target in self.facts.one_d_reads:
            raise self.refuse(node.target, "an augmented assignment into a one-element array under a mask "
                              "(a[mask] -= v: NumPy's in-place operator casts its own way) is not supported here")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node in self.facts.one_d_reads and node not in self.allowed_reads:
            raise self.refuse(node, "a masked read of a one-element array (a 0- or 1-element array) is supported only in "
                              "the value assigned under the same mask, through element-wise operators")

    def _check_reads(self, small: cst.Assign) -> None:
        if len(small.targets) != 1:
            raise self.refuse(small.targets[0].target, "a chained assignment into a one-element array")
        target = small.targets[0].target
        assert isinstance(target, cst.Subscript)
        mask = _mask(target)
        reads: list[cst.Subscript] = []
        _collect(small.value, self.facts, reads, True, self.refuse)
        if reads and _mentions_call(small.value):
            raise self.refuse(small.value, "a value that reads a one-element array under a mask and calls a function "
                              "(the call would run on the masked lanes only)")
        for r in reads:
            if mask is None or not r.slice[0].slice.value.deep_equals(mask) or _mentions_call(mask):  # type: ignore[attr-defined]
                raise self.refuse(r, "a masked read of a one-element array under a mask other than the store's own "
                                  "(or one with calls, which would run twice)")
            self.allowed_reads.add(r)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.BaseStatement | cst.FlattenSentinel:
        if len(original.body) != 1 or not isinstance(original.body[0], cst.Assign):
            return updated
        target = original.body[0].targets[0].target
        if target not in self.facts.one_d_stores:
            return updated
        assert isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)
        name, base = target.value.value, self.facts.one_d_stores[target]
        assert isinstance(base.type, Type)
        value = original.body[0].value
        mask = _mask(target)
        reads = [r for r in self.allowed_reads if _inside(r, value)]
        out: list[cst.BaseStatement] = []
        val = self.facts.vals[value]
        if val.const is not None and not val.batched and not val.numpy and not val.one_d:
            cast = f"np.atleast_1d({_folded(val.const, base.type, value, self.refuse)})"
        else:
            text = code(value.visit(_Unmask(reads)))
            if not reads and mask is not None:  # evaluated on every lane, before the mask, as Python does
                tmp = self.ctx.namer.fresh("value")
                out.append(updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(tmp))], expr(text))]))
                text = tmp
            if not (val.numpy or val.one_d) and not (val.type is FLOAT and base.type is FLOAT):
                raise self.refuse(value, "assigning a Python number that is not a constant into a one-element array "
                                  "of another type (NumPy's conversion of a Python number raises where its cast of "
                                  "an array does not)")
            cast = f"np.atleast_1d({text})"
            if val.type is not base.type:
                cast += f".astype(dtype={DTYPES[base.type]})"
        new = cast if mask is None else f"{cast} if {code(mask)} else {name}"
        out.append(updated.with_changes(body=[cst.Assign([cst.AssignTarget(cst.Name(name))], expr(new))]))
        return cst.FlattenSentinel(out) if len(out) > 1 else out[0]


def _mask(target: cst.Subscript) -> cst.BaseExpression | None:
    part = target.slice[0].slice
    return part.value if isinstance(part, cst.Index) else None


def _collect(node: cst.CSTNode, facts: Facts, reads: list[cst.Subscript], ok: bool, refuse) -> None:
    """The masked reads under `node`; refused where an operation other than an element-wise operator
    (a call, `**`, an attribute) takes one."""
    if isinstance(node, cst.Subscript) and node in facts.one_d_reads:
        if not ok:
            raise refuse(node, "a masked read of a one-element array is supported only through element-wise "
                         "operators (+ - * / // % comparisons, unary -) into a store under the same mask")
        reads.append(node)
        return
    through = ok and isinstance(node, ELEMENTWISE) and not (
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power | cst.MatrixMultiply))
    for child in node.children:
        _collect(child, facts, reads, through, refuse)


def _mentions_call(node: cst.CSTNode) -> bool:
    found: list[bool] = []

    class Find(cst.CSTVisitor):
        def visit_Call(self, n: cst.Call) -> None:
            found.append(True)

    node.visit(Find())
    return bool(found)


def _inside(node: cst.CSTNode, root: cst.CSTNode) -> bool:
    found: list[bool] = []

    class Find(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if n is node:
                found.append(True)
            return not found

    root.visit(Find())
    return bool(found)


class _Unmask(cst.CSTTransformer):
    def __init__(self, reads: list[cst.Subscript]) -> None:
        super().__init__()
        self.reads = reads

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        return updated.value if original in self.reads else updated


def _folded(c: object, t: Type, node: cst.CSTNode, refuse) -> str:
    """A constant as NumPy's assignment into an array of type `t` casts it."""
    if t is BOOL:
        return repr(bool(c))
    if t is FLOAT:
        try:
            return repr(float(c))  # type: ignore[arg-type]
        except OverflowError:
            raise refuse(node, "an int constant too large for a float64 array (NumPy raises OverflowError)") from None
    if isinstance(c, float) and not (math.isfinite(c) and -2.0**63 <= c < 2.0**63):
        raise refuse(node, "a float constant that is NaN, infinite or beyond int64 assigned into an int array "
                     "(NumPy raises or casts it its own way)")
    v = int(c)  # type: ignore[call-overload]
    if not -2**63 <= v < 2**63:
        raise refuse(node, "an int constant beyond int64 assigned into an int64 array (NumPy raises OverflowError)")
    return repr(v)
