"""Lower a scalar function to a per-lane kernel for Numba: the user's own control flow, with every
check of `rules.py` turned into an early `return <zeros>, True` (the lane is flagged and re-run by
the scalar function, exactly as for the array code).

Before::

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

After::

    def _lane_collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                t = n // 2
            else:
                if abs(float(3) * float(n)) >= 9.2e+18:
                    return (0, True)
                ...
            n = t
            ...
        return (steps, False)

Laziness is kept: an operand of `and`/`or`/`x if c else y` whose checks need statements becomes an
`if` block. Checks are the array checks translated to scalar code (`np.where` -> `x if c else y`,
`~` -> `not`, `np.sin` -> `math.sin`, ...), so both backends flag the same lanes. Calls to other
functions of the module go to their own lane functions (one per argument-type signature).
"""

from __future__ import annotations

import libcst as cst

from ..analysis.batched import Facts
from ..analysis.counters import counters, positive
from ..core.types import BOOL, FLOAT, INT, NUM, TupleType, Type, Val, join
from .base import Context, body_of, code, func_body, paren
from .lane_exprs import LaneExpressions, is_number, scalar, static_false

ZERO = {BOOL: "False", INT: "0", FLOAT: "0.0", NUM: "0.0"}


class _Lanes(LaneExpressions):
    def __init__(self, ctx: Context, facts: Facts, lanes: LaneModule) -> None:
        self.ctx = ctx
        self.facts = facts
        self.module = lanes
        self.lines: list[str] = []
        self.depth = 1
        result = [v.type for v in facts.result]
        zeros = [ZERO[t] for t in result]  # type: ignore[index]
        self.fail = f"return (({', '.join(zeros)},), True)" if facts.returns_tuple else f"return ({zeros[0]}, True)"
        self.storage = _storage_types(facts, ctx.params)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.overflow_checks: set[str] = set()  # `if <int64 overflow test>:` lines, see if_stmt

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
            value = self.expr(small.value)
            if isinstance(target, cst.Name):
                src = self.facts.val(small.value).type
                dst = self.storage.get(target.value, src)
                value = self.coerce(value, src, dst)  # type: ignore[arg-type]
                self.emit(f"{target.value} = {value}")
            else:
                self.emit(f"{code(target)} = {value}")
        elif isinstance(small, cst.Return):
            self.ret(small.value)
        elif isinstance(small, cst.Raise):
            self.emit(self.fail)
        elif isinstance(small, cst.Assert):
            test = self.expr(small.test)
            self.emit(f"if not {paren(self.truthy(test, self.facts.type(small.test)))}:")
            self.emit(f"    {self.fail}")
        elif isinstance(small, cst.Break | cst.Continue | cst.Pass):
            self.emit(code(small).strip())
        else:
            raise AssertionError(type(small).__name__)

    def ret(self, value: cst.BaseExpression) -> None:
        items = value.elements if isinstance(value, cst.Tuple) else None
        if items is not None:
            parts = [self.coerce(self.expr(e.value), self.facts.type(e.value), t.type) for e, t in zip(items, self.facts.result)]  # type: ignore[arg-type]
            self.emit(f"return (({', '.join(parts)},), False)")
            return
        text = self.expr(value)
        val = self.facts.val(value)
        if isinstance(val.type, TupleType):
            self.emit(f"return ({text}, False)")
            return
        self.emit(f"return ({self.coerce(text, val.type, self.facts.result[0].type)}, False)")  # type: ignore[arg-type]

    def if_stmt(self, s: cst.If) -> None:
        test = self.expr(s.test)
        then, _ = self.captured(lambda: self.nested(body_of(s.body)))
        other, _ = self.captured(lambda: self.nested(body_of(s.orelse))) if s.orelse is not None else ([], "")
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
        pre, test = self.captured(lambda: self.expr(s.test))
        if not pre:
            self.emit(f"while {test}:")
            self.nested(body_of(s.body))
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
        it = s.iter
        if isinstance(it, cst.Call):
            args = [self.temp(self.expr(a.value)) for a in it.args]
            if len(args) == 3 and (not is_number(args[2]) or float(args[2]) == 0):
                # range() arg 3 must not be zero: a literal 0 (written, or folded) fails every lane
                self.check(f"{args[2]} == 0")
            head = f"range({', '.join(args)})"
        else:
            head = self.expr(it)
        self.emit(f"for {code(s.target)} in {head}:")
        self.nested(body_of(s.body))


def _storage_types(facts: Facts, params: dict[str, Val]) -> dict[str, Type]:
    """The type each local name is stored as where its paths meet (Numba unifies the same way)."""
    local = set(params)
    for env in facts.env_before.values():
        local |= env.keys()
    out: dict[str, Type] = {}
    for node, val in facts.vals.items():
        if isinstance(node, cst.Name) and node.value in local and isinstance(val.type, Type):
            out[node.value] = join(out[node.value], val.type) if node.value in out else val.type
    return out


class LaneModule:
    """The lane functions of one specialization (the function and its callees) and constants."""

    def __init__(self) -> None:
        self.functions: dict[tuple, tuple[str, str]] = {}  # (callee, param types) -> (name, source)
        self.constants: dict[str, object] = {}
        self.infallible = False  # the main lane never fails: no flag array
        self.never_fail: set[str] = set()  # lane functions of callees that return their value alone

    def lane_function(self, ctx: Context, glob, node: cst.Call, facts: Facts) -> str:
        parsed = ctx.callees.parse(glob)  # type: ignore[union-attr]
        from ..analysis.calls import default_val

        args = [facts.val(a.value) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: facts.val(a.value) for a in node.args if a.keyword is not None}
        params = ctx.callees.bind(parsed, args, keywords, default_val)  # type: ignore[union-attr]
        key = (glob.name, tuple((v.type, v.batched) for v in params.values()))  # type: ignore[union-attr]
        if key not in self.functions:
            name = ctx.namer.fresh(f"_lane_{glob.name}")
            self.functions[key] = (name, "")
            from . import annotate_origins, canonicalize

            child = ctx.child(glob.name, {n: Val(v.type, False) for n, v in params.items()})  # type: ignore[union-attr]
            func = canonicalize.transform(annotate_origins.transform(parsed.func, parsed), child)
            self.functions[key] = (name, lower_lane(func, child, self, name))
        return self.functions[key][0]


def lower_lane(func: cst.FunctionDef, ctx: Context, module: LaneModule, name: str, main: bool = False) -> str:
    """One lane function. Lanes return (value, failed); one that can never fail returns the
    value alone: the main lane's driver loop is then simple enough for LLVM to vectorize, and a
    callee's caller has no exit to test after the call (a loop calling it stays one block)."""
    facts = ctx.analyze(func)
    lanes = _Lanes(ctx, facts, module)
    lanes.counters = counters(func)
    lanes.nonzero = positive(func, lanes.counters)
    lanes.block(func_body(func))
    lines = lanes.lines
    if not any(lanes.fail in line for line in lines):
        lines = [ln[: ln.index("return ")] + "return " + ln.strip()[len("return ("): -len(", False)")]
                 if ln.strip().startswith("return (") and ln.endswith(", False)") else ln for ln in lines]
        if main:
            module.infallible = True
        else:
            module.never_fail.add(name)
    params = ", ".join(ctx.params)
    return f"def {name}({params}):\n" + "\n".join(lines) + "\n"
