"""One lane function of `ops_to_lanes` as it is lowered: its statements (`ast` nodes, the block
being written in `block`), checks (early `return <zeros>, True`) and temporaries; expressions are
its collaborator `exprs` (`LaneExpressions`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.divisor import PathFacts, leaves, test_facts, without_divisor_check
from ...analysis.facts import Facts, storage_types
from ...core.lanenodes import (
    Comment,
    assign,
    call,
    const,
    fail_return,
    fill,
    is_number,
    name,
    target,
)
from ...core.types import BOOL, FLOAT, INT, NUM, TupleType
from ..base import Context, body_of, code
from .exprs import LaneExpressions, static_false
from .scalarize import scalar
from .unroll import unroll_twice

if TYPE_CHECKING:
    from . import LaneModule

ZERO = {BOOL: False, INT: 0, FLOAT: 0.0, NUM: 0.0}
_OVERFLOW = "_vz_overflow"  # the mark of a check's `if` that tests int64 overflow (see if_stmt)


class Lane:
    def __init__(self, ctx: Context, facts: Facts, lanes: LaneModule) -> None:
        self.ctx = ctx
        self.facts = facts
        self.module = lanes
        self.body: list[ast.stmt] = []  # the block being written
        self.zeros = [ZERO[v.type] for v in facts.result]  # type: ignore[index]
        self.storage = storage_types(facts, ctx.params)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.path = PathFacts()  # comparisons that hold here: differences they prove nonzero
        self.exprs = LaneExpressions(self)
        # exact=False, the main lane: the operations whose values decide an int, a bool, a branch,
        # a trip count or an exception (analysis/decisions.py); None: every one is kept exact (a
        # callee's result may decide something in its caller)
        self.decided: frozenset[cst.CSTNode] | None = None

    def fail(self) -> ast.Return:
        """`return (<zeros>, True)`: the lane is flagged (a fresh node each time)."""
        return fail_return([const(z) for z in self.zeros], self.facts.returns_tuple)

    def approximate(self, node: cst.CSTNode) -> bool:
        """May `node`'s value be computed approximately (exact=False, deciding nothing)?"""
        return self.decided is not None and node not in self.decided

    def emit(self, stmt: ast.stmt) -> None:
        self.body.append(stmt)

    def temp(self, value: ast.expr, stem: str = "t") -> ast.expr:
        """`value` as a name (or a number): a fresh temporary assigned here if it is neither."""
        if isinstance(value, ast.Name | ast.Constant) or is_number(value):
            return value
        fresh = self.ctx.namer.fresh(stem)
        self.emit(assign(fresh, value))
        return name(fresh)

    def check(self, pred: str, *args: ast.expr, r: ast.expr | None = None, overflow: bool = False) -> None:
        """`if <pred>: <fail>` for the NumPy template `pred` of rules.py over `args` (and `r`)."""
        if static_false(fill(pred, *args, r=r), self.module.constants):
            return  # decided now: no lane can fail here
        self.check_node(scalar(pred, *args, r=r), overflow, decided=True)

    def check_node(self, test: ast.expr, overflow: bool = False, decided: bool = False) -> None:
        """`if <test>: <fail>` for a scalar test; `overflow` marks an int64 overflow test."""
        if not decided and static_false(test, self.module.constants):
            return
        node = ast.If(test=test, body=[self.fail()], orelse=[])
        setattr(node, _OVERFLOW, overflow)
        self.emit(node)

    def without_proven_divisor(self, impl, node: cst.BinaryOperation):
        """`impl` less its zero-divisor check where the path proves the divisor `a - b` nonzero
        (analysis/divisor.py; a and b both float or both int)."""
        if not any(c.divisor for c in impl.checks):
            return impl
        pair = self.path.nonzero(_ast(node.right))
        kinds = {self.storage.get(n) for n in pair} if pair is not None else set()
        return without_divisor_check(impl) if len(kinds) == 1 and kinds <= {FLOAT, INT} else impl

    def under(self, test: cst.BaseExpression, holds: bool, run):
        """run() with what `test` being `holds` tells (an expression's side: it assigns no name)."""
        saved = self.path.snapshot()
        self.path.facts |= test_facts(_ast(test), holds)
        try:
            return run()
        finally:
            self.path.restore(saved)

    def captured(self, run) -> tuple[list[ast.stmt], object]:
        """Lower into a side block (to see whether an operand needs statements): (its
        statements, what `run` returned)."""
        saved, self.body = self.body, []
        try:
            value = run()
            return self.body, value
        finally:
            self.body = saved

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement]) -> None:
        for s in stmts:
            for line in getattr(s, "leading_lines", ()):
                if line.comment is not None:
                    self.emit(Comment(text=line.comment.value))
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    self.small(small)
            elif isinstance(s, cst.If):
                self.if_stmt(s)
            elif isinstance(s, cst.While):
                self.while_loop(s)
            elif isinstance(s, cst.For):
                self.for_loop(s)
            else:
                raise AssertionError(type(s).__name__)

    def nested(self, stmts: list[cst.BaseStatement]) -> list[ast.stmt]:
        """The statements of a block under a header (`pass` where none is code)."""
        body, _ = self.captured(lambda: self.block(stmts))
        if all(isinstance(s, Comment) for s in body):
            body.append(ast.Pass())
        return body

    def small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            node = small.targets[0].target
            value = self.exprs.expr(small.value)
            if isinstance(node, cst.Name):
                src = self.facts.val(small.value).type
                dst = self.storage.get(node.value, src)
                self.emit(assign(node.value, self.exprs.coerce(value, src, dst)))  # type: ignore[arg-type]
                self.path.assigned(node.value, _ast(small.value))
            else:
                tree = _ast(node)
                self.emit(assign(target(tree), value))
                for n in ast.walk(tree):  # a tuple target: each name changes
                    if isinstance(n, ast.Name):
                        self.path.assigned(n.id)
        elif isinstance(small, cst.Return):
            self.ret(small.value)
        elif isinstance(small, cst.Raise):
            self.emit(self.fail())
        elif isinstance(small, cst.Assert):
            test = self.exprs.expr(small.test)
            truth = self.exprs.truthy(test, self.facts.type(small.test))
            self.emit(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=truth), body=[self.fail()], orelse=[]))
        elif isinstance(small, cst.Break | cst.Continue | cst.Pass):
            self.emit({cst.Break: ast.Break, cst.Continue: ast.Continue, cst.Pass: ast.Pass}[type(small)]())
        else:
            raise AssertionError(type(small).__name__)

    def ret(self, value: cst.BaseExpression) -> None:
        items = value.elements if isinstance(value, cst.Tuple) else None
        if items is not None:
            parts = [self.exprs.coerce(self.exprs.expr(e.value), self.facts.type(e.value), t.type) for e, t in zip(items, self.facts.result)]  # type: ignore[arg-type]
            self.emit(_returns(ast.Tuple(elts=parts, ctx=ast.Load())))
            return
        node = self.exprs.expr(value)
        val = self.facts.val(value)
        if not isinstance(val.type, TupleType):
            node = self.exprs.coerce(node, val.type, self.facts.result[0].type)  # type: ignore[arg-type]
        self.emit(_returns(node))

    def if_stmt(self, s: cst.If) -> None:
        test = self.exprs.expr(s.test)
        before, test_ast = self.path.snapshot(), _ast(s.test)
        self.path.facts |= test_facts(test_ast, True)
        then = self.nested(body_of(s.body))
        then_end = self.path.snapshot()
        self.path.restore(before)
        self.path.facts |= test_facts(test_ast, False)
        other = self.nested(body_of(s.orelse)) if s.orelse is not None else None
        # After the if: what holds at the end of each branch that goes on (a returning one does not).
        ends = [end for end, gone in ((then_end, leaves(s.body)), (self.path.snapshot(),
                s.orelse is not None and leaves(body_of(s.orelse)))) if not gone]
        self.path.join(*ends) if ends else self.path.clear()
        # An int64 overflow test that opens a branch runs before the `if` instead: it holds only
        # beyond +-3e18 (a lane it flags on the other branch is re-run exactly, as any flagged
        # lane), and branches of plain arithmetic become selects. Collatz: 118 -> 80 ms a 1e6 call.
        for branch in (then, other or []):
            self.body += hoist_overflow_checks(branch)
        self.emit(ast.If(test=test, body=then, orelse=other or []))

    def while_loop(self, s: cst.While) -> None:
        self.loop(lambda: self._while_loop(s))

    def loop(self, lower) -> None:
        self.path.clear()  # the body may assign what a fact is about, and run again
        lower()
        self.path.clear()

    def _while_loop(self, s: cst.While) -> None:
        pre, test = self.captured(lambda: self.exprs.expr(s.test))
        if not pre:
            body = self.nested(body_of(s.body))
            ints = [n for n, t in self.storage.items() if t is INT]
            twice = unroll_twice(body, test, ints)  # type: ignore[arg-type]
            self.emit(ast.While(test=test, body=twice if twice is not None else body, orelse=[]))
            return
        # The test needs checks: evaluate it at the top of `while True` (`continue` comes back here).
        stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test), body=[ast.Break()], orelse=[])  # type: ignore[arg-type]
        body = self.nested(body_of(s.body))
        self.emit(ast.While(test=ast.Constant(value=True), body=[*pre, stop, *body], orelse=[]))

    def for_loop(self, s: cst.For) -> None:
        self.loop(lambda: self._for_loop(s))

    def _for_loop(self, s: cst.For) -> None:
        it = s.iter
        if isinstance(it, cst.Call):
            args = [self.temp(self.exprs.expr(a.value)) for a in it.args]
            step = args[2] if len(args) == 3 else None
            if step is not None and (not is_number(step) or ast.literal_eval(step) == 0):
                # range() arg 3 must not be zero: a literal 0 (written, or folded) fails every lane
                self.check("{0} == 0", step)
            head: ast.expr = call("range", *args)
        else:
            head = self.exprs.expr(it)
        body = self.nested(body_of(s.body))
        self.emit(ast.For(target=target(_ast(s.target)), iter=head, body=body, orelse=[], lineno=0))


def _returns(value: ast.expr) -> ast.Return:
    """`return (value, False)`: the lane's value, not flagged."""
    return ast.Return(value=ast.Tuple(elts=[value, ast.Constant(value=False)], ctx=ast.Load()))


def hoist_overflow_checks(branch: list[ast.stmt]) -> list[ast.stmt]:
    """Take the overflow checks that open a branch's statements (after its comments) out of it."""
    i = next((k for k, s in enumerate(branch) if not isinstance(s, Comment)), len(branch))
    out: list[ast.stmt] = []
    while i < len(branch) and getattr(branch[i], _OVERFLOW, False):
        out.append(branch.pop(i))
    if all(isinstance(s, Comment) for s in branch):
        branch.append(ast.Pass())
    return out


def _ast(node: cst.BaseExpression) -> ast.expr:
    return ast.parse(code(node).strip(), mode="eval").body

