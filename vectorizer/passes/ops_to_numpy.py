"""Lower scalar operations to NumPy array operations, flagging the lanes where Python would raise.

This is where the code becomes array code. Every operation goes through the table in
`rules.py`; a check that may hold becomes a flag update, masked by the lanes that evaluate it::

    m = x > 0                      m = x > 0
    if m:                          flag |= m & (x < 0)
        y = math.sqrt(x)    ->     y = np.sqrt(np.float64(x))
    y = y if m else -x             y = _vz_where(m, y, -x)
    return y                       return y, flag

* a batched `if m:` is a masked block (from `if_to_select`): its body runs on all lanes, flags
  masked by `m`; `raise` in it flags `m`; a batched `assert` flags the lanes where it fails;
* `a if c else b`, `and`, `or`, `min`, `max` become `_vz_where` (np.where without a branch per
  lane; bool algebra for bools; their lazy operand's flags are masked by the lanes that evaluate
  it); uniform ones stay Python expressions;
* `while active:` (a masked loop) becomes `while np.any(active):`, and loop masks drop flagged
  lanes (`& ~flag`) so a failing lane can never keep a loop running;
* values change storage where paths meet: bool -> int64, int -> float64 for mixed (NUM) values,
  whose int lanes are flagged when float64 cannot hold them exactly;
* operations on literals only are folded at transform time with Python's own arithmetic;
* a check the mask's own test rules out is not emitted (`if a == 0.0: ... else: c / a` needs no
  `a == 0` flag; `analysis/guards.py`), outside loops;
* an approximate operation (NumPy's `power`, `exp`, `sin`... a few ulp from the C library) whose
  value may decide an int, a bool, a branch, a trip count or an exception
  (`analysis/decisions.py`) calls CPython's `math` instead (`exactmath.py`)::

    v = n ** (1 / 3)               r = _vz_exact(math.pow, n, 0.3333333333333333)
    return v * v * v == n    ->    ...
                                   return v * v * v == n, flag      (was: np.power(n, ...))

The runtime re-runs the original function on the first flagged lane (flag and patch).
"""

from __future__ import annotations

import ast

import libcst as cst

from ..analysis.batched import BINOPS, UNOPS, Facts
from ..analysis.counters import affine_parts, counters, positive, without_counter_checks
from ..analysis.decisions import decided
from ..analysis.guards import Guards
from ..analysis.liveness import Liveness
from ..core.types import BOOL, FLOAT, INT, NUM, ArrayType, Type
from ..errors import VectorizeError
from ..rules import scalar as rules
from ..runtime.helpers import HEAVY_CALLS
from . import array_ops
from .base import Context, body_of, code, func_body, leading, paren
from .numpy_exprs import Expressions, decided_side, mask_and, simple
from .numpy_fold import Folding, FoldRaised, NoFold, drop_dead_assignments, literal, static_check
from .numpy_loops import NP_SCALAR, Loops

_NOT_FLAG = "__vz_not_flag__"  # placeholder: `& ~flag` once we know the function has flags


class _Lower(Expressions, Folding, Loops):
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.lines: list[str] = []
        self.depth = 1
        self.flag = ctx.namer.fresh("flag")
        self.has_flags = False
        self.checked: set[tuple[str, str]] = set()  # flag lines since the last assignment/block
        self.guards = Guards(ctx.constants)  # what masks guarantee (checks they rule out are not emitted)
        self.guard_depth = self.depth
        self.loops = 0  # loops around the current line (no guards there: compact_loops reorders lanes)
        self.arrays = array_ops.ArrayOps(self)
        self.counters: frozenset[str] = frozenset()
        self.nonzero: frozenset[str] = frozenset()  # counters that are never 0
        self.ranges: dict[str, tuple[int, int]] = {}  # loop variables of range(constants): [lo, hi)
        batched = [n for n, v in ctx.params.items() if v.batched]
        self.lanes = [f"len({batched[0]})"] if batched else ["1"]  # the current number of lanes

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
        if not self.loops and static is not True and self.guards.ruled_out(mask, static):
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
            self.while_loop(s, mask)
        elif isinstance(s, cst.For):
            self.for_loop(s, mask)
        else:
            raise AssertionError(f"unexpected statement {type(s).__name__}")

    def small(self, small: cst.BaseSmallStatement, mask: str | None) -> None:
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if isinstance(target, cst.Subscript):
                self.arrays.store(target, small.value, mask, self.facts.env_before.get(small, {}))
                return
            value = self.lower(small.value, mask)
            if isinstance(target, cst.Name):
                name = target.value
                if name in self.ctx.loop_masks:
                    t = self.facts.val(small.value).type
                    if t is not BOOL and isinstance(t, Type):  # a bool stored as a number where paths met
                        value = self.truthy(value, t)
                    value = f"{paren(value)}{_NOT_FLAG}"
                self.emit(f"{name} = {value}")
            else:
                self.emit(f"{code(target)} = {value}")
        elif isinstance(small, cst.Raise):
            self.check(mask, "True")
        elif isinstance(small, cst.Pass):
            pass
        elif isinstance(small, cst.Assert):
            val = self.facts.val(small.test)
            test = self.lower(small.test, mask)
            if val.batched:
                self.check(mask, f"~({self.truthy(test, val.type)})")
            else:
                self.check_uniform(mask, f"not {paren(test)}")
        elif isinstance(small, cst.Return):
            value = small.value
            if isinstance(value, cst.Tuple):
                parts = [self.lower(e.value, mask) for e in value.elements]
                self.emit(f"return ({', '.join(parts)}), {self.flag}")
            else:
                self.emit(f"return {self.lower(value, mask)}, {self.flag}")
        else:
            raise AssertionError(f"unexpected statement {type(small).__name__}")

    def if_stmt(self, s: cst.If, mask: str | None) -> None:
        test = self.lower(s.test, mask)
        if self.facts.batched_test.get(s):  # a masked block from if_to_select
            assert s.orelse is None
            self.block(body_of(s.body), test)  # a mask name or `~m`: cheap to repeat
            return
        then_end, else_end, after = self.facts.branch_ends.get(s, (None, None, None))
        if test in ("True", "False"):  # decided at transform time: only the branch that runs
            self.block(body_of(s.body) if test == "True" else body_of(s.orelse), mask)
            self.convert_join(then_end if test == "True" else else_end, after, mask)
            return
        self.emit(f"if {test}:")
        self.depth += 1
        self.suite(body_of(s.body), mask)
        self.convert_join(then_end, after, mask)
        self.depth -= 1
        start = len(self.lines)
        self.emit("else:")
        self.depth += 1
        if s.orelse is not None:
            self.suite(body_of(s.orelse), mask)
        self.convert_join(else_end, after, mask)
        self.depth -= 1
        if len(self.lines) == start + 1:
            del self.lines[start:]  # no else branch, and nothing to convert on the fall-through

    # -- expressions -------------------------------------------------------------------------
    def lower(self, node: cst.BaseExpression, mask: str | None) -> str:
        if isinstance(node, cst.Name) and node.value not in self.facts_locals() and node.value not in ("True", "False"):
            return self._lower(node, mask)  # a module constant keeps its name (emitted at module level)
        try:
            return literal(self.fold(node))
        except NoFold:
            return self._lower(node, mask)
        except FoldRaised:
            self.check(mask, "True")  # every lane evaluating it raises: the re-run reports it
            result = self.facts.vals[node].type
            return literal({BOOL: False, INT: 0}.get(result, 0.0))  # type: ignore[call-overload]

    def _lower(self, node: cst.BaseExpression, mask: str | None) -> str:
        val = self.facts.val(node)
        if isinstance(node, cst.Name):
            glob_val = self.ctx.namespace.resolve(node.value) if node.value not in self.facts_locals() else None
            if glob_val is not None and glob_val.kind == "constant":
                self.ctx.constants[node.value] = glob_val.value
            return node.value
        if isinstance(node, cst.Attribute):
            if node.attr.value in rules.MATH_CONSTANTS and isinstance(node.value, cst.Name) \
                    and self.ctx.namespace.resolve(node.value.value).kind in ("math", "numpy"):
                return rules.MATH_CONSTANTS[node.attr.value]
            return self.arrays.attribute(node, mask)
        if self.is_numpy(node):
            return paren(self.numpy_expr(node, mask))  # `-a` may be the operand of `**`
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS[type(node.operator)]
            left, right = self.facts.val(node.left), self.facts.val(node.right)
            impl = self.exactly(rules.BINARY[op](left.type, right.type, left, right), node)
            impl = without_counter_checks(impl, node, self.counters, self.nonzero)  # analysis/counters.py
            affine = affine_parts(node, self.facts)
            if affine is not None:  # c*x + d: one exact range test on x instead of two checks
                x, c, d = affine
                lo, hi = rules.affine_range(c, d)
                text = self.temp(self.lower(x, mask))
                check = self.check if self.facts.val(x).batched else self.check_uniform
                check(mask, f"({text} < {lo}) | ({text} > {hi})")
                return f"({c} * {text} {'+' if d >= 0 else '-'} {abs(d)})"
            return self.apply(impl, [node.left, node.right], mask)
        if isinstance(node, cst.UnaryOperation):
            op = UNOPS[type(node.operator)]
            operand = self.facts.val(node.expression)
            if op == "not" and not operand.batched:
                return f"(not {paren(self.lower(node.expression, mask))})"
            return self.apply(rules.UNARY[op](operand.type, operand), [node.expression], mask)
        if isinstance(node, cst.BooleanOperation):
            return self.boolean(node, mask)
        if isinstance(node, cst.Comparison):
            return self.comparison(node, mask)
        if isinstance(node, cst.IfExp):
            test = self.facts.val(node.test)
            decided = decided_side(test, node.orelse, node.body)
            if decided is not None:  # `a if True else b` is `a`, typed as `a` by the analysis
                return self.lower(decided, mask)
            cond = self.lower(node.test, mask)
            if test.batched:
                # The test becomes the mask of each side: a number's truth value, as a bool array.
                cond = self.temp(cond if test.type is BOOL else self.truthy(cond, test.type), "c")
            # A uniform test picks one side, batched or not: a Python conditional, never `~` on it.
            return self.select(cond, node.body, node.orelse, val.type, mask, batched=test.batched)
        if isinstance(node, cst.Call):
            return self.call(node, mask)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, mask)
        raise VectorizeError(f"cannot lower {type(node).__name__} (vectorizer bug)")

    def is_numpy(self, node: cst.BaseExpression) -> bool:
        """An operation on arrays or NumPy scalars (NumPy semantics, no Python checks)."""
        vals = []
        if isinstance(node, cst.BinaryOperation):
            vals = [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation) and UNOPS[type(node.operator)] != "not":
            vals = [node.expression]
        elif isinstance(node, cst.Comparison):
            vals = [node.left] + [c.comparator for c in node.comparisons]
        elif isinstance(node, cst.Subscript):
            return isinstance(self.facts.val(node.value).type, ArrayType)
        elif isinstance(node, cst.Call):
            return self.array_call(node) is not None
        return any(isinstance(self.facts.val(v).type, ArrayType) or self.facts.val(v).numpy for v in vals)

    def array_call(self, node: cst.Call) -> str | None:
        func = node.func
        if isinstance(func, cst.Attribute):
            base = func.value
            if isinstance(base, cst.Attribute) and base.attr.value == "linalg":
                return f"np.linalg.{func.attr.value}"
            if isinstance(base, cst.Name) and base.value not in self.facts_locals():
                kind = self.ctx.namespace.resolve(base.value).kind
                return f"np.{func.attr.value}" if kind == "numpy" else None
            return f"np.{func.attr.value}"  # a method of an array
        if isinstance(func, cst.Name):
            name = self.ctx.namespace.resolve(func.value).name
            args = [a.value for a in node.args]
            if name in ("len", "abs") and args and isinstance(self.facts.val(args[0]).type, ArrayType):
                return name
        return None

    def numpy_expr(self, node: cst.BaseExpression, mask: str | None) -> str:
        if isinstance(node, cst.BinaryOperation):
            return self.arrays.binary(node, mask)
        if isinstance(node, cst.UnaryOperation):
            return self.arrays.unary(node, mask)
        if isinstance(node, cst.Comparison):
            return self.arrays.compare(node, mask)
        if isinstance(node, cst.Subscript):
            return self.arrays.index(node, mask)
        name = self.array_call(node)  # type: ignore[arg-type]
        if name == "len":
            return self.arrays.length(node.args[0].value, mask)  # type: ignore[attr-defined]
        return self.arrays.call("np.abs" if name == "abs" else name, node, mask)  # type: ignore[arg-type]

    def facts_locals(self) -> set[str]:
        if not hasattr(self, "_locals"):
            names = set(self.ctx.params)
            for env in self.facts.env_before.values():
                names |= env.keys()
            self._locals = names
        return self._locals

    def apply(self, impl: rules.Impl, operands: list[cst.BaseExpression], mask: str | None,
              extra: list[str] | None = None) -> str:
        # Each operand parenthesized: a template may put it next to `**` (`-1 ** 0` is -1).
        args = [paren(self.lower(o, mask)) for o in operands] + (extra or [])
        # An operand the expression uses twice is computed once.
        args = [self.temp(a) if impl.expr.count(f"{{{i}}}") > 1 else a for i, a in enumerate(args)]
        if not impl.checks:
            return paren(self.on_mask(impl.expr.format(*args), impl, operands, mask))
        args = [self.temp(a) for a in args]
        uses_result = any("{r}" in c.pred for c in impl.checks)
        uniform = not any(self.facts.vals[o].batched for o in operands if o in self.facts.vals)
        values = args
        if uniform and mask is not None:
            # Only some lanes get here, and the check flags them: the value must not raise for the
            # others, as Python's `1 / 0` would. NumPy scalars give inf/nan instead (unobserved).
            values = [self.as_numpy_scalar(a, o) for a, o in zip(args, operands)] + args[len(operands):]
        result = self.on_mask(impl.expr.format(*values), impl, operands, mask)
        if uses_result:
            result = self.temp(result, "r")
        for c in impl.checks:
            # A uniform int is a Python int, which never wraps: test the operands (c.lane), not
            # the wrapped result an int64 would give.
            pred = (c.lane or c.pred) if uniform else c.pred
            (self.check_uniform if uniform else self.check)(mask, pred.format(*args, r=result))
        return paren(result)

    def on_mask(self, text: str, impl: rules.Impl, operands: list[cst.BaseExpression], mask: str | None) -> str:
        """A costly call (`np.exp(...)`, `_vz_power(...)`) of lanes under a batched mask, outside
        loops, as `_vz_masked(mask, fn, ...)`: computed on those lanes alone when at most half the
        lanes take the branch (runtime.masked). Lanes outside the mask are never read: a masked
        block's values reach other lanes only through a select on its mask."""
        if mask is None or self.loops or impl.result is not FLOAT or not text.startswith(("np.", "_vz_")):
            return text
        vals = [self.facts.vals.get(o) for o in operands]
        if not any(v is not None and v.batched for v in vals) or any(v is None or not isinstance(v.type, Type) for v in vals):
            return text
        call = ast.parse(text, mode="eval").body
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return text
        func = ast.unparse(call.func)  # np.exp, or a generated helper: _vz_erfc, _vz_power
        if (func.removeprefix("np.") if func.startswith("np.") else func) not in HEAVY_CALLS and func != "_vz_exact":
            return text
        parts = [mask, func, *map(ast.unparse, call.args), *(f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords)]
        return f"_vz_masked({', '.join(parts)})"

    def as_numpy_scalar(self, text: str, node: cst.BaseExpression) -> str:
        t = self.facts.vals[node].type if node in self.facts.vals else None
        return f"np.{NP_SCALAR[t]}({text})" if t in NP_SCALAR else text

    def numpy_scalar(self, text: str, node: cst.BaseExpression, t: Type, batched_use: bool = False) -> str:
        """A literal or module constant picked by a uniform select becomes a NumPy scalar, so the
        arithmetic that follows has NumPy's (checked) semantics, not Python's (which raises); so
        does a Python bool (`not x`) picked where the result is batched, whose `~` would be -1 or -2."""
        val = self.facts.vals.get(node)
        if val is not None and not val.batched and (val.const is not None or self.folded(node) is not None
                                                    or (batched_use and t is BOOL and _python_bool(node))):
            return f"np.{t.dtype}({text})" if t is not BOOL else f"np.bool_({text})"
        return text

    def truthy(self, text: str, t: Type) -> str:
        return rules.truthy(t).format(paren(text))

    def coerce(self, text: str, src: Type, dst: Type, mask: str | None) -> str:
        if src is dst or (src is FLOAT and dst is NUM):
            return text
        if dst is INT:  # from BOOL
            return f"np.int64({text})"
        if dst is NUM and src is BOOL:
            return f"np.float64({text})"  # 0.0 or 1.0: exact
        if dst is NUM and src.is_intlike:
            if text.lstrip("-").isdigit() and abs(int(text)) <= 2**53:
                return repr(float(int(text)))  # an exact int literal: 0 -> 0.0
            t = self.temp(text)
            self.check(mask, rules.beyond_exact(t))
            return f"np.float64({t})"
        if dst is FLOAT:
            return f"np.float64({text})"
        raise AssertionError((src, dst))


def _minimal_parens(lines: list[str]) -> list[str]:
    """Re-print each statement with only the parentheses Python needs (comments pass through).
    The lines are parsed together, one statement each (a parse a line costs several times more)."""
    todo = [i for i, line in enumerate(lines) if not _kept(line.strip())]
    header = {i: lines[i].rstrip().endswith(":") for i in todo}  # `if m:`, `while ...:`: a body to parse
    texts = [lines[i].strip() + (" pass" if header[i] else "") for i in todo]
    body = ast.parse("\n".join(texts)).body
    if len(body) != len(texts):  # a line of several statements: they go one a line
        body = [ast.Module(ast.parse(text).body, []) for text in texts]
    out = list(lines)
    for i, node in zip(todo, body):
        text = ast.unparse(node if isinstance(node, ast.Module) else ast.Module([node], []))
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        out[i] = indent + (text.splitlines()[0] if header[i] else text)
    return out


def _kept(text: str) -> bool:
    return text.startswith("#") or text == "else:"


def transform(func: cst.FunctionDef, ctx: Context) -> str:
    """The lowered function as text: from here on the pipeline edits lines (one statement a
    line, as `_minimal_parens` prints them), which costs less than a libcst tree of it."""
    facts = ctx.analyze(func)
    lower = _Lower(ctx, facts)
    lower.counters = counters(func)
    lower.nonzero = positive(func, lower.counters)
    masked = frozenset(n for n, b in facts.batched_test.items() if b and isinstance(n, cst.If))
    lower.live = Liveness(func, masked)
    lower.decided = decided(func, facts, lambda n: None if n in facts.calls else lower.call_name(n))
    batched = [n for n, v in ctx.params.items() if v.batched]
    init_line = len(lower.lines)
    lower.block(func_body(func), None)
    lines = lower.lines
    if lower.has_flags or (ctx.options.compact and ctx.loop_vars):  # compact_loops flags a loop's long tail
        ctx.flag = lower.flag
        shape = f"len({batched[0]})" if batched else "()"  # one flag per lane
        lines.insert(init_line, f"    {lower.flag} = np.zeros({shape}, dtype=bool)")
        lines = [ln.replace(_NOT_FLAG, f" & ~{lower.flag}") for ln in lines]
    else:
        lines = [ln.replace(_NOT_FLAG, "").replace(f", {lower.flag}", ", None") for ln in lines]
    lines = drop_dead_assignments(_minimal_parens(lines))
    params = ", ".join(ctx.params)
    return f"def {func.name.value}({params}):\n" + "\n".join(lines) + "\n"


def _python_bool(node: cst.BaseExpression) -> bool:
    """Whether `node` is a Python bool on a uniform value: `not x`, or an and/or that may pick one
    (found by fuzzing: `c = not n or <batched>` picked `True`, and `not c` ran as `~c`, -2)."""
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    if isinstance(node, cst.BooleanOperation):
        return _python_bool(node.left) or _python_bool(node.right)
    return False
