"""Generator expressions and list comprehensions inside sum/any/all/min/max become the explicit
accumulator loop they stand for (part of frontend/desugar.py, before the fence). Before::

    total = sum(c * x ** i for i, c in enumerate(COEFFS) if c)
    ok = all(n % d for d in range(2, k))

After (`i_1`, `c_1`, `d_1`: fresh, since a comprehension's variables do not leak)::

    sum_1 = 0
    for i_1 in range(3):          # 3 = len(COEFFS)
        c_1 = COEFFS[i_1]
        if c_1:
            sum_1 = sum_1 + c_1 * x ** i_1
    total = sum_1
    all_1 = True
    for d_1 in range(2, k):
        if not n % d_1:
            all_1 = False
            break
    ok = all_1

CPython's meaning is kept: sum starts from the int 0 and adds left to right (3.12+ sums floats
with compensation, so there sum is left as it is), any/all stop at the first deciding element
(later elements never run), min/max keep the first of equal elements (`item < best` replaces,
as CPython compares) and raise `ValueError("min() arg is an empty sequence")` when nothing is
left. A reduction is hoisted only where Python evaluates it first in its statement (everything
before it a name or a literal) and unconditionally (not under `and`/`or`/`if-else`), in an
assignment, a `return` or an `if` test; iterables: `range(...)`, `enumerate(T)` and `T`, with T
a tuple of numbers. Anything else is left to the fence, which refuses it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer

REDUCTIONS = ("sum", "any", "all", "min", "max")
_TRIVIAL = (cst.Name, cst.Integer, cst.Float)


class Reductions(PathTransformer):
    """Rewrites the blocks holding a reduction; `rebuilt` maps each new statement to its original."""

    def __init__(self, ns: Namespace, local: set[str], fresh: Callable[[str], str]) -> None:
        super().__init__()
        self.ns, self.local, self.fresh = ns, local, fresh

    def wants(self, node: cst.CSTNode) -> bool:
        return _is_reduction(node)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        changed = False
        for stmt in updated.body:
            out = self._statement(stmt)
            changed = changed or len(out) > 1
            body.extend(out)
        return updated.with_changes(body=body) if changed else updated

    def _statement(self, stmt: cst.BaseStatement) -> list[cst.BaseStatement]:
        prelude: list[cst.BaseStatement] = []
        original = self.rebuilt.get(id(stmt), (stmt, stmt))[1]
        while True:
            expr = _evaluated(stmt)
            call = _first_reduction(expr) if expr is not None else None
            lowered = self._lower(call) if call is not None else None
            if lowered is None:
                break
            stmts, result = lowered
            prelude.extend(stmts)
            stmt = stmt.deep_replace(call, cst.Name(result))  # type: ignore[assignment]
        if not prelude:
            return [stmt]
        for s in [*prelude, stmt]:
            self.rebuilt[id(s)] = (s, original)
        return [*prelude, stmt]

    def _lower(self, call: cst.Call) -> tuple[list[cst.BaseStatement], str] | None:
        name = call.func.value  # type: ignore[attr-defined]
        if not _builtin(name, self):
            return None
        if name == "sum" and sys.version_info >= (3, 12):
            return None  # compensated float summation: no plain loop has its rounding
        gen = call.args[0].value
        comp = gen.for_in  # type: ignore[attr-defined]
        if comp.inner_for_in is not None or len(comp.ifs) > 1 or comp.asynchronous is not None:
            return None
        loop = self._loop(comp)
        if loop is None:
            return None
        header, renames = loop
        element = _rename(gen.elt, renames)  # type: ignore[attr-defined]
        cond = _rename(comp.ifs[0].test, renames) if comp.ifs else None
        acc = self.fresh(name)
        init, body, first = _accumulate(name, acc, element, self.fresh)
        if cond is not None:
            body = [cst.If(cond, cst.IndentedBlock(body))]
        stmts: list[cst.BaseStatement] = [*init, header.with_changes(body=cst.IndentedBlock([*header.body.body, *body]))]
        if name in ("min", "max"):
            stmts.append(_empty_check(name, first))
        return stmts, acc

    def _loop(self, comp: cst.CompFor) -> tuple[cst.For, dict[str, str]] | None:
        """`for v in ...:` (with `c = T[i]` first for enumerate) and the fresh names of the targets."""
        target, it = comp.target, comp.iter
        if isinstance(target, cst.Name) and _is_call(it, "range", self) and not any(a.keyword or a.star for a in it.args):
            v = self.fresh(target.value)
            return cst.For(cst.Name(v), it, cst.IndentedBlock([])), {target.value: v}
        if isinstance(target, cst.Name) and self._table(it) is not None:
            v = self.fresh(target.value)
            return cst.For(cst.Name(v), it, cst.IndentedBlock([])), {target.value: v}
        if isinstance(target, cst.Tuple) and len(target.elements) == 2 and _is_call(it, "enumerate", self) \
                and len(it.args) == 1 and not it.args[0].keyword and not it.args[0].star \
                and all(isinstance(e.value, cst.Name) for e in target.elements):
            size = self._table(it.args[0].value)
            if size is None:
                return None
            i, c = (e.value.value for e in target.elements)  # type: ignore[attr-defined]
            if i == c:
                return None
            fi, fc = self.fresh(i), self.fresh(c)
            read = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(fc))], cst.Subscript(
                it.args[0].value, [cst.SubscriptElement(cst.Index(cst.Name(fi)))]))])
            rng = cst.Call(cst.Name("range"), [cst.Arg(cst.Integer(str(size)))])
            return cst.For(cst.Name(fi), rng, cst.IndentedBlock([read])), {i: fi, c: fc}
        return None

    def _table(self, node: cst.BaseExpression) -> int | None:
        """The length of a module-level (or hoisted) tuple of numbers `node` names."""
        if not isinstance(node, cst.Name) or node.value in self.local:
            return None
        glob = self.ns.resolve(node.value)
        return len(glob.value) if glob.kind == "constant" and isinstance(glob.value, tuple) else None


def _builtin(name: str, r: Reductions) -> bool:
    """`name` is Python's builtin of that name here (neither a local nor bound by the module)."""
    if name in r.local:
        return False
    glob = r.ns.resolve(name)
    return glob.kind == "builtin" or glob.kind == "unknown" and glob.name == name and (
        r.ns.globals is None or name not in r.ns.globals)


def _is_call(node: cst.BaseExpression, name: str, r: Reductions) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name and _builtin(name, r)


def _accumulate(name: str, acc: str, element: cst.BaseExpression,
                fresh: Callable[[str], str]) -> tuple[list[cst.BaseStatement], list[cst.BaseStatement], str]:
    """The statements before the loop, the loop body for one element, and (min/max) the name of
    the flag that is True while no element was taken."""

    def assign(target: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], value)])

    if name == "sum":
        return [assign(acc, cst.Integer("0"))], [assign(acc, cst.BinaryOperation(cst.Name(acc), cst.Add(), element))], ""
    if name in ("any", "all"):
        test = element if name == "any" else cst.UnaryOperation(cst.Not(), _paren(element))
        hit = [assign(acc, cst.Name("True" if name == "any" else "False")), cst.SimpleStatementLine([cst.Break()])]
        return [assign(acc, cst.Name("False" if name == "any" else "True"))], [cst.If(test, cst.IndentedBlock(hit))], ""
    item, first = fresh("item"), fresh("first")
    better = cst.Comparison(cst.Name(item), [cst.ComparisonTarget(cst.LessThan() if name == "min" else cst.GreaterThan(),
                                                                  cst.Name(acc))])
    take = cst.If(cst.BooleanOperation(cst.Name(first), cst.Or(), better), cst.IndentedBlock([assign(acc, cst.Name(item))]))
    return ([assign(acc, cst.Integer("0")), assign(first, cst.Name("True"))],
            [assign(item, element), take, assign(first, cst.Name("False"))], first)


def _empty_check(name: str, first: str) -> cst.If:
    error = cst.Call(cst.Name("ValueError"), [cst.Arg(cst.SimpleString(f'"{name}() arg is an empty sequence"'))])
    return cst.If(cst.Name(first), cst.IndentedBlock([cst.SimpleStatementLine([cst.Raise(error)])]))


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    return node if isinstance(node, _TRIVIAL) else node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _rename(node: cst.BaseExpression, renames: dict[str, str]) -> cst.BaseExpression:
    class Rename(cst.CSTTransformer):
        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
            return updated.with_changes(attr=original.attr)  # `obj.attr` names no variable

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value=renames.get(updated.value, updated.value))

    return node.visit(Rename())


def _evaluated(stmt: cst.BaseStatement) -> cst.BaseExpression | None:
    """The expression a statement evaluates first, where hoisting out of it keeps Python's order."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            return small.value
        if isinstance(small, cst.Return):
            return small.value
    if isinstance(stmt, cst.If):
        return stmt.test
    return None


def _is_reduction(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in REDUCTIONS \
        and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
        and isinstance(node.args[0].value, cst.GeneratorExp | cst.ListComp)


def _first_reduction(node: cst.BaseExpression) -> cst.Call | None:
    """The reduction Python evaluates first in `node` if only names and literals come before it and
    nothing makes its evaluation conditional; else None."""
    if _is_reduction(node):
        return node  # type: ignore[return-value]
    if isinstance(node, cst.BinaryOperation):
        children = [node.left, node.right]
    elif isinstance(node, cst.UnaryOperation):
        children = [node.expression]
    elif isinstance(node, cst.Comparison):
        children = [node.left, node.comparisons[0].comparator]  # later comparators may not run
    elif isinstance(node, cst.BooleanOperation | cst.IfExp):
        children = [node.left if isinstance(node, cst.BooleanOperation) else node.test]
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        children = [a.value for a in node.args]
    elif isinstance(node, cst.Tuple):
        children = [e.value for e in node.elements]
    else:
        return None
    for child in children:
        found = _first_reduction(child)
        if found is not None:
            return found
        if not isinstance(child, _TRIVIAL):
            return None
    return None
