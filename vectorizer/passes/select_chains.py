"""An if/else nested in a batched branch, whose arms only assign values that cannot fail, becomes
conditional expressions: one select each, on the raw test, with no mask of its own.

Under a mask `m`, if_to_select gives each arm of a nested if/else its own mask (`~m & c`,
`~m & ~c`: two negations, two ands) and one select per arm. When nothing in the nested if can
raise, its lanes need no mask at all: `v = a if c else b` is the same value on the lanes of
`~m`, and the enclosing branch's merge picks it only there (clamp, an elif chain of returns).
An elif chain folds from its end: each elif's else arm is by then the selects of the elifs after
it, so a whole chain of such arms becomes one nested select under the first test's mask.

Before::

    if x < lo:
        ret = lo
    else:
        if x > hi:
            ret = hi
        else:
            ret = x

After::

    if x < lo:
        ret = lo
    else:
        ret = hi if x > hi else x

Only where every part evaluates without a check in the NumPy lowering: names, number literals,
`-`/`+` and `+ - *` of floats, comparisons of two floats or two ints (an int literal up to 2**53
counts as a float). Each arm
assigns the same names once, and reads none of them (the assignments are then independent).
A test read by two assignments is computed once (`c = x > hi`). NumPy backend only (the Numba
backend branches per lane).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import Facts
from ..core.types import FLOAT, INT
from .base import Context, StatementTransformer, assign, block, body_of, replace, walk

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply)
_ORDER = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _assignments(stmts: list[cst.BaseStatement]) -> dict[str, cst.BaseExpression] | None:
    """{name: value} for a block of plain `name = value` lines, each name once; else None."""
    out: dict[str, cst.BaseExpression] = {}
    for s in stmts:
        if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign)):
            return None
        small = s.body[0]
        if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            return None
        name = small.targets[0].target.value
        if name in out:
            return None
        out[name] = small.value
    return out or None


class _Chains(StatementTransformer):
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx, self.facts = ctx, facts
        self.depth = 0  # batched ifs around the statement being visited
        self.loops = 0
        self.elifs: set[cst.If] = set()  # ifs that are another if's `elif`
        self.made: dict[cst.IfExp, object] = {}  # selects made here (of safe parts) -> their type

    def visit_While(self, node: cst.While) -> bool:
        self.loops += 1
        return True

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.While:
        self.loops -= 1
        return updated

    def visit_For(self, node: cst.For) -> bool:
        self.loops += 1
        return True

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        self.loops -= 1
        return updated

    def visit_If(self, node: cst.If) -> bool:
        self.depth += bool(self.facts.batched_test.get(node))
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)
        return True

    def leave_If(self, original: cst.If, updated: cst.If):
        batched = bool(self.facts.batched_test.get(original))
        self.depth -= batched
        if batched and isinstance(original.orelse, cst.If):
            # an elif: its parent's else block holds it; an elif chain folds from its end, each
            # elif's else arm already the selects of the ones after it (`updated.orelse`)
            assert isinstance(updated.orelse, cst.If)
            selects = self._selects(original.orelse, updated.orelse)
            if selects is not None:
                updated = updated.with_changes(orelse=cst.Else(block(replace(original.orelse, selects))))
        if original in self.elifs or self.depth == 0:
            return updated  # at the top, if_to_select's one mask is already as cheap
        selects = self._selects(original, updated)
        return updated if selects is None else cst.FlattenSentinel(replace(original, selects))

    def _selects(self, original: cst.If, updated: cst.If) -> list[cst.BaseStatement] | None:
        """`v = a if c else b` for each name both arms assign, or None where that does not hold.
        `original` keys the analysis' facts; `updated` holds the arms as this pass left them."""
        if not self.facts.batched_test.get(original) or self.loops or not isinstance(updated.orelse, cst.Else):
            return None
        then, other = _assignments(body_of(updated.body)), _assignments(body_of(updated.orelse))
        if then is None or other is None or then.keys() != other.keys():
            return None
        names = set(then)
        parts = [original.test, *then.values(), *other.values()]
        if any(isinstance(n, cst.Name) and n.value in names for p in parts[1:] for n in walk(p)):
            return None  # an arm reads what an arm assigns: the order would matter
        if not all(self._safe(p) for p in parts):
            return None
        kinds = {n: self._type(then[n]) for n in names}
        if any(kinds[n] is None or kinds[n] is not self._type(other[n]) for n in names):
            return None  # an int on some lanes, a float on others: if_to_select's merges type it
        out: list[cst.BaseStatement] = []
        test = original.test
        if len(names) > 1 and not isinstance(test, cst.Name):
            cond = self.ctx.namer.fresh("c")
            out.append(assign(cond, test))
            test = cst.Name(cond)
        for name, value in then.items():
            select = cst.IfExp(test=test, body=value, orelse=other[name])
            self.made[select] = kinds[name]
            out.append(assign(name, select))
        return out

    def _type(self, node: cst.BaseExpression) -> object:
        if node in self.made:
            return self.made[node]
        val = self.facts.vals.get(node)
        return None if val is None else val.type

    def _safe(self, node: cst.BaseExpression) -> bool:
        """Evaluating it has no check to make on any lane (so it may run on every lane)."""
        if isinstance(node, cst.Integer | cst.Float) or node in self.made:  # (made of safe parts)
            return True
        val = self.facts.vals.get(node)
        if val is None:
            return False
        if isinstance(node, cst.Name):
            return val.type in (FLOAT, INT) and not val.numpy
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
            return val.type is FLOAT and self._safe(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
            return all(self._is(o, FLOAT) and self._safe(o) for o in (node.left, node.right))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1 \
                and isinstance(node.comparisons[0].operator, _ORDER):
            left, right = node.left, node.comparisons[0].comparator
            return any(self._is(left, t) and self._is(right, t) for t in (FLOAT, INT)) \
                and self._safe(left) and self._safe(right)
        return False

    def _is(self, node: cst.BaseExpression, kind: object) -> bool:
        """Of type `kind`; an int literal that a float holds exactly counts as a float too."""
        if kind is FLOAT and isinstance(node, cst.Integer) and abs(int(node.evaluated_value)) <= 2**53:
            return True
        val = self.facts.vals.get(node)
        return val is not None and val.type is kind


def _nested_if_else(func: cst.FunctionDef) -> bool:
    """Syntax only: an if/else inside a branch of another if (else nothing to do, no analysis)."""
    for node in walk(func):
        if isinstance(node, cst.If):
            for arm in (node.body, node.orelse):
                if arm is not None and any(isinstance(s, cst.If) and isinstance(s.orelse, cst.Else)
                                           for s in body_of(arm)):  # an elif is its parent's else
                    return True
    return False


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not _nested_if_else(func):
        return func
    facts = ctx.analyze(func)
    if not any(facts.batched_test.values()):
        return func
    return func.visit(_Chains(ctx, facts))
