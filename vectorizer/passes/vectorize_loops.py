"""Turn loops over the elements of per-example arrays into array operations.

Independent iterations become one array expression (same operations, same order per element,
so the same bits)::

    for i in range(len(x)):              out[0:len(x)] = x[0:len(x)] * 2.0 + y[0:len(x)]
        out[i] = x[i] * 2.0 + y[i]   ->

Reductions become array reductions where that keeps the result exact: integer and boolean sums
and counts (integer addition is associative, overflow included), integer max/min. Floating-point
sums and products, and float max/min (NaN and -0.0 make Python's max order-dependent), are
reordered only with `reassociate=True`::

    for i in range(n):                   if n > 0:
        s = s + x[i] * y[i]         ->       s = s + np.sum(x[0:n] * y[0:n])

Any other loop (a carried dependency, control flow, a call that may raise, the loop variable
read afterwards) is left alone: it stays a loop with a batched body.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.batched import Facts
from ..analysis.liveness import Liveness, reads, writes
from ..analysis.types import ArrayType, Type
from .base import Context, code, expr, paren, stmt

_SAFE_CALLS = ("np.",)  # NumPy ufuncs on elements never raise; math.* would (ValueError)


class _Loop:
    """One candidate `for i in range(...)` and what its body does."""

    def __init__(self, pass_: _Vectorize, loop: cst.For) -> None:
        self.p = pass_
        self.loop = loop
        self.var = loop.target.value  # type: ignore[attr-defined]
        args = [code(a.value) for a in loop.iter.args]  # type: ignore[attr-defined]
        self.start, self.stop = ("0", args[0]) if len(args) == 1 else (args[0], args[1])
        self.span = f"{self.start}:{self.stop}"

    def rewrite(self) -> list[cst.BaseStatement] | None:
        body = self.loop.body.body
        assigned = writes(self.loop.body)
        stores: set[str] = set()
        out: list[str] = []
        guarded: list[str] = []
        temps: set[str] = set()
        for s in body:
            if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign)):
                return None
            a = s.body[0]
            target = a.targets[0].target
            if isinstance(target, cst.Subscript):  # out[i] = e
                if not (self._is_element(target) and isinstance(target.value, cst.Name)):
                    return None
                name = target.value.value
                if name in reads(a.value) or name in temps:
                    return None
                value = self.vector(a.value, assigned | stores, temps)
                if value is None:
                    return None
                stores.add(name)
                out.append(f"{name}[{self.span}] = {value}")
            elif isinstance(target, cst.Name):
                reduction = self.reduction(target.value, a.value, assigned | stores, temps)
                if reduction is not None:
                    guarded.append(reduction)
                    continue
                value = self.vector(a.value, (assigned | stores) - temps, temps)
                if value is None or target.value in reads(a.value):
                    return None
                temps.add(target.value)
                out.append(f"{target.value} = {value}")
            else:
                return None
        if temps & self.p.live.live_out.get(self.loop, frozenset()) or self.var in self.p.live.live_out.get(self.loop, frozenset()):
            return None  # a temporary or the loop variable is read after the loop
        lines = out + ([f"if {self.stop} > {self.start}:"] + ["    " + g for g in guarded] if guarded else [])
        return [stmt(line) for line in _join(lines)]

    def _is_element(self, node: cst.Subscript) -> bool:
        return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and \
            isinstance(node.slice[0].slice.value, cst.Name) and node.slice[0].slice.value.value == self.var

    def vector(self, node: cst.BaseExpression, forbidden: set[str], temps: set[str]) -> str | None:
        """The expression over all iterations at once, or None if it is not elementwise."""

        class Swap(cst.CSTTransformer):
            ok = True

            def leave_Subscript(inner, original, updated):  # noqa: N805
                base = self.p.facts.vals.get(original.value)
                if self._is_element(original) and isinstance(original.value, cst.Name) and base is not None \
                        and isinstance(base.type, ArrayType):
                    return expr(f"{original.value.value}[{self.span}]")
                inner.ok = False
                return updated

            def leave_Name(inner, original, updated):  # noqa: N805
                if original.value == self.var:
                    return expr(f"np.arange({self.start}, {self.stop})")
                if original.value in forbidden and original.value not in temps:
                    inner.ok = False
                return updated

            def leave_Call(inner, original, updated):  # noqa: N805
                if not code(original.func).startswith(_SAFE_CALLS):
                    inner.ok = False
                return updated

            def visit_BooleanOperation(inner, node):  # noqa: N805
                inner.ok = False  # `and`/`or` on arrays are not elementwise

        swap = Swap()
        new = node.visit(swap)
        if not swap.ok or not self.numpy_semantics(node):
            return None
        return code(new)

    def numpy_semantics(self, node: cst.BaseExpression) -> bool:
        """Every operation that varies with the iteration already works on NumPy values: the
        loop variable becomes np.arange, and Python's int/float rules (ZeroDivisionError...)
        must not silently turn into NumPy's."""
        ok = True
        facts, var = self.p.facts, self.var

        class Check(cst.CSTVisitor):
            def on_visit(inner, n: cst.CSTNode) -> bool:  # noqa: N805
                nonlocal ok
                if isinstance(n, cst.BinaryOperation | cst.UnaryOperation | cst.Comparison | cst.Call | cst.IfExp) \
                        and (var in reads(n) or _reads_element(n)):
                    v = facts.vals.get(n)
                    ok = ok and v is not None and (v.numpy or isinstance(v.type, ArrayType))
                return True

        node.visit(Check())
        return ok

    def reduction(self, name: str, value: cst.BaseExpression, forbidden: set[str], temps: set[str]) -> str | None:
        """`s = s + e` (sums, counts), `s = s * e`, `m = max(m, e)` / `min`: as array reductions."""
        facts = self.p.facts
        target_type = facts.vals.get(value)
        exact = target_type is not None and isinstance(target_type.type, Type) and target_type.type.is_intlike
        if isinstance(value, cst.BinaryOperation) and isinstance(value.left, cst.Name) and value.left.value == name \
                and isinstance(value.operator, cst.Add | cst.Multiply):
            term = self.vector(value.right, forbidden - {name}, temps)
            if term is None or name in reads(value.right) or not (exact or self.p.ctx.options.reassociate):
                return None
            reducer = "sum" if isinstance(value.operator, cst.Add) else "prod"
            op = "+" if reducer == "sum" else "*"
            return f"{name} = {name} {op} np.{reducer}({term})"
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("max", "min") \
                and len(value.args) == 2 and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name:
            term = self.vector(value.args[1].value, forbidden - {name}, temps)
            if term is None or name in reads(value.args[1].value) or not (exact or self.p.ctx.options.reassociate):
                return None
            fn = value.func.value
            return f"{name} = {fn}({name}, np.{'max' if fn == 'max' else 'min'}({paren(term)}))"
        return None


def _reads_element(node: cst.CSTNode) -> bool:
    found = False

    class Find(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            nonlocal found
            found = True

    node.visit(Find())
    return found


def _join(lines: list[str]) -> list[str]:
    """Group the indented lines of an `if` block with their header (stmt() parses one statement)."""
    out: list[str] = []
    for line in lines:
        if line.startswith("    ") and out:
            out[-1] += "\n" + line
        else:
            out.append(line)
    return out


class _Vectorize(cst.CSTTransformer):
    def __init__(self, ctx: Context, facts: Facts, live: Liveness) -> None:
        self.ctx, self.facts, self.live = ctx, facts, live

    def leave_For(self, original: cst.For, updated: cst.For):
        it = original.iter
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"
                and len(it.args) in (1, 2) and not self.facts.batched_test.get(original, True)):
            return updated
        if any(isinstance(n, cst.For | cst.While | cst.If) for n in original.body.body):
            return updated
        new = _Loop(self, original).rewrite()
        if new is None:
            return updated
        new[0] = new[0].with_changes(leading_lines=original.leading_lines)
        return cst.FlattenSentinel(new)


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if ctx.namespace.resolve("np").kind != "numpy":
        return func  # `np` is something else in this module: the rewrites below emit np.sum etc.
    facts = ctx.analyze(func)
    if not any(isinstance(v.type, ArrayType) for v in ctx.params.values()) and \
            not any(isinstance(v.type, ArrayType) for v in facts.vals.values()):
        return func  # no arrays, nothing to vectorize
    return func.visit(_Vectorize(ctx, facts, Liveness(func)))

