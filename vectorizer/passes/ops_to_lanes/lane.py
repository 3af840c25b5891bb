"""One lane function of `ops_to_lanes` as it is lowered: its lines, checks (early `return
<zeros>, True`) and statements; expressions are its collaborator `exprs` (`LaneExpressions`)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.divisor import PathFacts, leaves, test_facts, without_divisor_check
from ...analysis.facts import Facts, storage_types
from ...core.text import is_number
from ...core.types import BOOL, FLOAT, INT, NUM, TupleType
from ..base import Context, body_of, code, paren
from .exprs import LaneExpressions, static_false
from .scalarize import scalar
from .unroll import unroll_twice

if TYPE_CHECKING:
    from . import LaneModule

ZERO = {BOOL: "False", INT: "0", FLOAT: "0.0", NUM: "0.0"}


class Lane:
    def __init__(self, ctx: Context, facts: Facts, lanes: LaneModule) -> None:
        self.ctx = ctx
        self.facts = facts
        self.module = lanes
        self.lines: list[str] = []
        self.depth = 1
        result = [v.type for v in facts.result]
        zeros = [ZERO[t] for t in result]  # type: ignore[index]
        self.fail = f"return (({', '.join(zeros)},), True)" if facts.returns_tuple else f"return ({zeros[0]}, True)"
        self.storage = storage_types(facts, ctx.params)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.overflow_checks: set[str] = set()  # `if <int64 overflow test>:` lines, see if_stmt
        self.path = PathFacts()  # comparisons that hold here: differences they prove nonzero
        self.exprs = LaneExpressions(self)
        # exact=False, the main lane: the operations whose values decide an int, a bool, a branch,
        # a trip count or an exception (analysis/decisions.py); None: every one is kept exact (a
        # callee's result may decide something in its caller)
        self.decided: frozenset[cst.CSTNode] | None = None

    def approximate(self, node: cst.CSTNode) -> bool:
        """May `node`'s value be computed approximately (exact=False, deciding nothing)?"""
        return self.decided is not None and node not in self.decided

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def temp(self, text: str, stem: str = "t") -> str:
        if text.isidentifier() or is_number(text):
            return text
        name = self.ctx.namer.fresh(stem)
        self.emit(f"{name} = {text}")
        return name

    def check(self, pred: str, overflow: bool = False) -> None:
        if static_false(pred, self.module.constants):
            return  # decided now: no lane can fail here
        line = f"if {scalar(pred)}:"
        if overflow:
            self.overflow_checks.add(line)
        self.emit(line)
        self.emit(f"    {self.fail}")

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

    def captured(self, run) -> tuple[list[str], str]:
        """Lower into a side buffer (to see whether an operand needs statements)."""
        saved, self.lines = self.lines, []
        try:
            text = run()
            return self.lines, text
        finally:
            self.lines = saved

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement]) -> None:
        for s in stmts:
            for line in getattr(s, "leading_lines", ()):
                if line.comment is not None:
                    self.emit(line.comment.value)
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

    def nested(self, stmts: list[cst.BaseStatement]) -> None:
        self.depth += 1
        before = len(self.lines)
        self.block(stmts)
        if len(self.lines) == before:
            self.emit("pass")
        self.depth -= 1

    def small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            value = self.exprs.expr(small.value)
            if isinstance(target, cst.Name):
                src = self.facts.val(small.value).type
                dst = self.storage.get(target.value, src)
                value = self.exprs.coerce(value, src, dst)  # type: ignore[arg-type]
                self.emit(f"{target.value} = {value}")
                self.path.assigned(target.value, _ast(small.value))
            else:
                self.emit(f"{code(target)} = {value}")
                for n in ast.walk(_ast(target)):  # a tuple target: each name changes
                    if isinstance(n, ast.Name):
                        self.path.assigned(n.id)
        elif isinstance(small, cst.Return):
            self.ret(small.value)
        elif isinstance(small, cst.Raise):
            self.emit(self.fail)
        elif isinstance(small, cst.Assert):
            test = self.exprs.expr(small.test)
            self.emit(f"if not {paren(self.exprs.truthy(test, self.facts.type(small.test)))}:")
            self.emit(f"    {self.fail}")
        elif isinstance(small, cst.Break | cst.Continue | cst.Pass):
            self.emit(code(small).strip())
        else:
            raise AssertionError(type(small).__name__)

    def ret(self, value: cst.BaseExpression) -> None:
        items = value.elements if isinstance(value, cst.Tuple) else None
        if items is not None:
            parts = [self.exprs.coerce(self.exprs.expr(e.value), self.facts.type(e.value), t.type) for e, t in zip(items, self.facts.result)]  # type: ignore[arg-type]
            self.emit(f"return (({', '.join(parts)},), False)")
            return
        text = self.exprs.expr(value)
        val = self.facts.val(value)
        if isinstance(val.type, TupleType):
            self.emit(f"return ({text}, False)")
            return
        self.emit(f"return ({self.exprs.coerce(text, val.type, self.facts.result[0].type)}, False)")  # type: ignore[arg-type]

    def if_stmt(self, s: cst.If) -> None:
        test = self.exprs.expr(s.test)
        before, test_ast = self.path.snapshot(), _ast(s.test)
        self.path.facts |= test_facts(test_ast, True)
        then, _ = self.captured(lambda: self.nested(body_of(s.body)))
        then_end = self.path.snapshot()
        self.path.restore(before)
        self.path.facts |= test_facts(test_ast, False)
        other, _ = self.captured(lambda: self.nested(body_of(s.orelse))) if s.orelse is not None else ([], "")
        # After the if: what holds at the end of each branch that goes on (a returning one does not).
        ends = [end for end, gone in ((then_end, leaves(s.body)), (self.path.snapshot(),
                s.orelse is not None and leaves(body_of(s.orelse)))) if not gone]
        self.path.join(*ends) if ends else self.path.clear()
        # An int64 overflow test that opens a branch runs before the `if` instead: it holds only
        # beyond +-3e18 (a lane it flags on the other branch is re-run exactly, as any flagged
        # lane), and branches of plain arithmetic become selects. Collatz: 118 -> 80 ms a 1e6 call.
        for lines in (then, other):
            self.lines += self.hoist_overflow_checks(lines)
        self.emit(f"if {test}:")
        self.lines += then
        if s.orelse is not None:
            self.emit("else:")
            self.lines += other

    def hoist_overflow_checks(self, lines: list[str]) -> list[str]:
        """Take the overflow checks that open a branch's lines (after its comments) out of it."""
        out: list[str] = []
        i = next((k for k, ln in enumerate(lines) if not ln.lstrip().startswith("#")), len(lines))
        while i + 1 < len(lines) and lines[i].strip() in self.overflow_checks and lines[i + 1].strip() == self.fail:
            out += [ln[4:] for ln in lines[i:i + 2]]
            del lines[i:i + 2]
        if all(ln.lstrip().startswith("#") for ln in lines):
            lines.append("    " * (self.depth + 1) + "pass")
        return out

    def while_loop(self, s: cst.While) -> None:
        self.loop(lambda: self._while_loop(s))

    def loop(self, lower) -> None:
        self.path.clear()  # the body may assign what a fact is about, and run again
        lower()
        self.path.clear()

    def _while_loop(self, s: cst.While) -> None:
        pre, test = self.captured(lambda: self.exprs.expr(s.test))
        if not pre:
            self.emit(f"while {test}:")
            start = len(self.lines)
            self.nested(body_of(s.body))
            ints = [name for name, t in self.storage.items() if t is INT]
            twice = unroll_twice(self.lines[start:], test, ints, self.fail, "    " * (self.depth + 1))
            if twice is not None:
                self.lines[start:] = twice
            return
        # The test needs checks: evaluate it at the top of `while True` (`continue` comes back here).
        self.emit("while True:")
        self.depth += 1
        self.lines += ["    " + ln for ln in pre]
        self.emit(f"if not {paren(test)}:")
        self.emit("    break")
        self.depth -= 1
        self.nested(body_of(s.body))

    def for_loop(self, s: cst.For) -> None:
        self.loop(lambda: self._for_loop(s))

    def _for_loop(self, s: cst.For) -> None:
        it = s.iter
        if isinstance(it, cst.Call):
            args = [self.temp(self.exprs.expr(a.value)) for a in it.args]
            if len(args) == 3 and (not is_number(args[2]) or float(args[2]) == 0):
                # range() arg 3 must not be zero: a literal 0 (written, or folded) fails every lane
                self.check(f"{args[2]} == 0")
            head = f"range({', '.join(args)})"
        else:
            head = self.exprs.expr(it)
        self.emit(f"for {code(s.target)} in {head}:")
        self.nested(body_of(s.body))


def _ast(node: cst.BaseExpression) -> ast.expr:
    return ast.parse(code(node).strip(), mode="eval").body
