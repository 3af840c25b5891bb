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

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import COMPARES
from ...core.text import is_number
from ...core.types import BOOL, FLOAT, INT, ArrayType, TupleType, Type, Val
from ...rules import scalar as rules
from ...rules.arrays import Arg
from ..base import paren

if TYPE_CHECKING:
    from .lowering import Lowering


def mask_and(mask: str | None, cond: str) -> str:
    if mask is None or mask == cond:
        return cond
    return f"{paren(mask)} & {paren(cond)}"


def where(cond: str, yes: str, no: str, t: Type) -> str:
    """A batched choice: bool algebra for bools (np.where's per-lane branch costs ~3 ns a lane on
    a random `cond`, `&`/`|` a tenth of that), else `_vz_where` (runtime.where: np.where, or a
    bit select for 8-byte numbers); parenthesized, as an operand of `~` or `&` may be."""
    if t is BOOL:
        if yes == "True":
            return f"({paren(no)} | {paren(cond)})"
        if yes == "False":
            return f"({paren(no)} & ~{paren(cond)})"
        if no == "False":
            return f"({paren(cond)} & {paren(yes)})"
        if no == "True":
            return f"(~{paren(cond)} | {paren(yes)})"
        return f"(({paren(cond)} & {paren(yes)}) | (~{paren(cond)} & {paren(no)}))"
    return f"_vz_where({cond}, {yes}, {no})"


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


def simple(text: str) -> bool:
    """A name, a number or a NumPy constant: an operand to use twice without a temporary."""
    t = text.strip()
    return t.isidentifier() or is_number(t) or t in ("np.pi", "np.e", "np.inf", "np.nan", "-np.inf")


class Choices:
    """Lowers the choices of one `ops_to_numpy` lowering, each side under the mask of its lanes."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.ctx = low.ctx
        self.facts = low.facts

    def select(self, cond: str, body: cst.BaseExpression, orelse: cst.BaseExpression, t: Type,
               mask: str | None, batched: bool) -> str:
        """`body if cond else orelse` with each side's flags masked by the lanes that pick it."""
        if isinstance(t, ArrayType):
            yes = Arg(self.low.exprs.lower(body, mask_and(mask, cond)), self.facts.val(body))
            no_mask = mask_and(mask, f"~{paren(cond)}" if batched else f"not {paren(cond)}")
            no = Arg(self.low.exprs.lower(orelse, no_mask), self.facts.val(orelse))
            if not batched:
                return f"({yes.text} if {cond} else {no.text})"
            return self.low.arrays.select(cond, Val(BOOL, True), yes, no)
        if not batched:  # one side for every lane: Python's own laziness
            return self.uniform_branches(cond, body, orelse, t, mask)
        yes = self.low.exprs.coerce(self.low.exprs.lower(body, mask_and(mask, cond)), self.facts.type(body), t, mask_and(mask, cond))
        no_mask = mask_and(mask, f"~{paren(cond)}")
        no = self.low.exprs.coerce(self.low.exprs.lower(orelse, no_mask), self.facts.type(orelse), t, no_mask)
        return where(cond, yes, no, t)

    def uniform_branches(self, cond: str, yes: cst.BaseExpression, no: cst.BaseExpression, t: Type,
                         mask: str | None) -> str:
        """`yes if cond else no` on a uniform `cond`: each side is lowered inside its own Python
        branch, so only the side Python evaluates runs (and can fail); when neither side needs a
        statement, a conditional expression says the same."""
        start = len(self.low.lines)
        values, ends = [], []
        mixed = self.facts.val(yes).batched or self.facts.val(no).batched  # the result is an array on some lanes
        for header, side in ((f"if {cond}:", yes), ("else:", no)):
            self.low.emit(header)
            self.low.depth += 1
            values.append(self.low.exprs.numpy_scalar(self.low.exprs.coerce(self.low.exprs.lower(side, mask), self.facts.type(side), t, mask), side, t,
                                            mixed))
            self.low.depth -= 1
            ends.append(len(self.low.lines))
        if ends[1] == start + 2:
            del self.low.lines[start:]
            return f"({values[0]} if {cond} else {values[1]})"
        result, inner = self.ctx.namer.fresh("v"), "    " * (self.low.depth + 1)
        self.low.lines.append(f"{inner}{result} = {values[1]}")
        self.low.lines.insert(ends[0], f"{inner}{result} = {values[0]}")  # before the `else:`
        return result

    def lazily(self, header: str, produce: Callable[[], str]) -> tuple[str, bool]:
        """Emit `header` and lower the code `produce` makes in its block; (its value, whether any
        statement was needed). With none, the header is taken back: an expression will do."""
        start = len(self.low.lines)
        self.low.emit(header)
        self.low.depth += 1
        value = produce()
        self.low.depth -= 1
        if len(self.low.lines) == start + 1:
            del self.low.lines[start:]
            return value, False
        return value, True

    def boolean(self, node: cst.BooleanOperation, mask: str | None) -> str:
        val = self.facts.val(node)
        left_t, right_t = self.facts.type(node.left), self.facts.type(node.right)
        is_and = isinstance(node.operator, cst.And)
        decided = decided_side(self.facts.val(node.left), node.left if is_and else node.right,
                               node.right if is_and else node.left)
        if decided is not None:  # `1 and x` is `x`, as the analysis typed it: the other side never runs
            return self.low.exprs.lower(decided, mask)
        left = self.low.exprs.lower(node.left, mask)
        t = val.type
        if not self.facts.val(node.left).batched:  # a uniform left side decides for every lane
            truth = self.low.exprs.truthy(left, left_t)  # a uniform scalar expression: cheap to evaluate twice
            left_c = self.low.exprs.numpy_scalar(self.low.exprs.coerce(left, left_t, t, mask), node.left, t, val.batched)
            start = len(self.low.lines)
            right, needed = self.lazily(f"if {truth if is_and else f'not {paren(truth)}'}:", lambda: self.low.exprs.numpy_scalar(
                self.low.exprs.coerce(self.low.exprs.lower(node.right, mask), self.facts.type(node.right), t, mask), node.right, t))
            if not needed:
                return f"({left_c} {'and' if is_and else 'or'} {right})"
            result = self.ctx.namer.fresh("v")
            self.low.lines.insert(start, "    " * self.low.depth + f"{result} = {left_c}")
            self.low.lines.append("    " * (self.low.depth + 1) + f"{result} = {right}")
            return result
        left = self.low.temp(left, "c") if not simple(left) else left
        truth = self.low.exprs.truthy(left, left_t)
        takes_right = truth if is_and else f"~{paren(truth)}"
        right = self.low.exprs.lower(node.right, mask_and(mask, takes_right))
        if left_t is BOOL and right_t is BOOL:
            return f"({left} {'&' if is_and else '|'} {paren(right)})"
        left_c = self.low.exprs.coerce(left, left_t, t, mask_and(mask, f"~{paren(takes_right)}"))
        right_c = self.low.exprs.coerce(right, right_t, t, mask_and(mask, takes_right))
        return where(truth, right_c, left_c, t) if is_and else where(truth, left_c, right_c, t)

    def comparison(self, node: cst.Comparison, mask: str | None) -> str:
        """`a < b < c` is `(a < b) & (b < c)`, b evaluated once, c's flags only where a < b."""
        batched = self.facts.val(node).batched
        operands = [node.left] + [c.comparator for c in node.comparisons]
        ops = [COMPARES[type(c.operator)] for c in node.comparisons]
        chained = len(ops) > 1
        if chained and not batched:
            return self.uniform_chain(operands, ops, mask)
        prev = self.low.exprs.lower(operands[0], mask)
        parts: list[str] = []
        cond_mask = mask
        for i, op in enumerate(ops):
            nxt = self.low.exprs.lower(operands[i + 1], cond_mask)
            if chained and i + 1 < len(ops):
                nxt = self.low.temp(nxt)
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev, nxt = self.low.temp(prev), self.low.temp(nxt)
                for c in impl.checks:
                    self.low.check(cond_mask, c.pred.format(prev, nxt))
            part = f"({impl.expr.format(prev, nxt)})"
            parts.append(part)
            cond_mask = mask_and(cond_mask, part)
            prev = nxt
        if not chained:
            return parts[0]
        return "(" + (" & " if batched else " and ").join(parts) + ")"

    def uniform_chain(self, operands: list[cst.BaseExpression], ops: list[str], mask: str | None) -> str:
        """`a < b < c` on uniform values: nested Python ifs, so `c` is only evaluated (and can
        only raise) when `a < b`, as in Python."""
        result = self.ctx.namer.fresh("c")
        prev = self.low.exprs.lower(operands[0], mask)
        for i, op in enumerate(ops):
            if i:
                self.low.emit(f"if {result}:")
                self.low.depth += 1
            nxt = self.low.temp(self.low.exprs.lower(operands[i + 1], mask))
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev = self.low.temp(prev)
                for c in impl.checks:
                    self.low.check_uniform(mask, c.pred.format(prev, nxt))
            self.low.emit(f"{result} = {impl.expr.format(prev, nxt)}")
            prev = nxt
        self.low.depth -= len(ops) - 1
        return result

    def min_max(self, name: str, operands: list[cst.BaseExpression], t: Type, mask: str | None, batched: bool) -> str:
        """Python's min/max keep the first of equal items: min(a, b) is `b if b < a else a`."""
        op = "<" if name == "min" else ">"
        acc_t = self.facts.type(operands[0])
        acc = self.low.exprs.lower(operands[0], mask)
        acc = self.low.temp(acc if batched else self.low.exprs.numpy_scalar(acc, operands[0], acc_t))
        acc_val = self.facts.val(operands[0])
        for operand in operands[1:]:
            nxt_t = self.facts.type(operand)
            nxt = self.low.exprs.lower(operand, mask)
            nxt = self.low.temp(nxt if batched else self.low.exprs.numpy_scalar(nxt, operand, nxt_t))
            ufunc = min_max_ufunc(name, acc_val, self.facts.val(operand), t)
            acc_val = Val(t, batched)  # from here on a computed value: no constant
            if batched and ufunc is not None:  # one pass, no compare and select
                acc, acc_t = self.low.temp(f"{ufunc}({acc}, {nxt})"), t
                continue
            impl = rules.compare(op, nxt_t, acc_t)
            for c in impl.checks:
                self.low.check(mask, c.pred.format(nxt, acc))
            cond = self.low.temp(impl.expr.format(nxt, acc), "c") if batched else impl.expr.format(nxt, acc)
            new_t = t
            yes = self.low.exprs.coerce(nxt, nxt_t, new_t, mask_and(mask, cond))
            no = self.low.exprs.coerce(acc, acc_t, new_t, mask_and(mask, f"~{paren(cond)}" if batched else f"not ({cond})"))
            acc = self.low.temp(where(cond, yes, no, new_t) if batched else f"({yes} if {cond} else {no})")
            acc_t = new_t
        return acc
