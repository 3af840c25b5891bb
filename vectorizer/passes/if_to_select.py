"""Lower batched `if` statements to straight-line code: each branch runs on every lane, its effects
kept only on the lanes that take it.

Before::

    if x > 0:
        t = 1 / x
        y = t * 2
    else:
        y = 0.0

After::

    m = x > 0
    if m:              # a masked block: runs on all lanes, may fail only on lanes in m
        t = 1 / x
        y = t * 2
    y = y if m else 0.0

An assignment in a branch becomes a merge `v = e if m else v` only when the old value of `v` may
still be read on lanes outside the branch: `v` is live after the innermost batched statement, or
read by a sibling `else` branch, and `v` may already hold a value. Other assignments go into a
masked block `if m:`, which `ops_to_numpy` evaluates on all lanes with failures flagged only on
`m` (for one lane it is just an `if`). Nested branches get their own masks (`m_1 = m and c`);
raises become `if m: raise ...`, asserts `assert not m or test`.

A costly branch (analysis/branch_cost.py) becomes one masked block holding all it became,
listed in `ctx.branch_lanes`: ops_to_numpy runs it on its own lanes (ops_to_numpy/branch_lanes.py).

The bodies of masked loops (`while active:`, from `while_to_masked`) run under `active` in the
same way; a loop nested in a branch starts from the branch's mask (`active = m and test`).
"""

from __future__ import annotations

import libcst as cst

from ..analysis import branch_cost
from ..analysis.bool_syntax import bool_assigned, bool_syntax
from ..analysis.facts import Facts
from ..analysis.liveness import Liveness, reads, writes
from ..core.binding import bound_names
from ..core.types import BOOL, INT, Type, join
from .base import (
    Context,
    assign,
    block,
    body_of,
    code,
    expr,
    func_body,
    if_stmt,
    paren,
    replace,
)


class _Predicate:
    def __init__(self, ctx: Context, facts: Facts, live: Liveness) -> None:
        self.ctx = ctx
        self.facts = facts
        self.live = live
        self.defined: set[str] = set(ctx.params)  # may hold a value here (linear order)
        self.seen: set[str] = set(ctx.params)  # assigned textually earlier (array code runs all of it)
        self.placeholders: dict[str, str] = {}  # merged before any value: initial typed zero
        self.bool_values: dict[str, bool] = {}  # name -> every assignment to it is a bool by syntax
        self.leaving: dict[str, str] = {}  # loop mask -> its break flag (a lane that sets it leaves)
        self.types: dict[str, Type] = {}  # each assigned name's type, joined over its assignments
        for node, val in facts.vals.items():
            if isinstance(node, cst.Name) and isinstance(val.type, Type) and node.value not in self.types:
                self.types[node.value] = val.type
            elif isinstance(node, cst.Name) and isinstance(val.type, Type):
                self.types[node.value] = join(self.types[node.value], val.type)

    # -- blocks ----------------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement], mask: str | None, need: frozenset[str]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        pending: list[cst.BaseStatement] = []  # unmerged statements of the current masked block

        def flush() -> None:
            if pending:
                out.append(if_stmt(mask, list(pending)))  # type: ignore[arg-type]
                pending.clear()

        for s in stmts:
            if mask is None:
                out.extend(self.unmasked(s, need))
                continue
            merged, unmerged = self.masked(s, mask, need)
            if unmerged:
                pending.extend(unmerged)
            if merged:
                flush()
                out.extend(merged)
        flush()
        return _join_masked_blocks(out, self.ctx.branch_lanes)

    def unmasked(self, s: cst.BaseStatement, need: frozenset[str]) -> list[cst.BaseStatement]:
        """A statement that runs on all lanes of the current region."""
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                self.defined.update(bound_names(small))
                self.seen.update(bound_names(small))
            return [s]
        if isinstance(s, cst.If) and self.facts.batched_test.get(s):
            return replace(s, self.batched_if(s, None, need))
        if isinstance(s, cst.If):
            # A uniform `if` stays Python control flow: only one branch runs, so what the then
            # branch binds is not bound in the else branch, nor after the if unless both bind it
            # (a merge reading it there needs a placeholder).
            defined, seen = set(self.defined), set(self.seen)
            then = self.block(body_of(s.body), None, need)
            then_defined, then_seen = self.defined, self.seen
            self.defined, self.seen = defined, seen
            other = self.block(body_of(s.orelse), None, need)
            self.defined |= then_defined
            self.seen &= then_seen  # bound after the if only if both branches bind it
            return [s.with_changes(body=block(then), orelse=cst.Else(block(other)) if other else None)]
        seen = set(self.seen)  # a loop body may run no times: what it binds is not bound after it
        if isinstance(s, cst.While):
            out = [self.loop(s, None, need)]
        elif isinstance(s, cst.For):
            self.defined.add(s.target.value)  # type: ignore[attr-defined]
            self.defined |= bound_names(s)
            body = self.block(body_of(s.body), None, need)
            out = [s.with_changes(body=block(body))]
        else:
            raise AssertionError(f"unexpected statement {type(s).__name__}")
        self.seen = seen
        return out

    def masked(self, s: cst.BaseStatement, mask: str, need: frozenset[str]) -> tuple[list, list]:
        """(statements that merge, statements for the masked block) for `s` under `mask`."""
        if isinstance(s, cst.SimpleStatementLine):
            merged: list[cst.BaseStatement] = []
            unmerged: list[cst.BaseStatement] = []
            for small in s.body:
                m, u = self.small(small, mask, need)
                merged += m
                unmerged += u
            if merged and unmerged:
                # keep statement order: the unmerged part goes first as its own masked block
                return [if_stmt(mask, unmerged), *merged], []
            return replace(s, merged), replace(s, unmerged) if not merged else []
        if isinstance(s, cst.If):
            # Under a mask every `if` is predicated, even one the analysis found uniform: that
            # analysis ran before this pass, whose merges (`x = e if m else x`) make values
            # batched that were uniform in the scalar code, so its verdict may be stale here.
            return replace(s, self.batched_if(s, mask, need)), []
        if isinstance(s, cst.While | cst.For):
            seen = set(self.seen)  # as above: the body may run no times
            out = [self.loop(s, mask, need)] if isinstance(s, cst.While) else self.for_loop(s, mask, need)
            self.seen = seen
            return out, []
        raise AssertionError(f"unexpected statement {type(s).__name__}")

    def small(self, small: cst.BaseSmallStatement, mask: str, need: frozenset[str]) -> tuple[list, list]:
        line = lambda node: cst.SimpleStatementLine([node])  # noqa: E731
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, cst.Subscript):  # x[i] = v keeps the other lanes' elements
                merged = expr(f"{paren(code(small.value))} if {mask} else {code(target)}") if not mask.startswith("not ") \
                    else expr(f"{code(target)} if {mask[4:]} else {paren(code(small.value))}")
                return [line(small.with_changes(value=merged))], []
            if isinstance(target, cst.Name):
                name = target.value
                if name in self.ctx.loop_masks:  # a nested loop starts from this branch's lanes
                    self.defined.add(name)
                    self.seen.add(name)
                    value = cst.BooleanOperation(expr(mask), cst.And(), _paren(small.value))
                    return [line(small.with_changes(value=value))], []
                if name in need and name in self.defined:
                    self.placeholder(name)
                    self.seen.add(name)
                    return [assign(name, self.merge(mask, small.value, name))], []
                self.defined.add(name)
                self.seen.add(name)
                return [], [line(small)]
            names = [e.value.value for e in target.elements]  # type: ignore[attr-defined]
            if not any(n in need and n in self.defined for n in names):
                self.defined.update(names)
                self.seen.update(names)
                return [], [line(small)]
            temps = [self.ctx.namer.fresh(n) for n in names]
            tup = cst.Tuple([cst.Element(cst.Name(t)) for t in temps], lpar=[], rpar=[])
            merges = [assign(n, self.merge(mask, cst.Name(t), n)) if n in self.defined else assign(n, t)
                      for n, t in zip(names, temps)]
            for n in names:
                if n in self.defined:
                    self.placeholder(n)
            self.seen.update(names)
            self.defined.update(names)
            return [if_stmt(mask, [line(cst.Assign([cst.AssignTarget(tup)], small.value))]), *merges], []
        if isinstance(small, cst.Raise):
            return [], [line(small)]
        if isinstance(small, cst.Pass):
            return [], []
        if isinstance(small, cst.Assert):
            test = expr(f"not {paren(mask)} or {paren(code(small.test))}")
            return [line(small.with_changes(test=test))], []
        raise AssertionError(f"unexpected statement {type(small).__name__}")

    def placeholder(self, name: str) -> None:
        """A merge reads the old value. The array code runs every assignment textually before it,
        so only a name first assigned later in a loop (reaching here by the back edge) has none:
        start it from a zero of its type (never observed: the analysis proved no lane reads it)."""
        if name not in self.seen:
            self.placeholders[name] = {BOOL: "False", INT: "0"}.get(self.types.get(name), "0.0")  # type: ignore[arg-type]

    def merge(self, mask: str, value: cst.BaseExpression, name: str) -> cst.BaseExpression:
        if mask.startswith("not "):  # y = y if m else e reads better than y = e if not m else y
            return expr(f"{name} if {mask[4:]} else {paren(code(value))}")
        return expr(f"{paren(code(value))} if {mask} else {name}")

    # -- control flow ----------------------------------------------------------------------------
    def batched_if(self, s: cst.If, mask: str | None, need: frozenset[str]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        then, other = body_of(s.body), body_of(s.orelse)
        if isinstance(s.test, cst.Name) and self.always_bool(s.test.value) \
                and s.test.value not in self.ctx.loop_masks and s.test.value not in writes(s):
            cond = s.test.value  # a bool the branches never reassign can be the mask itself
        else:
            cond = self.ctx.namer.fresh("m")
            # A mask is a bool: a number's truth value is `x != 0` (NaN is true). The analysis
            # ran before this pass, whose merges may have changed a variable's type since (a
            # bool that an earlier branch set to 0.0 is a float now): only a test that is a bool
            # whatever its operands are goes unwrapped; ops_to_numpy drops `bool()` of a bool.
            test = s.test if bool_syntax(s.test) else cst.Call(cst.Name("bool"), [cst.Arg(s.test)])
            test_stmt = assign(cond, test)
            out.append(test_stmt if mask is None else if_stmt(mask, [test_stmt]))
            self.defined.add(cond)
            self.seen.add(cond)
        if mask is None:
            then_mask, else_mask = cond, f"not {cond}"
        else:
            outer = mask
            if other and not mask.isidentifier():  # `not m` (an elif's), read by both arms' masks: once
                outer = self.ctx.namer.fresh("c")
                out.append(assign(outer, mask))
                self.defined.add(outer)
                self.seen.add(outer)
            then_mask = self.ctx.namer.fresh("m")
            out.append(assign(then_mask, f"{outer} and {cond}"))
            else_mask = ""
            if other:
                else_mask = self.ctx.namer.fresh("m")
                out.append(assign(else_mask, f"{outer} and not {cond}"))
        after = self.live.live_out.get(s, frozenset())
        # At the top of a masked loop's body, the lanes of a branch that breaks leave at the end
        # of this iteration: like the lanes already gone, they read only what the loop's exit
        # needs (`need`), not the names the next iteration reads (`after`), so the other
        # branch's assignments to those need no merge.
        leaves = self.leaving.get(mask or "")
        then_after = frozenset() if leaves and _sets_true(other, leaves) else after
        else_after = frozenset() if leaves and _sets_true(then, leaves) else after
        out += self.on_lanes(then, then_mask, self.block(then, then_mask, need | then_after | frozenset(_reads_all(other))))
        if other:
            out += self.on_lanes(other, else_mask, self.block(other, else_mask, need | else_after))
        return out

    def on_lanes(self, branch: list[cst.BaseStatement], mask: str, lowered: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        """A costly branch (analysis/branch_cost.py) as one masked block holding all it became:
        ops_to_numpy runs it on the lanes of `mask` alone (ops_to_numpy/branch_lanes.py)."""
        if not self.ctx.options.compact or branch_cost.cost(branch) < branch_cost.EXPENSIVE:
            return lowered
        self.ctx.branch_lanes.add(region := if_stmt(mask, lowered))
        return [region]

    def always_bool(self, name: str) -> bool:
        """The variable holds a bool array wherever the function has it: a bool parameter or a
        name only ever assigned bools by their syntax (a comparison, `not`, a literal). A bool
        copied from another variable is not enough: merges may have widened that one since."""
        envs = [env[name].val for env in self.facts.env_before.values() if name in env]
        if not envs or not all(v.type is BOOL for v in envs):
            return False
        return self.bool_values.get(name, name in self.ctx.params)

    def loop(self, s: cst.While, mask: str | None, need: frozenset[str]) -> cst.While:
        stmts = body_of(s.body)
        self.defined |= bound_names(s)  # the back edge: later assignments reach the top
        test = s.test
        if isinstance(test, cst.Name) and test.value in self.ctx.loop_masks:
            after = self.live.live_out.get(s, frozenset())
            flag = _break_flag(stmts[-1], test.value)
            if flag is not None:
                self.leaving[test.value] = flag
            body = self.block(stmts[:-1], test.value, need | after) + [stmts[-1]]
        else:
            assert mask is None, "while_to_masked lowers loops in batched control"
            body = self.block(stmts, None, need)
        return s.with_changes(body=block(body))

    def for_loop(self, s: cst.For, mask: str, need: frozenset[str]) -> list[cst.BaseStatement]:
        """A uniform loop in a branch: every lane iterates, the body is predicated."""
        name = s.target.value  # type: ignore[attr-defined]
        header: list[cst.BaseStatement] = []
        if name in need and name in self.defined:
            counter = self.ctx.namer.fresh(name)
            header = [assign(name, self.merge(mask, cst.Name(counter), name))]
            s = s.with_changes(target=cst.Name(counter))
            self.placeholder(name)  # `defined` by an enclosing loop's back edge: maybe no value yet
            self.seen.add(name)
        self.defined.add(name)
        self.defined |= bound_names(s)
        body = header + self.block(body_of(s.body), mask, need)
        return [s.with_changes(body=block(body))]


def _join_masked_blocks(stmts: list[cst.BaseStatement], regions: set[cst.If]) -> list[cst.BaseStatement]:
    """Adjacent masked blocks with the same mask read better as one (a branch run on its own
    lanes, `regions`, stays as it is)."""
    out: list[cst.BaseStatement] = []
    for s in stmts:
        prev = out[-1] if out else None
        if (isinstance(s, cst.If) and isinstance(prev, cst.If) and s.orelse is None and prev.orelse is None
                and s not in regions and prev not in regions
                and not s.leading_lines and code(s.test) == code(prev.test)):
            out[-1] = prev.with_changes(body=block([*body_of(prev.body), *body_of(s.body)]))
        else:
            out.append(s)
    return out


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.BooleanOperation | cst.IfExp) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def _reads_all(stmts: list[cst.BaseStatement]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        out |= reads(s)
    return out


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    facts = ctx.analyze(func)
    if not any(facts.batched_test.get(n) for n in facts.batched_test) and not ctx.loop_masks:
        ctx.predicated = True
        return func
    live = Liveness(func)
    pred = _Predicate(ctx, facts, live)
    pred.bool_values = bool_assigned(func)
    body = pred.block(func_body(func), None, frozenset())
    inits = [assign(name, value) for name, value in sorted(pred.placeholders.items())]
    ctx.predicated = True
    return func.with_changes(body=block(inits + body))


def _break_flag(update: cst.BaseStatement, mask: str) -> str | None:
    """`brk` when a masked loop's last statement is `active = active and (not brk and ...)`:
    a lane that sets `brk` is inactive from the next iteration on (break_continue's flag)."""
    if not (isinstance(update, cst.SimpleStatementLine) and isinstance(update.body[0], cst.Assign)):
        return None
    value = update.body[0].value
    if not (isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.And)
            and isinstance(value.left, cst.Name) and value.left.value == mask):
        return None
    test = value.right
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        test = test.left
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        return test.expression.value
    return None


def _sets_true(stmts: list[cst.BaseStatement], flag: str) -> bool:
    """A statement of the block itself (not nested) is `flag = True`."""
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name) \
                        and small.targets[0].target.value == flag and isinstance(small.value, cst.Name) and small.value.value == "True":
                    return True
    return False
