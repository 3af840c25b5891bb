"""Inline calls to functions of the same module, so they are vectorized with their caller.

Before::

    def norm_cdf(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    def price(s, k):
        d = math.log(s / k)
        return s * norm_cdf(d)

After (in `price`)::

    d = math.log(s / k)
    # inlined: norm_cdf(d)
    norm_cdf_result = 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))
    return s * norm_cdf_result

A parameter the callee never reassigns takes a simple argument (a name, a number) directly;
others are bound to fresh names first. A callee that returns a tuple gives one name per item:
`a, b = g(x)` becomes the inlined body and `a = ret` / `b = ret_1`.

The callee goes through the same scalar passes first (with the argument types of this call), so
its returns, loops and breaks arrive lowered; its locals are renamed apart from the caller's. The
inlined body runs under whatever mask the call site has, so a callee in a branch only fails on
the lanes that take the branch. Calls in a `while` test are inlined before the loop and again at
the end of its body; calls in lazy positions (`and`, `or`, `x if c else y`) are refused by the
analysis before any pass runs.
"""

from __future__ import annotations

import libcst as cst

from ..analysis.calls import default_val, default_value
from ..analysis.facts import Facts
from ..analysis.liveness import writes
from ..core.text import is_number, literal
from .base import Context, assign, block, body_of, code, func_body, replace, walk


class _Rename(cst.CSTTransformer):
    """Rename the callee's locals; a parameter bound to a literal argument becomes that literal."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Parameters(self, node: cst.Parameters) -> bool:
        return False  # the callee's own header is dropped after inlining

    def leave_Attribute(self, original, updated):
        value = updated.value
        if isinstance(value, cst.Integer) and not value.lpar:  # a literal argument put here: `(0).bit_length()`
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return updated.with_changes(value=value, attr=original.attr)  # math.e stays math.e

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original, updated):
        new = self.mapping.get(original.value)
        if new is None:
            return updated
        return updated.with_changes(value=new) if new.isidentifier() else cst.parse_expression(new)


class _Hoist(cst.CSTTransformer):
    """Replace each same-module call in an expression by the name holding its result."""

    def __init__(self, inliner: _Inliner) -> None:
        self.inliner = inliner
        self.pre: list[cst.BaseStatement] = []

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        glob = self.inliner.facts.calls.get(original)
        if glob is None:
            return updated
        stmts, results = self.inliner.inline(glob, original, updated)
        self.pre += stmts
        if len(results) == 1:
            return cst.Name(results[0])
        return cst.Tuple([cst.Element(cst.Name(r)) for r in results])


class _Inliner:
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.controlled = 0  # enclosing batched ifs and loops of the statement being inlined into

    def hoist(self, node: cst.BaseExpression) -> tuple[list[cst.BaseStatement], cst.BaseExpression]:
        hoist = _Hoist(self)
        new = node.visit(hoist)
        return hoist.pre, new  # type: ignore[return-value]

    def has_calls(self, node: cst.CSTNode) -> bool:
        calls = self.facts.calls
        return any(isinstance(n, cst.Call) and n in calls for n in walk(node))

    def block(self, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for s in stmts:
            out += self.statement(s)
        return out

    def controlled_block(self, owner: cst.BaseStatement, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """The body of an if or loop, counted as batched control when its test is batched."""
        batched = bool(self.facts.batched_test.get(owner))
        self.controlled += batched
        try:
            return self.block(stmts)
        finally:
            self.controlled -= batched

    def statement(self, s: cst.BaseStatement) -> list[cst.BaseStatement]:
        if isinstance(s, cst.SimpleStatementLine):
            small = s.body[0]
            if isinstance(small, cst.Raise) or not self.has_calls(small):
                return [s]
            field = "test" if isinstance(small, cst.Assert) else "value"
            pre, value = self.hoist(getattr(small, field))
            new = _unpacked(small, value) or [s.with_changes(body=[small.with_changes(**{field: value})], leading_lines=())]
            return replace(s, pre + new)
        if isinstance(s, cst.If):
            pre, test = self.hoist(s.test) if self.has_calls(s.test) else ([], s.test)
            orelse = s.orelse
            if isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=block(self.controlled_block(s, body_of(orelse.body))))
            elif isinstance(orelse, cst.If):
                inner = self.controlled_block(s, [orelse])
                orelse = cst.Else(block(inner)) if len(inner) != 1 else inner[0]
            new = s.with_changes(test=test, body=block(self.controlled_block(s, body_of(s.body))), orelse=orelse)
            return replace(s, pre + [new.with_changes(leading_lines=())]) if pre else [new]
        if isinstance(s, cst.While):
            body = self.controlled_block(s, body_of(s.body))
            if not self.has_calls(s.test):
                return [s.with_changes(body=block(body))]
            cond = self.ctx.namer.fresh("c")
            before = self.test_statements(cond, s.test)
            batched = bool(self.facts.batched_test.get(s))
            self.controlled += batched  # the test again at the end of the body
            again = self.test_statements(cond, s.test)
            self.controlled -= batched
            loop = s.with_changes(test=cst.Name(cond), body=block(body + again), leading_lines=())
            return replace(s, before + [loop])
        if isinstance(s, cst.For):
            pre, it = self.hoist(s.iter) if self.has_calls(s.iter) else ([], s.iter)
            new = s.with_changes(iter=it, body=block(self.controlled_block(s, body_of(s.body))))
            return replace(s, pre + [new.with_changes(leading_lines=())]) if pre else [new]
        raise AssertionError(type(s).__name__)

    def test_statements(self, cond: str, test: cst.BaseExpression) -> list[cst.BaseStatement]:
        """`cond = test`, with `a and b` unnested so that b's calls run only when a holds."""
        if isinstance(test, cst.BooleanOperation) and self.has_calls(test.right) and not self.has_calls(test.left):
            first = self.test_statements(cond, test.left)
            rest = self.test_statements(cond, test.right)
            guard = cst.Name(cond) if isinstance(test.operator, cst.And) else cst.UnaryOperation(cst.Not(), cst.Name(cond))
            return first + [cst.If(test=guard, body=block(rest))]
        pre, value = self.hoist(test)
        return pre + [assign(cond, value)]

    # -- one call site -------------------------------------------------------------------------
    def inline(self, glob, original: cst.Call, updated: cst.Call) -> tuple[list[cst.BaseStatement], list[str]]:
        ctx = self.ctx
        parsed = ctx.callees.parse(glob)
        args = [a for a in updated.args if a.keyword is None]
        keywords = {a.keyword.value: a.value for a in updated.args if a.keyword is not None}
        arg_vals = [self.facts.val(a.value) for a in original.args if a.keyword is None]
        kw_vals = {a.keyword.value: self.facts.val(a.value) for a in original.args if a.keyword is not None}
        texts = ctx.callees.bind(parsed, [_text(a.value) for a in args], {k: _text(v) for k, v in keywords.items()},
                                 lambda d: literal(default_value(d)))
        vals = ctx.callees.bind(parsed, arg_vals, kw_vals, default_val)
        parsed = ctx.callees.for_call(parsed, vals, original, lowering=True)  # its kind checks decided for these arguments
        issued_before = set(ctx.namer.taken)
        child = ctx.child(parsed.name, vals, under_control=self.controlled > 0, parsed=parsed)  # type: ignore[arg-type]
        func = ctx.prepare_callee(child)  # type: ignore[misc]
        issued = ctx.namer.taken - issued_before
        assigned = writes(func.body)
        # A parameter the callee never reassigns can take a simple argument (a name, a number)
        # directly: no copy. Others are bound to fresh names.
        direct = {n: t for n, t in texts.items() if n not in assigned and (t.isidentifier() or is_number(t))}
        local = (set(vals) | assigned) - issued - set(direct)
        mapping = {n: ctx.namer.fresh(n) for n in sorted(local)}
        mapping = {k: v for k, v in mapping.items() if k != v}
        mapping.update(direct)
        func = func.visit(_Rename(mapping)) if mapping else func
        body = func_body(func)
        final = body[-1].body[0]  # type: ignore[attr-defined]
        assert isinstance(final, cst.Return), "early_returns leaves one return at the end"
        binding = [assign(mapping.get(n, n), t) for n, t in texts.items() if n not in direct]
        header = cst.EmptyLine(comment=cst.Comment(f"# inlined: {glob.name}({', '.join(' '.join(str(t).split()) for t in texts.values())})"))
        stmts = binding + body[:-1]
        values = final.value.elements if isinstance(final.value, cst.Tuple) else [cst.Element(final.value)]
        results: list[str] = []
        for el in values:
            if isinstance(el.value, cst.Name) and el.value.value in (set(mapping.values()) | issued | local) - set(direct.values()):
                results.append(el.value.value)
            else:
                name = ctx.namer.fresh(f"{glob.name}_result")
                stmts.append(assign(name, el.value))
                results.append(name)
        if stmts:
            stmts[0] = stmts[0].with_changes(leading_lines=[header, *stmts[0].leading_lines])
        return stmts, results


def _unpacked(small: cst.BaseSmallStatement, value: cst.BaseExpression) -> list[cst.BaseStatement] | None:
    """`a, b = g(x)` with g's results in `r, r_1`: `a = r` and `b = r_1` (the results are fresh
    names, so one after the other is the same as simultaneously)."""
    if not (isinstance(small, cst.Assign) and isinstance(value, cst.Tuple)):
        return None
    target = small.targets[0].target
    if len(small.targets) != 1 or not isinstance(target, cst.Tuple) or len(target.elements) != len(value.elements):
        return None
    return [assign(t.value.value, v.value) for t, v in zip(target.elements, value.elements)]  # type: ignore[attr-defined]


def _calls_a_function(func: cst.FunctionDef, ctx: Context) -> bool:
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
               and ctx.namespace.resolve(n.func.value).kind == "function" for n in walk(func.body))


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not _calls_a_function(func, ctx):
        return func  # nothing to inline: no analysis
    facts = ctx.analyze(func)
    if not facts.calls:
        return func
    inliner = _Inliner(ctx, facts)
    return func.with_changes(body=block(inliner.block(func_body(func))))


def _text(node: cst.BaseExpression) -> str:
    """An argument's source; one written over several lines inside the call's parentheses is
    parenthesized, as it stands alone from here (`x = (a\n + b)`)."""
    t = code(node)
    return f"({t})" if "\n" in t else t
