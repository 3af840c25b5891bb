"""Choices of `ops_to_numpy`: what picks or combines values lane by lane: conditional
expressions, `and`/`or`, comparisons (chained), `min`/`max`.

A batched choice becomes `_vz_where` (np.where's meaning, runtime.where's speed) or bool algebra,
each side lowered under the mask of the lanes that take it (so its flags only count there); a
uniform one stays a Python conditional, so only the side Python evaluates runs::

    y = a / b if a > 0 else 0.0    ->   c = a > 0
                                        flag |= c & (b == 0)
                                        y = _vz_where(c, a / b, 0.0)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import COMPARES
from ...core import nodes as n
from ...core.nodes import Mask, mask_and
from ...core.pyast import Else, assign
from ...core.types import BOOL, FLOAT, INT, ArrayType, TupleType, Type, Val
from ...rules import scalar as rules
from .arrays import Arg

if TYPE_CHECKING:
    from .lowering import Lowering


def where(cond: ast.expr, yes: ast.expr, no: ast.expr, t: Type) -> ast.expr:
    """A batched choice: bool algebra for bools (np.where's per-lane branch costs ~3 ns a lane on
    a random `cond`, `&`/`|` a tenth of that), else `_vz_where` (runtime.where: np.where, or a
    bit select for 8-byte numbers)."""
    if t is BOOL:
        if n.is_bool(yes, True):
            return n.binop(no, "|", cond)
        if n.is_bool(yes, False):
            return n.binop(no, "&", n.unary("~", cond))
        if n.is_bool(no, False):
            return n.binop(cond, "&", yes)
        if n.is_bool(no, True):
            return n.binop(n.unary("~", cond), "|", yes)
        return n.binop(n.binop(cond, "&", yes), "|", n.binop(n.unary("~", cond), "&", no))
    return n.call("_vz_where", cond, yes, no)


def min_max_ufunc(name: str, acc: Val, item: Val, t: Type) -> str | None:
    """The NumPy ufunc that computes Python's `min(acc, item)` / `max(acc, item)` bit for bit on
    every lane, else None. Ints: np.minimum / np.maximum. Floats where one side is a constant
    other than 0.0 and NaN (a tie then has the same bits, and no -0.0 / 0.0 choice arises, which
    NumPy's SIMD and scalar loops make differently): a NaN `acc` stays (Python keeps the first
    item unless the next is smaller / larger), so np.minimum / np.maximum with the constant as
    `item`, np.fmin / np.fmax (they return the number beside a NaN) with the constant as `acc`."""
    if acc.type is not t or item.type is not t:
        return None
    if t is INT:
        return f"np.{'minimum' if name == 'min' else 'maximum'}"
    if t is not FLOAT:
        return None
    plain = {"min": "np.minimum", "max": "np.maximum"}[name]
    if _float_constant(item.const) and not _float_constant(acc.const):
        return plain
    if _float_constant(acc.const) and not _float_constant(item.const):
        return plain.replace("np.m", "np.fm").replace("imum", "")
    return None


def _float_constant(value: object) -> bool:
    return type(value) is float and value == value and value != 0.0


def decided_side(test: Val, if_false: cst.BaseExpression, if_true: cst.BaseExpression) -> cst.BaseExpression | None:
    """The side a constant test picks (`and`/`or` with a constant left side, `a if True else b`),
    or None: the analysis gives such an expression the type of that side alone."""
    if test.const is None or test.batched or isinstance(test.type, TupleType):
        return None
    return if_true if test.const else if_false


class Choices:
    """Lowers the choices of one `ops_to_numpy` lowering, each side under the mask of its lanes."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.ctx = low.ctx
        self.facts = low.facts

    def select(self, cond: ast.expr, body: cst.BaseExpression, orelse: cst.BaseExpression, t: Type,
               mask: Mask, batched: bool) -> ast.expr:
        """`body if cond else orelse` with each side's flags masked by the lanes that pick it."""
        exprs = self.low.exprs
        if isinstance(t, ArrayType):
            yes = Arg(exprs.lower(body, mask_and(mask, cond)), self.facts.val(body))
            no_mask = mask_and(mask, n.unary("~" if batched else "not", cond))
            no = Arg(exprs.lower(orelse, no_mask), self.facts.val(orelse))
            if not batched:
                return n.ifexp(cond, yes.node, no.node)
            return self.low.arrays.select(cond, Val(BOOL, True), yes, no)
        if not batched:  # one side for every lane: Python's own laziness
            return self.uniform_branches(cond, body, orelse, t, mask)
        yes_ = exprs.coerce(exprs.lower(body, mask_and(mask, cond)), self.facts.type(body), t, mask_and(mask, cond))
        no_mask = mask_and(mask, n.unary("~", cond))
        no_ = exprs.coerce(exprs.lower(orelse, no_mask), self.facts.type(orelse), t, no_mask)
        return where(cond, yes_, no_, t)

    def uniform_branches(self, cond: ast.expr, yes: cst.BaseExpression, no: cst.BaseExpression, t: Type,
                         mask: Mask) -> ast.expr:
        """`yes if cond else no` on a uniform `cond`: each side is lowered inside its own Python
        branch, so only the side Python evaluates runs (and can fail); when neither side needs a
        statement, a conditional expression says the same."""
        exprs, lines = self.low.exprs, self.low.lines
        start = len(lines)
        values, ends = [], []
        mixed = self.facts.val(yes).batched or self.facts.val(no).batched  # the result is an array on some lanes
        for header, side in ((n.if_(cond), yes), (Else(), no)):
            self.low.open(header)
            values.append(exprs.numpy_scalar(exprs.coerce(exprs.lower(side, mask), self.facts.type(side), t, mask),
                                             side, t, mixed))
            self.low.depth -= 1
            ends.append(len(lines))
        if ends[1] == start + 2:
            del lines[start:]
            return n.ifexp(cond, values[0], values[1])
        result, inner = self.ctx.namer.fresh("v"), self.low.depth + 1
        lines.append((inner, assign(result, values[1])))
        lines.insert(ends[0], (inner, assign(result, values[0])))  # before the `else:`
        return n.name(result)

    def lazily(self, header: ast.stmt, produce: Callable[[], ast.expr]) -> tuple[ast.expr, bool]:
        """Emit `header` and lower the code `produce` makes in its block; (its value, whether any
        statement was needed). With none, the header is taken back: an expression will do."""
        start = len(self.low.lines)
        self.low.open(header)
        value = produce()
        self.low.depth -= 1
        if len(self.low.lines) == start + 1:
            del self.low.lines[start:]
            return value, False
        return value, True

    def boolean(self, node: cst.BooleanOperation, mask: Mask) -> ast.expr:
        exprs = self.low.exprs
        val = self.facts.val(node)
        left_t, right_t = self.facts.type(node.left), self.facts.type(node.right)
        is_and = isinstance(node.operator, cst.And)
        decided = decided_side(self.facts.val(node.left), node.left if is_and else node.right,
                               node.right if is_and else node.left)
        if decided is not None:  # `1 and x` is `x`, as the analysis typed it: the other side never runs
            return exprs.lower(decided, mask)
        left = exprs.lower(node.left, mask)
        t = val.type
        if not self.facts.val(node.left).batched:  # a uniform left side decides for every lane
            truth = exprs.truthy(left, left_t)  # a uniform scalar expression: cheap to evaluate twice
            left_c = exprs.numpy_scalar(exprs.coerce(left, left_t, t, mask), node.left, t, val.batched)
            start = len(self.low.lines)
            right, needed = self.lazily(n.if_(truth if is_and else n.unary("not", truth)), lambda: exprs.numpy_scalar(
                exprs.coerce(exprs.lower(node.right, mask), self.facts.type(node.right), t, mask), node.right, t))
            if not needed:
                return n.boolop(is_and, [left_c, right])
            result = self.ctx.namer.fresh("v")
            self.low.lines.insert(start, (self.low.depth, assign(result, left_c)))
            self.low.lines.append((self.low.depth + 1, assign(result, right)))
            return n.name(result)
        left = self.low.temp(left, "c")
        truth = exprs.truthy(left, left_t)
        takes_right = truth if is_and else n.unary("~", truth)
        right = exprs.lower(node.right, mask_and(mask, takes_right))
        if left_t is BOOL and right_t is BOOL:
            return n.binop(left, "&" if is_and else "|", right)
        left_c = exprs.coerce(left, left_t, t, mask_and(mask, n.unary("~", takes_right)))
        right_c = exprs.coerce(right, right_t, t, mask_and(mask, takes_right))
        return where(truth, right_c, left_c, t) if is_and else where(truth, left_c, right_c, t)

    def comparison(self, node: cst.Comparison, mask: Mask) -> ast.expr:
        """`a < b < c` is `(a < b) & (b < c)`, b evaluated once, c's flags only where a < b."""
        batched = self.facts.val(node).batched
        operands = [node.left] + [c.comparator for c in node.comparisons]
        ops = [COMPARES[type(c.operator)] for c in node.comparisons]
        chained = len(ops) > 1
        if chained and not batched:
            return self.uniform_chain(operands, ops, mask)
        prev = self.low.exprs.lower(operands[0], mask)
        parts: list[ast.expr] = []
        cond_mask = mask
        for i, op in enumerate(ops):
            nxt = self.low.exprs.lower(operands[i + 1], cond_mask)
            if chained and i + 1 < len(ops):
                nxt = self.low.temp(nxt)
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev, nxt = self.low.temp(prev), self.low.temp(nxt)
                for c in impl.checks:
                    self.low.check(cond_mask, n.fill(c.pred, prev, nxt))
            part = n.fill(impl.expr, prev, nxt)
            parts.append(part)
            cond_mask = mask_and(cond_mask, part)
            prev = nxt
        if not chained:
            return parts[0]
        return n.chain("&", parts) if batched else n.boolop(True, parts)

    def uniform_chain(self, operands: list[cst.BaseExpression], ops: list[str], mask: Mask) -> ast.expr:
        """`a < b < c` on uniform values: nested Python ifs, so `c` is only evaluated (and can
        only raise) when `a < b`, as in Python."""
        result = self.ctx.namer.fresh("c")
        prev = self.low.exprs.lower(operands[0], mask)
        for i, op in enumerate(ops):
            if i:
                self.low.open(n.if_(n.name(result)))
            nxt = self.low.temp(self.low.exprs.lower(operands[i + 1], mask))
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev = self.low.temp(prev)
                for c in impl.checks:
                    self.low.check_uniform(mask, n.fill(c.pred, prev, nxt))
            self.low.emit(assign(result, n.fill(impl.expr, prev, nxt)))
            prev = nxt
        self.low.depth -= len(ops) - 1
        return n.name(result)

    def min_max(self, name: str, operands: list[cst.BaseExpression], t: Type, mask: Mask, batched: bool) -> ast.expr:
        """Python's min/max keep the first of equal items: min(a, b) is `b if b < a else a`."""
        exprs = self.low.exprs
        op = "<" if name == "min" else ">"
        acc_t = self.facts.type(operands[0])
        acc = exprs.lower(operands[0], mask)
        acc = self.low.temp(acc if batched else exprs.numpy_scalar(acc, operands[0], acc_t))
        acc_val = self.facts.val(operands[0])
        for operand in operands[1:]:
            nxt_t = self.facts.type(operand)
            nxt = exprs.lower(operand, mask)
            nxt = self.low.temp(nxt if batched else exprs.numpy_scalar(nxt, operand, nxt_t))
            ufunc = min_max_ufunc(name, acc_val, self.facts.val(operand), t)
            acc_val = Val(t, batched)  # from here on a computed value: no constant
            if batched and ufunc is not None:  # one pass, no compare and select
                acc, acc_t = self.low.temp(n.call(ufunc, acc, nxt)), t
                continue
            impl = rules.compare(op, nxt_t, acc_t)
            for c in impl.checks:
                self.low.check(mask, n.fill(c.pred, nxt, acc))
            test = n.fill(impl.expr, nxt, acc)
            cond = self.low.temp(test, "c") if batched else test
            new_t = t
            yes = exprs.coerce(nxt, nxt_t, new_t, mask_and(mask, cond))
            no = exprs.coerce(acc, acc_t, new_t, mask_and(mask, n.unary("~" if batched else "not", cond)))
            acc = self.low.temp(where(cond, yes, no, new_t) if batched else n.ifexp(cond, yes, no))
            acc_t = new_t
        return acc
