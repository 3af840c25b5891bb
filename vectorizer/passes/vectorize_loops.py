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

Each iteration's values keep their own shape behind the new leading iteration axis: `a[i]` is
an element for a 1-d `a` and a row for a 2-d one. So a value that varies with the iteration may
only meet values of its own rank, or values that do not vary (broadcasting then pairs the
iteration axes), and may only go through elementwise NumPy calls (a reduction or a contraction
of `a[0:n]` would mix the iterations)::

    for i in range(a.shape[0]):          (unchanged: np.sum of a row is not elementwise,
        out[i] = np.sum(a[i])    ->       and a row times w[i] would pair w with the columns)

Any other loop (a carried dependency, control flow, a call that may raise, an index that may be
out of range or negative, the loop variable read afterwards) is left alone: it stays a loop
with a batched body.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.facts import Facts
from ..analysis.liveness import Liveness, reads, writes
from ..core.types import ArrayType, Type
from ..rules import arrays as array_rules
from .base import Context, StatementTransformer, code, contains, expr, paren, stmt

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
        vals = [pass_.facts.vals.get(a.value) for a in loop.iter.args]  # type: ignore[attr-defined]
        consts = [v.const if v is not None else None for v in vals]
        bounds = [0, *consts] if len(consts) == 1 else consts
        self.bounds = tuple(bounds) if all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) else None
        self.varying: set[str] = set()  # temporaries whose value differs between iterations

    def rewrite(self) -> list[cst.BaseStatement] | None:
        if self.bounds is None or self.bounds[0] < 0:
            return None  # x[0:n] must read exactly x[i] for each i: known, non-negative bounds
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
                if name in reads(a.value) or name in temps or not self.in_range(target):
                    return None
                value = self.vector(a.value, assigned | stores, temps)
                if value is None or (self.varies(a.value) and self.rank(a.value) != self.rank(target)):
                    return None  # a value of another rank would broadcast against the wrong axes
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
                if self.varies(a.value):
                    self.varying.add(target.value)
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

    def in_range(self, node: cst.Subscript) -> bool:
        """`x[i]` is valid for every i of the loop (else the loop raises IndexError, or wraps a
        negative index, where the slice x[start:stop] would silently clip)."""
        base = self.p.facts.vals.get(node.value)
        if base is None or not isinstance(base.type, ArrayType):
            return False
        start, stop = self.bounds  # type: ignore[misc]
        size = base.type.shape[0]
        return stop <= start or (size is not None and stop <= size)

    def rank(self, node: cst.CSTNode) -> int | None:
        """The rank of one iteration's value of an expression of the loop body."""
        val = self.p.facts.vals.get(node)
        if val is None:
            return None
        return val.type.rank if isinstance(val.type, ArrayType) else 0

    def varies(self, node: cst.CSTNode) -> bool:
        """Whether the value differs between iterations (it gets the iteration axis)."""
        names = reads(node)
        return self.var in names or bool(names & self.varying)

    def vector(self, node: cst.BaseExpression, forbidden: set[str], temps: set[str]) -> str | None:
        """The expression over all iterations at once, or None if it is not elementwise."""

        class Swap(cst.CSTTransformer):
            ok = True

            def leave_Subscript(inner, original, updated):  # noqa: N805
                if self._is_element(original) and isinstance(original.value, cst.Name) and self.in_range(original):
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

            def visit_IfExp(inner, node):  # noqa: N805
                inner.ok = inner.ok and not self.varies(node)  # `x if c else y` on arrays is not either

        swap = Swap()
        new = node.visit(swap)
        if not swap.ok or not self.numpy_semantics(node) or not self.aligned(node):
            return None
        return code(new)

    def aligned(self, node: cst.BaseExpression) -> bool:
        """Each operation keeps the iteration axis of its varying operands in front: they have the
        operation's own rank (operands that do not vary broadcast as in one iteration), and NumPy
        calls on them are elementwise (a reduction or contraction would mix the iterations)."""
        ok = True
        loop = self

        class Check(cst.CSTVisitor):
            def on_visit(inner, n: cst.CSTNode) -> bool:  # noqa: N805
                nonlocal ok
                operands = _operands(n)
                if isinstance(n, cst.Call) and any(loop.varies(o) for o in operands):
                    rule = array_rules.ARRAY_CALLS.get(code(n.func))
                    ok = ok and rule is not None and rule.family == "elementwise"
                rank = loop.rank(n) if operands else None
                ok = ok and all(loop.rank(o) == rank for o in operands if loop.varies(o))
                return ok

        node.visit(Check())
        return ok

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
        """`s = s + e` (sums, counts), `s = s * e`, `m = max(m, e)` / `min`: as array reductions
        of a term `e` that is one number per iteration (a term that does not vary would be
        counted once, not once per iteration)."""
        facts = self.p.facts
        target_type = facts.vals.get(value)
        exact = target_type is not None and isinstance(target_type.type, Type) and target_type.type.is_intlike
        if isinstance(value, cst.BinaryOperation) and isinstance(value.left, cst.Name) and value.left.value == name \
                and isinstance(value.operator, cst.Add | cst.Multiply):
            term = self.term(value.right, name, forbidden, temps)
            if term is None or not (exact or self.p.ctx.options.reassociate):
                return None
            reducer = "sum" if isinstance(value.operator, cst.Add) else "prod"
            op = "+" if reducer == "sum" else "*"
            return f"{name} = {name} {op} np.{reducer}({term})"
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("max", "min") \
                and len(value.args) == 2 and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name:
            term = self.term(value.args[1].value, name, forbidden, temps)
            if term is None or not (exact or self.p.ctx.options.reassociate):
                return None
            fn = value.func.value
            return f"{name} = {fn}({name}, np.{'max' if fn == 'max' else 'min'}({paren(term)}))"
        return None

    def term(self, node: cst.BaseExpression, name: str, forbidden: set[str], temps: set[str]) -> str | None:
        """The reduced term over all iterations: it varies, and is a number in each iteration."""
        if name in reads(node) or not self.varies(node) or self.rank(node) != 0:
            return None
        return self.vector(node, forbidden - {name}, temps)


def _operands(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The values an operation combines (empty for anything that is not an operation)."""
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.Comparison):
        return [node.left, *(c.comparator for c in node.comparisons)]
    if isinstance(node, cst.Call):
        return [a.value for a in node.args]
    return []


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


class _Vectorize(StatementTransformer):
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
    if ctx.namespace.resolve("np").kind != "numpy" or not contains(func.body, cst.For):
        return func  # `np` is something else in this module: the rewrites below emit np.sum etc.
    facts = ctx.analyze(func)
    if not any(isinstance(v.type, ArrayType) for v in ctx.params.values()) and \
            not any(isinstance(v.type, ArrayType) for v in facts.vals.values()):
        return func  # no arrays, nothing to vectorize
    return func.visit(_Vectorize(ctx, facts, Liveness(func)))

