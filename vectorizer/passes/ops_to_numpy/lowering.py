"""The state of one `ops_to_numpy` lowering: the lines it emits, the flag checks, and the
statements; expressions, choices, folding, loops and array operations are its collaborators
(`exprs`, `choices`, `folder`, `loops`, `arrays`), each holding this object.
"""

from __future__ import annotations

import libcst as cst

from ...analysis.facts import Facts, storage_types
from ...analysis.guards import Guards
from ...analysis.liveness import Liveness
from ...analysis.signs import Env
from ...analysis.witnesses import Term
from ...core.types import BOOL, FLOAT, INT, Type
from ..base import Context, body_of, code, leading, paren, static_check
from .arrays import ArrayOps
from .choices import Choices, mask_and, simple
from .exprs import Expressions
from .fold import Folder
from .loops import Loops
from .tidy import NOT_FLAG


class Lowering:
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.lines: list[str] = []
        self.depth = 1
        self.flag = ctx.namer.fresh("flag")
        self.has_flags = False
        self.checked: set[tuple[str, str]] = set()  # flag lines since the last assignment/block
        kinds = storage_types(facts, ctx.params)  # a difference of two of the same kind: analysis/divisor.py
        # What masks guarantee (checks they rule out are not emitted).
        self.guards = Guards(ctx.constants, lambda a, b: kinds.get(a) is kinds.get(b) and kinds.get(a) in (FLOAT, INT))
        self.guard_depth = self.depth
        self.loop_depth = 0  # loops around the current line (no guards there: compact_loops reorders lanes)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.signs: Env | None = None  # names of one value a lane, for signs under tests (analysis/signs.py)
        self.ranges: dict[str, tuple[int, int]] = {}  # loop variables of range(constants): [lo, hi)
        batched = [n for n, v in ctx.params.items() if v.batched]
        self.lanes = [f"len({batched[0]})"] if batched else ["1"]  # the current number of lanes
        self.live: Liveness | None = None  # set by `transform`, before lowering starts
        self.decided: frozenset[cst.CSTNode] = frozenset()  # operations whose value decides (analysis/decisions.py)
        # sqrt operands whose sign check reads a witness (analysis/witnesses.py), and the names
        # the witnesses' values got when they were lowered.
        self.witnesses: dict[cst.BaseExpression, tuple[Term, ...]] = {}
        self.witness_nodes: frozenset[cst.BaseExpression] = frozenset()
        self.witness_names: dict[cst.BaseExpression, str] = {}
        # The collaborators, each holding this object: its output, checks and state.
        self.exprs = Expressions(self)
        self.choices = Choices(self)
        self.folder = Folder(self)
        self.loops = Loops(self)
        self.arrays = ArrayOps(self)

    # -- output ------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        if self.depth != self.guard_depth:  # a block starts or ends: it may not run, or run again
            self.guards.clear()
            self.guard_depth = self.depth
        if not line.startswith((f"{self.flag} |=", "#")):
            self.checked.clear()  # an assignment or a block boundary: earlier checks may be stale
            self.guards.emitted(line)
        self.lines.append("    " * self.depth + line)

    def check_uniform(self, mask: str | None, pred: str) -> None:
        """A check the same for every lane: a Python `if`, not an operation over all lanes."""
        static = static_check(pred, self.ctx.constants)
        if static is False:
            return
        if static is True:
            return self.check(mask, "True")
        self.emit(f"if {static}:")
        self.depth += 1
        self.check(mask, "True")
        self.depth -= 1

    def check(self, mask: str | None, pred: str) -> None:
        static = static_check(pred, self.ctx.constants)
        if static is False:
            return  # decided at transform time: no lane can fail here
        if not self.loop_depth and static is not True and self.guards.ruled_out(mask, static):
            return  # the mask's own test rules it out (analysis/guards.py)
        if static is True:
            line = f"{self.flag} |= {mask if mask is not None else 'True'}"
        else:
            line = f"{self.flag} |= {mask_and(mask, static)}"
        key = ("    " * self.depth, line)
        if key in self.checked:
            return  # the same lanes were already flagged for the same reason
        self.checked.add(key)
        self.has_flags = True
        self.emit(line)
        if mask is None and static is True:
            self.fail_everywhere()

    def fail_everywhere(self) -> None:
        """Reached under uniform control, a failure is every lane's: stop here (running on could
        loop forever where Python has already raised); the scalar re-run raises or patches."""
        result = self.facts.result
        if any(not isinstance(v.type, Type) for v in result):
            return  # array results: no placeholder of the right shape; the flags stop the loops
        zeros = [{BOOL: "False", INT: "0"}.get(v.type, "0.0") for v in result]  # type: ignore[arg-type]
        value = f"({', '.join(zeros)})" if self.facts.returns_tuple else zeros[0]
        self.emit(f"return {value}, {self.flag}")

    def temp(self, text: str, stem: str = "t") -> str:
        if simple(text):
            return text
        name = self.ctx.namer.fresh(stem)
        self.emit(f"{name} = {text}")
        return name

    def origin(self, node: cst.CSTNode) -> None:
        """Carry the comments the passes attached (user comments were dropped at the start)."""
        for line in leading(node):
            if line.comment is not None:
                self.emit(line.comment.value)

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement], mask: str | None) -> None:
        for s in stmts:
            self.statement(s, mask)

    def suite(self, stmts: list[cst.BaseStatement], mask: str | None) -> None:
        """The indented block of an emitted `if`/`else`/`while`/`for`: `pass` if it emits no code."""
        start = len(self.lines)
        self.block(stmts, mask)
        if all(line.lstrip().startswith("#") for line in self.lines[start:]):
            self.emit("pass")

    def statement(self, s: cst.BaseStatement, mask: str | None) -> None:
        self.origin(s)
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                self.small(small, mask)
        elif isinstance(s, cst.If):
            self.if_stmt(s, mask)
        elif isinstance(s, cst.While):
            self.loops.while_loop(s, mask)
        elif isinstance(s, cst.For):
            self.loops.for_loop(s, mask)
        else:
            raise AssertionError(f"unexpected statement {type(s).__name__}")

    def small(self, small: cst.BaseSmallStatement, mask: str | None) -> None:
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, cst.Subscript):
                self.arrays.store(target, small.value, mask, self.facts.env_before.get(small, {}))
                return
            value = self.exprs.lower(small.value, mask)
            if isinstance(target, cst.Name):
                name = target.value
                if name in self.ctx.loop_masks:
                    t = self.facts.val(small.value).type
                    if t is not BOOL and isinstance(t, Type):  # a bool stored as a number where paths met
                        value = self.exprs.truthy(value, t)
                    value = f"{NOT_FLAG}({value})"  # `& ~flag` where the function has flags (tidy.py)
                self.emit(f"{name} = {value}")
            else:
                self.emit(f"{code(target)} = {value}")
        elif isinstance(small, cst.Raise):
            self.check(mask, "True")
        elif isinstance(small, cst.Pass):
            pass
        elif isinstance(small, cst.Assert):
            val = self.facts.val(small.test)
            test = self.exprs.lower(small.test, mask)
            if val.batched:
                self.check(mask, f"~({self.exprs.truthy(test, val.type)})")
            else:
                self.check_uniform(mask, f"not {paren(test)}")
        elif isinstance(small, cst.Return):
            value = small.value
            if isinstance(value, cst.Tuple):
                parts = [self.exprs.lower(e.value, mask) for e in value.elements]
                self.emit(f"return ({', '.join(parts)}), {self.flag}")
            else:
                self.emit(f"return {self.exprs.lower(value, mask)}, {self.flag}")
        else:
            raise AssertionError(f"unexpected statement {type(small).__name__}")

    def if_stmt(self, s: cst.If, mask: str | None) -> None:
        test = self.exprs.lower(s.test, mask)
        if self.facts.batched_test.get(s):  # a masked block from if_to_select
            assert s.orelse is None
            self.block(body_of(s.body), test)  # a mask name or `~m`: cheap to repeat
            return
        then_end, else_end, after = self.facts.branch_ends.get(s, (None, None, None))
        if test in ("True", "False"):  # decided at transform time: only the branch that runs
            self.block(body_of(s.body) if test == "True" else body_of(s.orelse), mask)
            self.loops.convert_join(then_end if test == "True" else else_end, after, mask)
            return
        self.emit(f"if {test}:")
        self.depth += 1
        self.suite(body_of(s.body), mask)
        self.loops.convert_join(then_end, after, mask)
        self.depth -= 1
        start = len(self.lines)
        self.emit("else:")
        self.depth += 1
        if s.orelse is not None:
            self.suite(body_of(s.orelse), mask)
        self.loops.convert_join(else_end, after, mask)
        self.depth -= 1
        if len(self.lines) == start + 1:
            del self.lines[start:]  # no else branch, and nothing to convert on the fall-through

    def facts_locals(self) -> set[str]:
        if not hasattr(self, "_locals"):
            names = set(self.ctx.params)
            for env in self.facts.env_before.values():
                names |= env.keys()
            self._locals = names
        return self._locals
