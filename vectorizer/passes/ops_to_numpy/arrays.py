"""The part of `ops_to_numpy` that lowers per-example arrays and NumPy scalars.

Batched arrays are stored `(lanes, *example_shape)`. Operands of different example ranks are
padded after the lane axis (`x[:, None]`) so broadcasting matches NumPy's per-example
broadcasting; indexing gets a leading `:` (`x[i]` -> `x[:, i]`); a per-lane index becomes a
gather (`x[np.arange(len(x)), i]`, which also takes an index that is still one number for all
lanes), with out-of-range lanes flagged (the re-run raises
IndexError) and a safe index substituted so masked lanes never fault; NumPy calls go through
`array_rules.ARRAY_CALLS`. A uniform array that starts receiving per-lane values is copied to a
batched buffer first (it is the function's own array: arguments are never written).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import BINOPS, COMPARES, UNOPS
from ...core import nodes as n
from ...core.nodes import Mask
from ...core.pyast import assign
from ...core.types import BOOL, FLOAT, ArrayType, Val, rank
from ...rules import arrays as array_rules
from ..base import code
from .loops import repeat

if TYPE_CHECKING:
    from .lowering import Lowering


@dataclass(frozen=True)
class Arg:
    """An operand at lowering time: its node and what the analysis knows of it."""

    node: ast.expr
    val: Val

    @property
    def rank(self) -> int:
        return rank(self.val.type)


def pad(arg: Arg, to_rank: int) -> ast.expr:
    """A batched operand of lower rank gets axes after its lane axis: x -> x[:, None]."""
    if not arg.val.batched or arg.rank >= to_rank:
        return arg.node
    return n.subscript(arg.node, [n.full_slice(), *(n.constant(None) for _ in range(to_rank - arg.rank))])


def lower_rule(rule: array_rules.ArrayRule, args: list[Arg], keywords: dict[str, array_rules.Arg], result: Val) -> ast.expr:
    """A rule of rules/arrays.py (its operands and its code are text there), on nodes: each
    operand bracketed unless an atom, and the code it gives parsed."""
    texts = [array_rules.Arg(_text(a.node), a.val) for a in args]
    return ast.parse(rule.lower(texts, keywords, result), mode="eval").body


def _text(node: ast.expr) -> str:
    text = ast.unparse(node)
    atomic = isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript) or (
        isinstance(node, ast.Constant) and not text.startswith("-"))
    return text if atomic else f"({text})"


class ArrayOps:
    """Lowers the array operations of one `ops_to_numpy` lowering."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.facts = low.facts

    def arg(self, node: cst.BaseExpression, mask: Mask) -> Arg:
        return Arg(self.low.exprs.lower(node, mask), self.facts.val(node))

    # -- expressions -------------------------------------------------------------------------
    def binary(self, node: cst.BinaryOperation, mask: Mask) -> ast.expr:
        op = BINOPS[type(node.operator)]
        if op == "@":  # np.matmul's batching rule
            operands = [self.blas_operand(o, mask) for o in (node.left, node.right)]
            return lower_rule(array_rules.ARRAY_CALLS["np.matmul"], operands, {}, self.facts.val(node))
        a, b = self.arg(node.left, mask), self.arg(node.right, mask)
        r = max(a.rank, b.rank)
        if op == "**" and r == 0 and (a.val.zero_d or b.val.zero_d):  # NumPy's array power, never C's pow
            if b.val.one_d:  # a one-element array exponent: no shortcut, even where it is uniform
                return n.call("_vz_stepped_power", a.node, b.node)
            if b.val.batched:
                return n.call("_vz_array_power", a.node, b.node)  # NumPy's shortcuts per lane (runtime/helpers.py)
        elif op == "**" and r == 0 and FLOAT in (a.val.type, b.val.type) and self.low.ctx.options.exact:
            # `**` of float64 NumPy scalars is C's pow; NumPy's array power squares, takes square
            # roots and runs SIMD kernels with other last bits (runtime/exactmath.py's c_pow)
            return n.call("_vz_exact", n.name("_vz_c_pow"), a.node, b.node)
        return n.binop(pad(a, r), op, pad(b, r))

    def unary(self, node: cst.UnaryOperation, mask: Mask) -> ast.expr:
        op = UNOPS[type(node.operator)]
        a = self.arg(node.expression, mask)
        if op == "not":
            return n.unary("~", a.node) if a.val.type is BOOL else n.compare(a.node, "==", n.const(0))
        return n.unary(op, a.node)

    def compare(self, node: cst.Comparison, mask: Mask) -> ast.expr:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        args = [self.arg(o, mask) for o in operands]
        r = max(a.rank for a in args)
        args = [Arg(self.low.temp(a.node) if 0 < i < len(args) - 1 else a.node, a.val) for i, a in enumerate(args)]
        return n.chain("&", [n.compare(pad(args[i], r), COMPARES[type(c.operator)], pad(args[i + 1], r))
                             for i, c in enumerate(node.comparisons)])

    def attribute(self, node: cst.Attribute, mask: Mask) -> ast.expr:
        base = self.arg(node.value, mask)
        attr = node.attr.value
        batched = base.val.batched
        if attr == "shape":
            return n.fill("{0}.shape[1:]" if batched else "{0}.shape", base.node)
        if attr == "size":
            return n.fill("{0}[0].size" if batched else "{0}.size", base.node)
        if attr == "T":
            return n.fill("np.swapaxes({0}, 1, 2)" if batched else "{0}.T", base.node)
        raise AssertionError(attr)

    def length(self, node: cst.BaseExpression, mask: Mask) -> ast.expr:
        base = self.arg(node, mask)
        return n.fill("{0}.shape[1]" if base.val.batched else "{0}.shape[0]", base.node)

    def blas_operand(self, node: cst.BaseExpression, mask: Mask) -> Arg:
        """An operand of a BLAS-backed product. A parameter is a C-contiguous copy in the scalar
        function (each lane's own array): give every lane that layout, so BLAS takes the same
        path and gives the same bits (a no-op when the caller's array already is contiguous)."""
        arg = self.arg(node, mask)
        if isinstance(node, cst.Name) and node.value in self.low.ctx.params and isinstance(arg.val.type, ArrayType):
            return Arg(n.call("np.ascontiguousarray", arg.node), arg.val)
        return arg

    def call(self, name: str, node: cst.Call, mask: Mask) -> ast.expr:
        rule = array_rules.ARRAY_CALLS[name]
        operand = self.blas_operand if rule.blas else self.arg
        args = [operand(a.value, mask) for a in node.args if a.keyword is None]
        if isinstance(node.func, cst.Attribute) and name.startswith("np.") and not _is_module_call(node, self):
            args = [operand(node.func.value, mask), *args]  # a method: x.sum() is np.sum(x)
        keywords = {a.keyword.value: array_rules.Arg(code(a.value), Val(BOOL, False, code(a.value)))
                    if a.keyword.value == "dtype" else array_rules.Arg(_text(self.low.exprs.lower(a.value, mask)),
                                                                       self.facts.val(a.value))
                    for a in node.args if a.keyword is not None}
        if name in ("np.around", "np.round"):
            args, keywords = self.decimals(args, keywords, mask)
        out = lower_rule(rule, args, keywords, self.facts.val(node))
        if name in ("np.sum", "np.prod") and mask is not None and not self.low.loop_depth:
            return self.on_lanes(out, mask, self.facts.val(node))
        return out

    def on_lanes(self, expr: ast.expr, mask: ast.expr, val: Val) -> ast.expr:
        """A reduction with a power in it (`np.sum(n * x[:, None] ** table, axis=1)`, a lane's row
        each) under a batched mask, as `_vz_masked(mask, lambda x: ..., x)`: computed on the
        mask's lanes alone when at most half take the branch (runtime.masked). Each row is
        reduced by itself, so a lane's value is the same bits on fewer rows; the lambda's
        parameters are the names that are per-lane anywhere (the others, tables, it reads)."""
        if not val.batched or isinstance(val.type, ArrayType) \
                or not any(isinstance(b, ast.BinOp) and isinstance(b.op, ast.Pow) for b in ast.walk(expr)):
            return expr
        names = sorted({v.id for v in ast.walk(expr) if isinstance(v, ast.Name) and self._per_lane(v.id)})
        if not names:
            return expr
        params = ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in names], kwonlyargs=[], kw_defaults=[], defaults=[])
        return n.call("_vz_masked", mask, ast.Lambda(args=params, body=expr), *(n.name(v) for v in names))

    def _per_lane(self, name: str) -> bool:
        if name in self.low.ctx.params:
            return self.low.ctx.params[name].batched
        return any(name in env and env[name].val.batched for env in self.facts.env_before.values())

    def decimals(self, args: list[Arg], keywords: dict[str, array_rules.Arg],
                 mask: Mask) -> tuple[list[Arg], dict[str, array_rules.Arg]]:
        """np.around(x, d) with d known only when called (rules/array_number_calls.py): NumPy takes
        d as a C int (OverflowError beyond it, and -2**31 reads past its table): those calls are
        flagged, the scalar function re-runs them. Past |d| = 400 NumPy's scale is inf (as at
        309): d is clipped there, which saves NumPy's loop of d products and keeps its value."""
        given = keywords.get("decimals") or (array_rules.Arg(_text(args[1].node), args[1].val) if len(args) > 1 else None)
        if given is None or isinstance(given.val.const, int):
            return args, keywords
        d = self.low.temp(ast.parse(given.text, mode="eval").body, "decimals")
        self.low.check_uniform(mask, n.fill("({0} > 2147483647) | ({0} < -2147483647)", d))
        clipped = array_rules.Arg(_text(n.fill("min(max({0}, -400), 400)", d)), given.val)
        if "decimals" in keywords:
            return args, {**keywords, "decimals": clipped}
        return [args[0], Arg(ast.parse(clipped.text, mode="eval").body, given.val)], keywords

    def select(self, cond: ast.expr, cond_val: Val, yes: Arg, no: Arg) -> ast.expr:
        r = max(yes.rank, no.rank)
        return n.call("np.where", pad(Arg(cond, cond_val), r), pad(yes, r), pad(no, r))

    # -- indexing ----------------------------------------------------------------------------
    def index(self, node: cst.Subscript, mask: Mask, target_batched: bool | None = None) -> ast.Subscript:
        """The lowered `x[...]` (as an expression or an assignment target)."""
        base = self.arg(node.value, mask)
        t = base.val.type
        assert isinstance(t, ArrayType)
        batched_base = base.val.batched if target_batched is None else target_batched
        parts: list[ast.expr] = []
        gather = False
        for axis, element in enumerate(node.slice):
            part = element.slice
            if isinstance(part, cst.Slice):
                lower, upper, step = (self.low.exprs.lower(b, mask) if b is not None else None
                                      for b in (part.lower, part.upper, part.step))
                parts.append(n.full_slice(lower, upper, step))
                continue
            value = self.arg(part.value, mask)
            size = t.shape[axis]
            size_node = n.const(size) if size is not None else n.fill("{0}.shape[{1}]", base.node, n.const(axis + batched_base))
            safe = self.checked_index(value, size, size_node, mask)
            gather = gather or value.val.batched
            parts.append(safe)
        if batched_base and gather:
            # One row per lane of the base: a per-lane index may still hold one value for all
            # lanes (`best = 0` before a loop makes it per-lane), and then it broadcasts.
            array = self.low.temp(base.node, "a")
            return n.subscript(array, [n.call("np.arange", n.call("len", array)), *parts])
        if batched_base:
            return n.subscript(base.node, [n.full_slice(), *parts])
        if gather and any(not isinstance(e.slice, cst.Index) for e in list(node.slice)[:1]):
            raise AssertionError("a per-lane index after a slice of a shared array")
        return n.subscript(base.node, parts)

    def checked_index(self, value: Arg, size: int | None, size_node: ast.expr, mask: Mask) -> ast.expr:
        """Flag out-of-range lanes (Python raises IndexError there) and give every lane a safe index."""
        const = value.val.const
        if isinstance(const, int) and size is not None:
            if not -size <= const < size:
                self.low.check(mask, n.constant(True))
                return n.const(0)
            return n.const(const)
        known = self.low.ranges.get(value.node.id) if isinstance(value.node, ast.Name) else None
        if known is not None and size is not None and -size <= known[0] and known[1] <= size:
            return value.node  # a loop variable over range(constants) within the axis
        i = self.low.temp(value.node)
        out_of_range = n.fill("({0} < -{1}) | ({0} >= {1})", i, size_node)
        if value.val.batched:
            self.low.check(mask, out_of_range)
            return self.low.temp(n.fill("np.where(({0} >= -{1}) & ({0} < {1}), {0}, 0)", i, size_node), "i")
        self.low.check_uniform(mask, out_of_range)
        return n.fill("np.clip({0}, -{1}, {1} - 1)", i, size_node)

    # -- statements --------------------------------------------------------------------------
    def store(self, target: cst.Subscript, value: cst.BaseExpression, mask: Mask, stmt_env) -> None:
        """x[...] = v: a uniform array receiving per-lane values becomes a batched copy first."""
        name = target.value.value  # type: ignore[attr-defined]
        before = stmt_env.get(name)
        after_batched = self.facts.stores[target]
        lowered = self.low.exprs.lower(value, mask)
        val = self.facts.val(value)
        if before is not None and not before.val.batched and after_batched:
            self.low.emit(assign(name, repeat(name, self.low.lanes[-1])))
        target_node = n.as_store(self.index(target, mask, target_batched=after_batched))
        item = self.facts.val(target)
        stored = pad(Arg(lowered, val), rank(item.type)) if val.batched else lowered
        self.low.emit(ast.Assign(targets=[target_node], value=stored, lineno=0))


def _is_module_call(node: cst.Call, ops: ArrayOps) -> bool:
    func = node.func
    if not isinstance(func, cst.Attribute):
        return False
    base = func.value
    if isinstance(base, cst.Attribute):
        return True  # np.linalg.norm
    return isinstance(base, cst.Name) and ops.low.ctx.namespace.resolve(base.value).kind == "numpy" \
        and base.value not in ops.low.facts_locals()
