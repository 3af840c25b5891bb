"""Branches and loops of the batched-values analysis (batched.py's `Analyzer`): how the state
flows through `if` and through `while` / `for`.

Branches join: a name assigned under a batched test (or under batched control, where
if_to_select predicates even a uniform `if`) is per-lane after it. Loops iterate to a fixpoint
(at most 100 rounds: the lattice is finite): a loop is batched when its test is, when it runs
under batched control, or when a `break` / `continue` / `return` in it sits under a batched test
(`_Loop.batched_exit`: lanes leave at different iterations, and the loop is redone as batched).

`ControlFlow` is a part of `Analyzer`, which inherits it: its methods read the analyzer's state
(`facts`, `exprs`, `ns`, `ctrl_depth`, `masked_blocks`, `loops`) and call back its `block`,
`statement` and `error`. It is apart from batched.py, which holds the entry, the statement
dispatch and the assignments, because control flow is the part with its own rules (joins,
fixpoints, predication) and batched.py had grown past the size of a module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..core.tree import is_raise
from ..core.types import TupleType, Type
from ..errors import VectorizeError
from ..frontend.namespace import Namespace
from .exprs import ExpressionAnalysis
from .facts import (
    Binding,
    Env,
    Facts,
    empty_range,
    join_env,
    join_many,
    literal_range_length,
)
from .for_loops import after_iterations, always_true, bind_for_target
from .liveness import writes


@dataclass
class _Loop:
    node: cst.CSTNode
    ctrl_depth: int  # batched-control depth when the loop started
    breaks: list[Env] = field(default_factory=list)
    continues: list[Env] = field(default_factory=list)
    batched_exit: bool = False


class ControlFlow:
    """`if`, `while` and `for` statements: the part of `Analyzer` (batched.py) that joins branches
    and iterates loops to a fixpoint."""

    # the analyzer's state, which these methods read and update (Analyzer.__init__ sets it)
    facts: Facts
    exprs: ExpressionAnalysis
    ns: Namespace
    ctrl_depth: int
    masked_blocks: bool
    loops: list[_Loop]

    def if_stmt(self, stmt: cst.If, env: Env) -> Env | None:
        test = self.exprs.expr(stmt.test, env)
        self.exprs.truth(stmt.test, test, "an 'if' test")
        self.facts.batched_test[stmt] = test.batched
        if test.batched and self.masked_blocks:
            # After if_to_select a batched `if m:` is a masked block: its body runs on every lane
            # (failures flagged on m), so it is straight-line code; a raise in it only flags.
            out = env
            for s in (stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else [stmt.body]):
                self.facts.env_before[s] = out
                out = self.statement(s, out) if not is_raise(s) else out
            return out
        # Under batched control if_to_select predicates even a uniform `if` (`x = e if m else x`
        # with m the enclosing mask): what a branch reassigns is per-lane after it.
        predicated = test.batched or (self.ctrl_depth > 0 and not self.masked_blocks)
        self.ctrl_depth += test.batched
        then = self.block(stmt.body, env)
        else_env = env
        if predicated and stmt.orelse is not None:
            # Predicated branches run one after the other: the else branch runs after the then
            # branch's merges (`x = e if m else x`), so what that branch assigns is an array
            # there, even though it holds the old value on the else lanes (even if it raises).
            assigned = writes(stmt.body) & env.keys()
            else_env = {n: Binding(b.val.with_batched(True), b.maybe_unbound) if n in assigned else b
                        for n, b in env.items()}
        if isinstance(stmt.orelse, cst.If):
            self.facts.env_before[stmt.orelse] = else_env
            other = self.if_stmt(stmt.orelse, else_env)
        elif isinstance(stmt.orelse, cst.Else):
            other = self.block(stmt.orelse.body, else_env)
        else:
            other = env
        self.ctrl_depth -= test.batched
        out = join_env(then, other, batched=predicated)
        if predicated and out is not None and (then is None or other is None):
            # A branch that leaves (raise, return) still merged what it assigned before leaving.
            left = writes(stmt.body) if then is None else writes(stmt.orelse) if stmt.orelse else set()
            out = {n: Binding(b.val.with_batched(True), b.maybe_unbound) if n in left else b for n, b in out.items()}
        self.facts.branch_ends[stmt] = (then, other, out)
        return out

    def loop(self, stmt: cst.While | cst.For, env: Env) -> Env | None:
        self.facts.loop_entry[stmt] = env
        if isinstance(stmt, cst.For) and empty_range(stmt.iter, self.ns):
            self.facts.batched_test[stmt] = False  # its body never runs (canonicalize drops it)
            self.facts.loop_header[stmt] = env
            return env
        if isinstance(stmt, cst.For):
            env = self.for_header(stmt, env)
        header = env
        promote = False
        for _ in range(100):
            loop = _Loop(stmt, self.ctrl_depth)
            self.loops.append(loop)
            if isinstance(stmt, cst.While):
                test = self.exprs.expr(stmt.test, header)
                self.exprs.truth(stmt.test, test, "a 'while' test")
                batched = test.batched or promote
            else:
                batched = self.facts.batched_test[stmt] or promote
            self.ctrl_depth += batched
            body_env = header if isinstance(stmt, cst.While) else bind_for_target(self.facts, stmt, header)
            end = self.block(stmt.body, body_env)
            self.ctrl_depth -= batched
            self.loops.pop()
            if loop.batched_exit and not batched:
                promote = True  # lanes leave at different iterations: redo as a batched loop
                continue
            back = join_many([end, *loop.continues])
            # In predicated code (masked_blocks) merges already carry the loop mask, and masked
            # blocks run on every lane: the join itself adds no per-lane variation.
            new_header = join_env(header, back, batched=batched and not self.masked_blocks)
            assert new_header is not None
            if new_header == header:
                break
            header = new_header
        else:  # pragma: no cover - the lattice is finite
            raise self.error(stmt, "type analysis did not converge", "report this as a vectorizer bug", VectorizeError)
        self.facts.batched_test[stmt] = batched
        self.facts.loop_header[stmt] = header
        if back is None and isinstance(stmt, cst.For) and literal_range_length(stmt.iter, self.ns):
            exits = list(loop.breaks)  # the first iteration always leaves: no fall-through
        elif isinstance(stmt, cst.While) and always_true(stmt.test) and loop.breaks:
            exits = list(loop.breaks)  # `while True:` ends only at a break (a count loop: frontend/count_loops.py);
            # without one, what follows never runs: left typed as the header (the passes still walk it)
        else:
            exits = [after_iterations(self.facts, stmt, header, back), *loop.breaks]
        return join_many(exits, batched=batched and not self.masked_blocks)

    def for_header(self, stmt: cst.For, env: Env) -> Env:
        it = stmt.iter
        if isinstance(it, cst.Call):  # range(...)
            args = [self.exprs.expr(a.value, env) for a in it.args]
            for a, node in zip(args, it.args):
                if not (isinstance(a.type, Type) and a.type.is_intlike):
                    raise self.error(node.value, "range() needs int arguments, but this one may be a float",
                                     "Python raises TypeError here; convert with int(...)")
                if a.one_d is not False:  # range(array([3])): Python raises TypeError
                    raise self.error(node.value, "range() of a one-element array (np.atleast_1d of a number)",
                                     "Python raises TypeError here; use int(x) or x.item()")
            self.facts.batched_test[stmt] = any(a.batched for a in args)
        else:
            seq = self.exprs.expr(it, env, tuple_ok=True)
            if not isinstance(seq.type, TupleType):
                raise self.error(it, "'for' needs range(...) or a tuple of numbers", "write 'for i in range(n)'")
            self.facts.batched_test[stmt] = False
        return env
