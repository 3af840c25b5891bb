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

from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.facts import BINOPS, COMPARES, UNOPS
from ...core.types import BOOL, FLOAT, ArrayType, Val, rank
from ...rules import arrays as array_rules
from ..base import code, paren

if TYPE_CHECKING:
    from .lowering import Lowering


class ArrayOps:
    """Lowers the array operations of one `ops_to_numpy` lowering."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.facts = low.facts

    def arg(self, node: cst.BaseExpression, mask: str | None) -> array_rules.Arg:
        return array_rules.Arg(self.low.exprs.lower(node, mask), self.facts.val(node))

    # -- expressions -------------------------------------------------------------------------
    def binary(self, node: cst.BinaryOperation, mask: str | None) -> str:
        op = BINOPS[type(node.operator)]
        if op == "@":  # np.matmul's batching rule
            operands = [self.blas_operand(o, mask) for o in (node.left, node.right)]
            return array_rules.ARRAY_CALLS["np.matmul"].lower(operands, {}, self.facts.val(node))
        a, b = self.arg(node.left, mask), self.arg(node.right, mask)
        r = max(a.rank, b.rank)
        if op == "**" and r == 0 and FLOAT in (a.val.type, b.val.type) and self.low.ctx.options.exact:
            # `**` of float64 NumPy scalars is C's pow; NumPy's array power squares, takes square
            # roots and runs SIMD kernels with other last bits (runtime/exactmath.py's c_pow)
            return f"_vz_exact(_vz_c_pow, {a.text}, {b.text})"
        return f"{paren(array_rules.pad(a, r))} {op} {paren(array_rules.pad(b, r))}"

    def unary(self, node: cst.UnaryOperation, mask: str | None) -> str:
        op = UNOPS[type(node.operator)]
        a = self.arg(node.expression, mask)
        if op == "not":
            return f"~{paren(a.text)}" if a.val.type is BOOL else f"{paren(a.text)} == 0"
        return f"{op}{paren(a.text)}"

    def compare(self, node: cst.Comparison, mask: str | None) -> str:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        args = [self.arg(o, mask) for o in operands]
        r = max(a.rank for a in args)
        args = [array_rules.Arg(self.low.temp(a.text) if 0 < i < len(args) - 1 else a.text, a.val) for i, a in enumerate(args)]
        parts = [f"({paren(array_rules.pad(args[i], r))} {COMPARES[type(c.operator)]} {paren(array_rules.pad(args[i + 1], r))})"
                 for i, c in enumerate(node.comparisons)]
        return " & ".join(parts)

    def attribute(self, node: cst.Attribute, mask: str | None) -> str:
        base = self.arg(node.value, mask)
        attr = node.attr.value
        if attr == "shape":
            return f"{paren(base.text)}.shape[1:]" if base.val.batched else f"{paren(base.text)}.shape"
        if attr == "size":
            return f"{paren(base.text)}[0].size" if base.val.batched else f"{paren(base.text)}.size"
        if attr == "T":
            return f"np.swapaxes({base.text}, 1, 2)" if base.val.batched else f"{paren(base.text)}.T"
        raise AssertionError(attr)

    def length(self, node: cst.BaseExpression, mask: str | None) -> str:
        base = self.arg(node, mask)
        return f"{paren(base.text)}.shape[{1 if base.val.batched else 0}]"

    def blas_operand(self, node: cst.BaseExpression, mask: str | None) -> array_rules.Arg:
        """An operand of a BLAS-backed product. A parameter is a C-contiguous copy in the scalar
        function (each lane's own array): give every lane that layout, so BLAS takes the same
        path and gives the same bits (a no-op when the caller's array already is contiguous)."""
        arg = self.arg(node, mask)
        if isinstance(node, cst.Name) and node.value in self.low.ctx.params and isinstance(arg.val.type, ArrayType):
            return array_rules.Arg(f"np.ascontiguousarray({arg.text})", arg.val)
        return arg

    def call(self, name: str, node: cst.Call, mask: str | None) -> str:
        rule = array_rules.ARRAY_CALLS[name]
        operand = self.blas_operand if rule.blas else self.arg
        args = [operand(a.value, mask) for a in node.args if a.keyword is None]
        if isinstance(node.func, cst.Attribute) and name.startswith("np.") and not _is_module_call(node, self):
            args = [operand(node.func.value, mask), *args]  # a method: x.sum() is np.sum(x)
        keywords = {a.keyword.value: array_rules.Arg(code(a.value) if a.keyword.value == "dtype" else self.low.exprs.lower(a.value, mask),
                                                      self.facts.val(a.value) if a.keyword.value != "dtype" else Val(BOOL, False, code(a.value)))
                    for a in node.args if a.keyword is not None}
        return rule.lower(args, keywords, self.facts.val(node))

    def select(self, cond: str, cond_val: Val, yes: array_rules.Arg, no: array_rules.Arg) -> str:
        r = max(yes.rank, no.rank)
        c = array_rules.pad(array_rules.Arg(cond, cond_val), r)
        return f"np.where({c}, {array_rules.pad(yes, r)}, {array_rules.pad(no, r)})"

    # -- indexing ----------------------------------------------------------------------------
    def index(self, node: cst.Subscript, mask: str | None, target_batched: bool | None = None) -> str:
        """The lowered `x[...]` (as an expression or an assignment target)."""
        base = self.arg(node.value, mask)
        t = base.val.type
        assert isinstance(t, ArrayType)
        batched_base = base.val.batched if target_batched is None else target_batched
        parts: list[str] = []
        gather = False
        for axis, element in enumerate(node.slice):
            part = element.slice
            if isinstance(part, cst.Slice):
                bounds = [self.low.exprs.lower(b, mask) if b is not None else "" for b in (part.lower, part.upper)]
                text = ":".join(bounds) + (f":{self.low.exprs.lower(part.step, mask)}" if part.step is not None else "")
                parts.append(text)
                continue
            value = self.arg(part.value, mask)
            size = t.shape[axis]
            size_text = str(size) if size is not None else f"{paren(base.text)}.shape[{axis + batched_base}]"
            safe = self.checked_index(value, size, size_text, mask)
            gather = gather or value.val.batched
            parts.append(safe)
        if batched_base and gather:
            # One row per lane of the base: a per-lane index may still hold one value for all
            # lanes (`best = 0` before a loop makes it per-lane), and then it broadcasts.
            array = self.low.temp(base.text, "a")
            return f"{array}[np.arange(len({array})), {', '.join(parts)}]"
        if batched_base:
            return f"{paren(base.text)}[:, {', '.join(parts)}]"
        if gather and any(not isinstance(e.slice, cst.Index) for e in list(node.slice)[:1]):
            raise AssertionError("a per-lane index after a slice of a shared array")
        return f"{paren(base.text)}[{', '.join(parts)}]"

    def checked_index(self, value: array_rules.Arg, size: int | None, size_text: str, mask: str | None) -> str:
        """Flag out-of-range lanes (Python raises IndexError there) and give every lane a safe index."""
        const = value.val.const
        if isinstance(const, int) and size is not None:
            if not -size <= const < size:
                self.low.check(mask, "True")
                return "0"
            return str(const)
        known = self.low.ranges.get(value.text)
        if known is not None and size is not None and -size <= known[0] and known[1] <= size:
            return value.text  # a loop variable over range(constants) within the axis
        i = self.low.temp(value.text)
        if value.val.batched:
            self.low.check(mask, f"({i} < -{size_text}) | ({i} >= {size_text})")
        else:
            self.low.check_uniform(mask, f"({i} < -{size_text}) | ({i} >= {size_text})")
        if value.val.batched:
            return self.low.temp(f"np.where(({i} >= -{size_text}) & ({i} < {size_text}), {i}, 0)", "i")
        return f"np.clip({i}, -{size_text}, {size_text} - 1)"

    # -- statements --------------------------------------------------------------------------
    def store(self, target: cst.Subscript, value: cst.BaseExpression, mask: str | None, stmt_env) -> None:
        """x[...] = v: a uniform array receiving per-lane values becomes a batched copy first."""
        name = target.value.value  # type: ignore[attr-defined]
        before = stmt_env.get(name)
        after_batched = self.facts.stores[target]
        text = self.low.exprs.lower(value, mask)
        val = self.facts.val(value)
        if before is not None and not before.val.batched and after_batched:
            self.low.emit(f"{name} = np.repeat({name}[None], {self.low.lanes[-1]}, axis=0)")
        target_text = self.index(target, mask, target_batched=after_batched)
        item = self.facts.val(target)
        value_arg = array_rules.Arg(text, val)
        self.low.emit(f"{target_text} = {array_rules.pad(value_arg, rank(item.type)) if val.batched else text}")


def _is_module_call(node: cst.Call, ops: ArrayOps) -> bool:
    func = node.func
    if not isinstance(func, cst.Attribute):
        return False
    base = func.value
    if isinstance(base, cst.Attribute):
        return True  # np.linalg.norm
    return isinstance(base, cst.Name) and ops.low.ctx.namespace.resolve(base.value).kind == "numpy" \
        and base.value not in ops.low.facts_locals()
