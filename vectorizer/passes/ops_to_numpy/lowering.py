"""The state of one `ops_to_numpy` lowering: the statements it emits (`ast` nodes, a line each
with its indentation: core/pyast.build makes them one tree), the flag checks, and the user's
statements; expressions, choices, folding, loops and array operations are its collaborators
(`exprs`, `choices`, `folder`, `loops`, `arrays`), each holding this object.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...analysis.facts import Facts, storage_types
from ...analysis.guards import Guards
from ...analysis.liveness import Liveness
from ...analysis.signs import Env
from ...analysis.witnesses import Term
from ...core import nodes as n
from ...core.nodes import Mask
from ...core.pyast import Comment, Else, assign, store
from ...core.types import BOOL, FLOAT, INT, Type
from ..base import Context, body_of, leading, static_node
from .arrays import ArrayOps
from .branch_lanes import BranchLanes
from .choices import Choices
from .exprs import Expressions
from .fold import Folder
from .loops import Loops, target
from .tidy import NOT_FLAG

Line = tuple[int, ast.stmt]  # a statement and its indentation in levels (core/pyast.build)


class Lowering:
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.lines: list[Line] = []
        self.depth = 1
        self.flag = ctx.namer.fresh("flag")
        self.has_flags = False
        self.checked: set[tuple[int, str]] = set()  # flag lines since the last assignment/block
        kinds = storage_types(facts, ctx.params)  # a difference of two of the same kind: analysis/divisor.py
        # What masks guarantee (checks they rule out are not emitted).
        self.guards = Guards(ctx.constants, lambda a, b: kinds.get(a) is kinds.get(b) and kinds.get(a) in (FLOAT, INT))
        self.guard_depth = self.depth
        self.loop_depth = 0  # loops around the current line (no guards there: compact_loops reorders lanes)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.int_bounds: dict[str, int] = {}  # names whose ints are bounded (analysis/int_bounds.py)
        self.signs: Env | None = None  # names of one value a lane, for signs under tests (analysis/signs.py)
        self.ranges: dict[str, tuple[int, int]] = {}  # loop variables of range(constants): [lo, hi)
        batched = [name for name, v in ctx.params.items() if v.batched]
        # the current number of lanes
        self.lanes: list[ast.expr] = [n.call("len", n.name(batched[0])) if batched else n.const(1)]
        self.live: Liveness | None = None  # set by `transform`, before lowering starts
        self.decided: frozenset[cst.CSTNode] = frozenset()  # operations whose value decides (analysis/decisions.py)
        # sqrt operands whose sign check reads a witness (analysis/witnesses.py), and the names
        # the witnesses' values got when they were lowered.
        self.witnesses: dict[cst.BaseExpression, tuple[Term, ...]] = {}
        self.witness_nodes: frozenset[cst.BaseExpression] = frozenset()
        self.witness_names: dict[cst.BaseExpression, ast.expr] = {}
        # The collaborators, each holding this object: its output, checks and state.
        self.exprs = Expressions(self)
        self.choices = Choices(self)
        self.folder = Folder(self)
        self.loops = Loops(self)
        self.arrays = ArrayOps(self)
        self.branches = BranchLanes(self)

    # -- output ------------------------------------------------------------------------------
    def emit(self, node: ast.stmt, indent: int = 0) -> None:
        """A statement at the current depth (`indent` levels deeper): a block statement (`If`,
        `While`, `For`) with an empty body opens a block, `Else()` its else (core/pyast.build)."""
        if self.depth != self.guard_depth:  # a block starts or ends: it may not run, or run again
            self.guards.clear()
            self.guard_depth = self.depth
        if not (isinstance(node, Comment) or self.is_flag_line(node)):
            self.checked.clear()  # an assignment or a block boundary: earlier checks may be stale
            self.guards.emitted_node(None if isinstance(node, Else) else node)
        self.lines.append((self.depth + indent, node))

    def is_flag_line(self, node: ast.stmt) -> bool:
        return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr) \
            and isinstance(node.target, ast.Name) and node.target.id == self.flag

    def open(self, header: ast.stmt) -> None:
        """Emit a block's header (`if`, `else`, `while`, `for`) and go one level in."""
        self.emit(header)
        self.depth += 1

    def check_uniform(self, mask: Mask, pred: ast.expr) -> None:
        """A check the same for every lane: a Python `if`, not an operation over all lanes."""
        static = static_node(pred, self.ctx.constants)
        if static is False:
            return
        if static is True:
            return self.check(mask, n.constant(True))
        self.open(n.if_(static))
        self.check(mask, n.constant(True))
        self.depth -= 1

    def check(self, mask: Mask, pred: ast.expr) -> None:
        static = static_node(pred, self.ctx.constants)
        if static is False:
            return  # decided at transform time: no lane can fail here
        if not self.loop_depth and static is not True and self.guards.ruled_out_node(mask, static):
            return  # the mask's own test rules it out (analysis/guards.py)
        if static is True:
            value = mask if mask is not None else n.constant(True)
        else:
            value = n.mask_and(mask, static)
        key = (self.depth, ast.dump(value))
        if key in self.checked:
            return  # the same lanes were already flagged for the same reason
        self.checked.add(key)
        self.has_flags = True
        self.emit(ast.AugAssign(target=store(self.flag), op=ast.BitOr(), value=value))
        if mask is None and static is True:
            self.fail_everywhere()

    def fail_everywhere(self) -> None:
        """Reached under uniform control, a failure is every lane's: stop here (running on could
        loop forever where Python has already raised); the scalar re-run raises or patches."""
        result = self.facts.result
        if any(not isinstance(v.type, Type) for v in result):
            return  # array results: no placeholder of the right shape; the flags stop the loops
        zeros = [n.const({BOOL: False, INT: 0}.get(v.type, 0.0)) for v in result]  # type: ignore[call-overload]
        # (a one-item tuple's placeholder is its item, as the text `(0.0)` was before)
        value = ast.Tuple(elts=zeros, ctx=ast.Load()) if self.facts.returns_tuple and len(zeros) != 1 else zeros[0]
        self.emit(self.returns(value))

    def returns(self, value: ast.expr) -> ast.Return:
        """`return value, flag`."""
        return ast.Return(value=ast.Tuple(elts=[value, n.name(self.flag)], ctx=ast.Load()))

    def temp(self, node: ast.expr, stem: str = "t") -> ast.expr:
        """`node` as an operand to use more than once: itself if simple (a name, a number, a
        NumPy constant), else a fresh name assigned it."""
        if n.simple(node):
            return node
        name = self.ctx.namer.fresh(stem)
        self.emit(assign(name, node))
        return n.name(name)

    def origin(self, node: cst.CSTNode) -> None:
        """Carry the comments the passes attached (user comments were dropped at the start)."""
        for line in leading(node):
            if line.comment is not None:
                self.emit(Comment(text=line.comment.value))

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement], mask: Mask) -> None:
        for s in stmts:
            self.statement(s, mask)

    def suite(self, stmts: list[cst.BaseStatement], mask: Mask) -> None:
        """The indented block of an emitted `if`/`else`/`while`/`for`: `pass` if it emits no code."""
        start = len(self.lines)
        self.block(stmts, mask)
        if all(isinstance(node, Comment) for _, node in self.lines[start:]):
            self.emit(ast.Pass())

    def statement(self, s: cst.BaseStatement, mask: Mask) -> None:
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

    def small(self, small: cst.BaseSmallStatement, mask: Mask) -> None:
        if isinstance(small, cst.Assign):
            target_ = small.targets[0].target
            if isinstance(target_, cst.Subscript):
                self.arrays.store(target_, small.value, mask, self.facts.env_before.get(small, {}))
                return
            value = self.exprs.lower(small.value, mask)
            if isinstance(target_, cst.Name) and target_.value in self.ctx.loop_masks:
                t = self.facts.val(small.value).type
                if t is not BOOL and isinstance(t, Type):  # a bool stored as a number where paths met
                    value = self.exprs.truthy(value, t)
                value = n.call(NOT_FLAG, value)  # `& ~flag` where the function has flags (tidy.py)
            self.emit(ast.Assign(targets=[target(target_)], value=value, lineno=0))
        elif isinstance(small, cst.Raise):
            self.check(mask, n.constant(True))
        elif isinstance(small, cst.Pass):
            pass
        elif isinstance(small, cst.Assert):
            val = self.facts.val(small.test)
            test = self.exprs.lower(small.test, mask)
            if val.batched:
                self.check(mask, n.unary("~", self.exprs.truthy(test, val.type)))
            else:
                self.check_uniform(mask, n.unary("not", test))
        elif isinstance(small, cst.Return):
            value = small.value
            if isinstance(value, cst.Tuple):
                parts = [self.exprs.lower(e.value, mask) for e in value.elements]
                self.emit(self.returns(ast.Tuple(elts=parts, ctx=ast.Load())))
            else:
                self.emit(self.returns(self.exprs.lower(value, mask)))  # type: ignore[arg-type]
        else:
            raise AssertionError(f"unexpected statement {type(small).__name__}")

    def if_stmt(self, s: cst.If, mask: Mask) -> None:
        test = self.exprs.lower(s.test, mask)
        if self.facts.batched_test.get(s):  # a masked block from if_to_select
            assert s.orelse is None
            if s in self.ctx.branch_lanes and self.branches.lower(s, test):
                return  # a costly branch, on its own lanes (branch_lanes.py)
            self.block(body_of(s.body), test)  # a mask name or `~m`: cheap to repeat
            return
        then_end, else_end, after = self.facts.branch_ends.get(s, (None, None, None))
        if n.is_bool(test, True) or n.is_bool(test, False):  # decided at transform time: only the branch that runs
            taken = n.is_bool(test, True)
            self.block(body_of(s.body) if taken else body_of(s.orelse), mask)
            self.loops.convert_join(then_end if taken else else_end, after, mask)
            return
        self.open(n.if_(test))
        self.suite(body_of(s.body), mask)
        self.loops.convert_join(then_end, after, mask)
        self.depth -= 1
        start = len(self.lines)
        self.open(Else())
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
