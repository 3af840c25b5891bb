"""Lower scalar operations to NumPy array operations, flagging the lanes where Python would raise.

This is where the code becomes array code. Every operation goes through the table in
`rules.py`; a check that may hold becomes a flag update, masked by the lanes that evaluate it::

    m = x > 0                      m = x > 0
    if m:                          flag |= m & (x < 0)
        y = math.sqrt(x)    ->     y = np.sqrt(np.float64(x))
    y = y if m else -x             y = np.where(m, y, -x)
    return y                       return y, flag

* a batched `if m:` is a masked block (from `if_to_select`): its body runs on all lanes, flags
  masked by `m`; `raise` in it flags `m`; a batched `assert` flags the lanes where it fails;
* `a if c else b`, `and`, `or`, `min`, `max` become `np.where` (their lazy operand's flags are
  masked by the lanes that evaluate it); uniform ones stay Python expressions;
* `while active:` (a masked loop) becomes `while np.any(active):`, and loop masks drop flagged
  lanes (`& ~flag`) so a failing lane can never keep a loop running;
* values change storage where paths meet: bool -> int64, int -> float64 for mixed (NUM) values,
  whose int lanes are flagged when float64 cannot hold them exactly;
* operations on literals only are folded at transform time with Python's own arithmetic.

The runtime re-runs the original function on the first flagged lane (flag and patch).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import operator
from collections.abc import Callable

import libcst as cst
import numpy as np

from .. import rules
from ..analysis.batched import BINOPS, COMPARES, UNOPS, Facts
from ..analysis.counters import affine_parts, counters, is_counter_step
from ..analysis.liveness import Liveness, writes
from ..analysis.types import BOOL, FLOAT, INT, NUM, ArrayType, TupleType, Type, Val
from ..errors import VectorizeError
from . import array_ops
from .base import Context, body_of, code, func_body, leading, paren

_NP_SCALAR = {BOOL: "bool_", INT: "int64", FLOAT: "float64", NUM: "float64"}
_NOT_FLAG = "__vz_not_flag__"  # placeholder: `& ~flag` once we know the function has flags
_PY_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "&": operator.and_,
    "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
}


class _NoFold(Exception):
    """The expression depends on a variable."""


class _FoldRaised(Exception):
    """Python raises (or leaves int64) when computing the expression from its constants."""


def literal(value: object) -> str:
    """Python source for a constant, valid in generated code."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "np.nan"
        if math.isinf(value):
            return "np.inf" if value > 0 else "-np.inf"
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    raise TypeError(value)


def _and(mask: str | None, cond: str) -> str:
    if mask is None or mask == cond:
        return cond
    return f"{paren(mask)} & {paren(cond)}"


class _Lower:
    def __init__(self, ctx: Context, facts: Facts) -> None:
        self.ctx = ctx
        self.facts = facts
        self.lines: list[str] = []
        self.depth = 1
        self.flag = ctx.namer.fresh("flag")
        self.has_flags = False
        self.checked: set[tuple[str, str]] = set()  # flag lines since the last assignment/block
        self.arrays = array_ops.ArrayOps(self)
        self.counters: frozenset[str] = frozenset()
        self.ranges: dict[str, tuple[int, int]] = {}  # loop variables of range(constants): [lo, hi)
        batched = [n for n, v in ctx.params.items() if v.batched]
        self.lanes = [f"len({batched[0]})"] if batched else ["1"]  # the current number of lanes

    # -- output ------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        if not line.startswith((f"{self.flag} |=", "#")):
            self.checked.clear()  # an assignment or a block boundary: earlier checks may be stale
        self.lines.append("    " * self.depth + line)

    def folded(self, node: cst.BaseExpression) -> object:
        try:
            return self.fold(node)
        except (_NoFold, _FoldRaised):
            return None

    def check_uniform(self, mask: str | None, pred: str) -> None:
        """A check the same for every lane: a Python `if`, not an operation over all lanes."""
        static = _static(pred)
        if static is False:
            return
        if static is True:
            return self.check(mask, "True")
        self.emit(f"if {static}:")
        self.depth += 1
        self.check(mask, "True")
        self.depth -= 1

    def check(self, mask: str | None, pred: str) -> None:
        static = _static(pred)
        if static is False:
            return  # decided at transform time: no lane can fail here
        if static is True:
            line = f"{self.flag} |= {mask if mask is not None else 'True'}"
        else:
            line = f"{self.flag} |= {_and(mask, static)}"
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
        if _simple(text):
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
        if test in ("True", "False"):  # decided at transform time: only the branch that runs
            self.block(body_of(s.body) if test == "True" else body_of(s.orelse), mask)
            return
        self.emit(f"if {test}:")
        self.depth += 1
        self.suite(body_of(s.body), mask)
        self.depth -= 1
        if s.orelse is not None:
            self.emit("else:")
            self.depth += 1
            self.suite(body_of(s.orelse), mask)
            self.depth -= 1

    def convert_entry(self, loop: cst.CSTNode, mask: str | None) -> None:
        """Give loop-carried names the storage they have at the loop test (bool->int, int->float)."""
        entry, header = self.facts.loop_entry.get(loop, {}), self.facts.loop_header.get(loop, {})
        scalars: list[str] = []
        for name in sorted(header):
            if name not in entry:
                continue
            before, after = entry[name].val, header[name].val
            if isinstance(before.type, ArrayType) and after.batched and not before.batched:
                self.emit(f"{name} = np.repeat({name}[None], {self.lanes[-1] if not isinstance(loop, cst.While) else self.loop_lanes(loop)}, axis=0)")
            elif before.type != after.type and isinstance(before.type, Type) and isinstance(after.type, Type):
                self.emit(f"{name} = {self.coerce(name, before.type, after.type, mask)}")
            elif after.batched and not before.batched and isinstance(after.type, Type) and name not in self.ctx.loop_masks:
                scalars.append(name)
        if scalars:
            # Batched in the loop but still Python scalars: NumPy ones behave like the arrays they
            # become (`~` on a Python bool is -1, not the logical not).
            converted = ", ".join(f"np.{_NP_SCALAR[header[n].val.type]}({n})" for n in scalars)  # type: ignore[index]
            self.emit(f"{', '.join(scalars)} = {converted}")

    def loop_lanes(self, loop: cst.While) -> str:
        test = loop.test
        if isinstance(test, cst.Name) and test.value in self.ctx.loop_masks:
            return f"len({test.value})"
        return self.lanes[-1]

    def while_loop(self, s: cst.While, mask: str | None) -> None:
        self.convert_entry(s, mask)
        test = s.test
        if isinstance(test, cst.Name) and test.value in self.ctx.loop_masks:
            self.emit(f"while np.any({test.value}):")
            inner: str | None = test.value
            self.lanes.append(f"len({test.value})")
            # What compact_loops must carry: the loop's batched values that are live at its test.
            header = self.facts.loop_header.get(s, {})
            carried = (self.live.live_in.get(s, frozenset()) | (writes(s) & self.live.live_out.get(s, frozenset())))
            self.ctx.loop_vars[test.value] = sorted(n for n in carried if n in header and header[n].val.batched
                                                    and n != test.value)
        else:
            inner = mask
            start, self.depth = len(self.lines), self.depth + 1
            cond = self.lower(test, mask)
            self.depth -= 1
            setup = self.lines[start:]
            del self.lines[start:]
            if not setup:
                self.emit(f"while {cond}:")
            else:  # the test needs statements: they must run before every test, not once
                self.emit("while True:")
                self.lines.extend(setup)
                self.emit(f"    if not {paren(cond)}:")
                self.emit("        break")
        self.depth += 1
        self.suite(body_of(s.body), inner)
        self.depth -= 1
        if inner is not mask:
            self.lanes.pop()

    def for_loop(self, s: cst.For, mask: str | None) -> None:
        self.convert_entry(s, mask)
        it = s.iter
        # Iterate NumPy scalars: uniform arithmetic must follow the same checked rules as lanes
        # (Python ints would raise ZeroDivisionError or grow past int64 on their own).
        if isinstance(it, cst.Call):
            args = ", ".join(self.lower(a.value, mask) for a in it.args)
            head = f"np.arange({args})"
        else:
            head = f"np.asarray({self.lower(it, mask)})"
        self.emit(f"for {code(s.target)} in {head}:")
        values = [a.value for a in it.args] if isinstance(it, cst.Call) else []
        consts = [c for c in map(self.folded, values) if isinstance(c, int)]
        if isinstance(s.target, cst.Name) and values and len(consts) == len(values) and len(values) <= 2:
            self.ranges[s.target.value] = (0, consts[0]) if len(consts) == 1 else (consts[0], consts[1])
        self.depth += 1
        self.suite(body_of(s.body), mask)
        self.depth -= 1
        if isinstance(s.target, cst.Name):
            self.ranges.pop(s.target.value, None)

    # -- expressions -------------------------------------------------------------------------
    def lower(self, node: cst.BaseExpression, mask: str | None) -> str:
        if isinstance(node, cst.Name) and node.value not in self.facts_locals() and node.value not in ("True", "False"):
            return self._lower(node, mask)  # a module constant keeps its name (emitted at module level)
        try:
            return literal(self.fold(node))
        except _NoFold:
            return self._lower(node, mask)
        except _FoldRaised:
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
            return self.numpy_expr(node, mask)
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS[type(node.operator)]
            left, right = self.facts.val(node.left), self.facts.val(node.right)
            impl = rules.BINARY[op](left.type, right.type, left, right)
            if is_counter_step(node, self.counters):
                impl = dataclasses.replace(impl, checks=())  # a loop counter (analysis/counters.py)
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
        args = [self.lower(o, mask) for o in operands] + (extra or [])
        # An operand the expression uses twice is computed once.
        args = [self.temp(a) if impl.expr.count(f"{{{i}}}") > 1 else a for i, a in enumerate(args)]
        if not impl.checks:
            return paren(impl.expr.format(*args))
        args = [self.temp(a) for a in args]
        uses_result = any("{r}" in c.pred for c in impl.checks)
        uniform = not any(self.facts.vals[o].batched for o in operands if o in self.facts.vals)
        values = args
        if uniform and mask is not None:
            # Only some lanes get here, and the check flags them: the value must not raise for the
            # others, as Python's `1 / 0` would. NumPy scalars give inf/nan instead (unobserved).
            values = [self.as_numpy_scalar(a, o) for a, o in zip(args, operands)] + args[len(operands):]
        result = impl.expr.format(*values)
        if uses_result:
            result = self.temp(result, "r")
        for c in impl.checks:
            (self.check_uniform if uniform else self.check)(mask, c.pred.format(*args, r=result))
        return paren(result)

    def as_numpy_scalar(self, text: str, node: cst.BaseExpression) -> str:
        t = self.facts.vals[node].type if node in self.facts.vals else None
        return f"np.{_NP_SCALAR[t]}({text})" if t in _NP_SCALAR else text

    def numpy_scalar(self, text: str, node: cst.BaseExpression, t: Type) -> str:
        """A literal or module constant picked by a uniform select becomes a NumPy scalar, so the
        arithmetic that follows has NumPy's (checked) semantics, not Python's (which raises)."""
        val = self.facts.vals.get(node)
        if val is not None and val.const is not None and not val.batched:
            return f"np.{t.dtype}({text})" if t is not BOOL else f"np.bool_({text})"
        return text

    def truthy(self, text: str, t: Type) -> str:
        return rules.truthy(t).format(paren(text))

    def coerce(self, text: str, src: Type, dst: Type, mask: str | None) -> str:
        if src is dst or (src is FLOAT and dst is NUM):
            return text
        if dst is INT:  # from BOOL
            return f"np.int64({text})"
        if dst is NUM and src.is_intlike:
            if text.lstrip("-").isdigit() and abs(int(text)) <= 2**53:
                return repr(float(int(text)))  # an exact int literal: 0 -> 0.0
            t = self.temp(text)
            self.check(mask, rules.beyond_exact(t))
            return f"np.float64({t})"
        if dst is FLOAT:
            return f"np.float64({text})"
        raise AssertionError((src, dst))

    def select(self, cond: str, body: cst.BaseExpression, orelse: cst.BaseExpression, t: Type,
               mask: str | None, batched: bool) -> str:
        """`body if cond else orelse` with each side's flags masked by the lanes that pick it."""
        if isinstance(t, ArrayType):
            from ..array_rules import Arg

            yes = Arg(self.lower(body, _and(mask, cond)), self.facts.val(body))
            no_mask = _and(mask, f"~{paren(cond)}" if batched else f"not {paren(cond)}")
            no = Arg(self.lower(orelse, no_mask), self.facts.val(orelse))
            if not batched:
                return f"({yes.text} if {cond} else {no.text})"
            return self.arrays.select(cond, Val(BOOL, True), yes, no)
        if not batched:  # one side for every lane: Python's own laziness
            return self.uniform_branches(cond, body, orelse, t, mask)
        yes = self.coerce(self.lower(body, _and(mask, cond)), self.facts.type(body), t, _and(mask, cond))
        no_mask = _and(mask, f"~{paren(cond)}")
        no = self.coerce(self.lower(orelse, no_mask), self.facts.type(orelse), t, no_mask)
        return _where(cond, yes, no, t)

    def uniform_branches(self, cond: str, yes: cst.BaseExpression, no: cst.BaseExpression, t: Type,
                         mask: str | None) -> str:
        """`yes if cond else no` on a uniform `cond`: each side is lowered inside its own Python
        branch, so only the side Python evaluates runs (and can fail); when neither side needs a
        statement, a conditional expression says the same."""
        start = len(self.lines)
        values, ends = [], []
        for header, side in ((f"if {cond}:", yes), ("else:", no)):
            self.emit(header)
            self.depth += 1
            values.append(self.numpy_scalar(self.coerce(self.lower(side, mask), self.facts.type(side), t, mask), side, t))
            self.depth -= 1
            ends.append(len(self.lines))
        if ends[1] == start + 2:
            del self.lines[start:]
            return f"({values[0]} if {cond} else {values[1]})"
        result, inner = self.ctx.namer.fresh("v"), "    " * (self.depth + 1)
        self.lines.append(f"{inner}{result} = {values[1]}")
        self.lines.insert(ends[0], f"{inner}{result} = {values[0]}")  # before the `else:`
        return result

    def lazily(self, header: str, produce: Callable[[], str]) -> tuple[str, bool]:
        """Emit `header` and lower the code `produce` makes in its block; (its value, whether any
        statement was needed). With none, the header is taken back: an expression will do."""
        start = len(self.lines)
        self.emit(header)
        self.depth += 1
        value = produce()
        self.depth -= 1
        if len(self.lines) == start + 1:
            del self.lines[start:]
            return value, False
        return value, True

    def boolean(self, node: cst.BooleanOperation, mask: str | None) -> str:
        val = self.facts.val(node)
        left_t, right_t = self.facts.type(node.left), self.facts.type(node.right)
        is_and = isinstance(node.operator, cst.And)
        left = self.lower(node.left, mask)
        t = val.type
        if not self.facts.val(node.left).batched:  # a uniform left side decides for every lane
            truth = self.truthy(left, left_t)  # a uniform scalar expression: cheap to evaluate twice
            left_c = self.numpy_scalar(self.coerce(left, left_t, t, mask), node.left, t)
            start = len(self.lines)
            right, needed = self.lazily(f"if {truth if is_and else f'not {paren(truth)}'}:", lambda: self.numpy_scalar(
                self.coerce(self.lower(node.right, mask), self.facts.type(node.right), t, mask), node.right, t))
            if not needed:
                return f"({left_c} {'and' if is_and else 'or'} {right})"
            result = self.ctx.namer.fresh("v")
            self.lines.insert(start, "    " * self.depth + f"{result} = {left_c}")
            self.lines.append("    " * (self.depth + 1) + f"{result} = {right}")
            return result
        left = self.temp(left, "c") if not _simple(left) else left
        truth = self.truthy(left, left_t)
        takes_right = truth if is_and else f"~{paren(truth)}"
        right = self.lower(node.right, _and(mask, takes_right))
        if left_t is BOOL and right_t is BOOL:
            return f"({left} {'&' if is_and else '|'} {paren(right)})"
        left_c = self.coerce(left, left_t, t, _and(mask, f"~{paren(takes_right)}"))
        right_c = self.coerce(right, right_t, t, _and(mask, takes_right))
        return f"np.where({truth}, {right_c}, {left_c})" if is_and else f"np.where({truth}, {left_c}, {right_c})"

    def comparison(self, node: cst.Comparison, mask: str | None) -> str:
        """`a < b < c` is `(a < b) & (b < c)`, b evaluated once, c's flags only where a < b."""
        batched = self.facts.val(node).batched
        operands = [node.left] + [c.comparator for c in node.comparisons]
        ops = [COMPARES[type(c.operator)] for c in node.comparisons]
        chained = len(ops) > 1
        if chained and not batched:
            return self.uniform_chain(operands, ops, mask)
        prev = self.lower(operands[0], mask)
        parts: list[str] = []
        cond_mask = mask
        for i, op in enumerate(ops):
            nxt = self.lower(operands[i + 1], cond_mask)
            if chained and i + 1 < len(ops):
                nxt = self.temp(nxt)
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev, nxt = self.temp(prev), self.temp(nxt)
                for c in impl.checks:
                    self.check(cond_mask, c.pred.format(prev, nxt))
            part = f"({impl.expr.format(prev, nxt)})"
            parts.append(part)
            cond_mask = _and(cond_mask, part)
            prev = nxt
        if not chained:
            return parts[0]
        return "(" + (" & " if batched else " and ").join(parts) + ")"

    def uniform_chain(self, operands: list[cst.BaseExpression], ops: list[str], mask: str | None) -> str:
        """`a < b < c` on uniform values: nested Python ifs, so `c` is only evaluated (and can
        only raise) when `a < b`, as in Python."""
        result = self.ctx.namer.fresh("c")
        prev = self.lower(operands[0], mask)
        for i, op in enumerate(ops):
            if i:
                self.emit(f"if {result}:")
                self.depth += 1
            nxt = self.temp(self.lower(operands[i + 1], mask))
            impl = rules.compare(op, self.facts.type(operands[i]), self.facts.type(operands[i + 1]))
            if impl.checks:
                prev = self.temp(prev)
                for c in impl.checks:
                    self.check_uniform(mask, c.pred.format(prev, nxt))
            self.emit(f"{result} = {impl.expr.format(prev, nxt)}")
            prev = nxt
        self.depth -= len(ops) - 1
        return result

    def call(self, node: cst.Call, mask: str | None) -> str:
        func = node.func
        name = f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else self.ctx.namespace.resolve(func.value).name  # type: ignore[union-attr]
        args = [a for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        val = self.facts.val(node)
        if name in ("min", "max"):
            return self.min_max(name, [a.value for a in args], val.type, mask, val.batched)
        if name == "pow":
            left, right = self.facts.val(args[0].value), self.facts.val(args[1].value)
            return self.apply(rules.BINARY["**"](left.type, right.type, left, right), [a.value for a in args], mask)
        if name == "divmod":
            left, right = self.facts.val(args[0].value), self.facts.val(args[1].value)
            return self.apply(rules.DIVMOD(left.type, right.type, left, right), [a.value for a in args], mask)
        vals = [self.facts.val(a.value) for a in args]
        if name in rules.KEYWORD_CALLS:
            impl = rules.KEYWORD_CALLS[name](vals, {k: self.facts.val(a.value) for k, a in keywords.items()})
            return self.apply(impl, [a.value for a in args], mask)
        operands = [a.value for a in args] + [a.value for a in keywords.values()]
        impl = rules.CALLS[name]([self.facts.val(o) for o in operands])
        return self.apply(impl, operands, mask)

    def min_max(self, name: str, operands: list[cst.BaseExpression], t: Type, mask: str | None, batched: bool) -> str:
        """Python's min/max keep the first of equal items: min(a, b) is `b if b < a else a`."""
        op = "<" if name == "min" else ">"
        acc_t = self.facts.type(operands[0])
        acc = self.lower(operands[0], mask)
        acc = self.temp(acc if batched else self.numpy_scalar(acc, operands[0], acc_t))
        for operand in operands[1:]:
            nxt_t = self.facts.type(operand)
            nxt = self.lower(operand, mask)
            nxt = self.temp(nxt if batched else self.numpy_scalar(nxt, operand, nxt_t))
            impl = rules.compare(op, nxt_t, acc_t)
            for c in impl.checks:
                self.check(mask, c.pred.format(nxt, acc))
            cond = self.temp(impl.expr.format(nxt, acc), "c") if batched else impl.expr.format(nxt, acc)
            new_t = t
            yes = self.coerce(nxt, nxt_t, new_t, _and(mask, cond))
            no = self.coerce(acc, acc_t, new_t, _and(mask, f"~{paren(cond)}" if batched else f"not ({cond})"))
            acc = self.temp(f"np.where({cond}, {yes}, {no})" if batched else f"({yes} if {cond} else {no})")
            acc_t = new_t
        return acc

    def subscript(self, node: cst.Subscript, mask: str | None) -> str:
        seq = self.lower(node.value, mask)
        size = len(self.facts.val(node.value).type.items)  # type: ignore[union-attr]
        index = self.temp(self.lower(node.slice[0].slice.value, mask))  # type: ignore[attr-defined]
        self.check(mask, f"({index} < {-size}) | ({index} >= {size})")
        return f"np.take({seq}, np.clip({index}, {-size}, {size - 1}))"

    # -- constant folding -------------------------------------------------------------------
    def fold(self, node: cst.BaseExpression) -> object:
        """The value of an expression over literals and module constants, computed by Python.

        Raises `_NoFold` when it depends on a variable, `_FoldRaised` when Python raises (or
        returns a value int64 cannot hold): then every lane that evaluates it is flagged.
        """
        val = self.facts.vals.get(node)
        if val is None or val.batched:
            raise _NoFold
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return node.value == "True"
            if node.value in self.facts_locals() or val.const is None or isinstance(val.type, TupleType):
                raise _NoFold
            return val.const
        if val.const is not None and not isinstance(val.type, TupleType):
            return val.const  # literals, math constants, constant-index subscripts
        if isinstance(node, cst.BinaryOperation):
            a, b = self.fold(node.left), self.fold(node.right)
            op = BINOPS[type(node.operator)]
            if op == "**" and isinstance(b, int) and isinstance(a, int) and abs(b) > 256:
                raise _FoldRaised
            return self._python(lambda: _PY_BINOPS[op](a, b))
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            a, b = self.fold(node.left), self.fold(node.comparisons[0].comparator)
            compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
                       "!=": operator.ne}[COMPARES[type(node.comparisons[0].operator)]]
            return self._python(lambda: compare(a, b))
        if isinstance(node, cst.UnaryOperation):
            a = self.fold(node.expression)
            op = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}[UNOPS[type(node.operator)]]
            return self._python(lambda: op(a))
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute):
                base = func.value
                if not (isinstance(base, cst.Name) and self.ctx.namespace.resolve(base.value).kind == "math"):
                    raise _NoFold  # NumPy calls and array methods
                target = getattr(math, func.attr.value)
            else:
                name = self.ctx.namespace.resolve(func.value).name  # type: ignore[union-attr]
                target = {"abs": abs, "min": min, "max": max, "round": round, "int": int,
                          "float": float, "bool": bool, "pow": pow}.get(name)
                if target is None:
                    raise _NoFold
            args = [self.fold(a.value) for a in node.args if a.keyword is None]
            kwargs = {a.keyword.value: self.fold(a.value) for a in node.args if a.keyword is not None}
            return self._python(lambda: target(*args, **kwargs))
        raise _NoFold

    def _python(self, compute) -> object:
        try:
            value = compute()
        except (ArithmeticError, ValueError, TypeError):
            raise _FoldRaised from None
        if isinstance(value, complex) or (
            isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63
        ):
            raise _FoldRaised
        return value


def _where(cond: str, yes: str, no: str, t: Type) -> str:
    """np.where, or the cheaper bool algebra when a side is a constant (flags like done/brk)."""
    if t is BOOL:
        if yes == "True":
            return f"{paren(no)} | {paren(cond)}"
        if yes == "False":
            return f"{paren(no)} & ~{paren(cond)}"
        if no == "False":
            return f"{paren(cond)} & {paren(yes)}"
        if no == "True":
            return f"~{paren(cond)} | {paren(yes)}"
    return f"np.where({cond}, {yes}, {no})"


def _minimal_parens(line: str) -> str:
    """Re-print a statement with only the parentheses Python needs (comments pass through)."""
    indent = line[: len(line) - len(line.lstrip())]
    text = line.strip()
    if text.startswith("#") or text == "else:":
        return line
    if text.endswith(":"):
        return indent + ast.unparse(ast.parse(text + " pass")).splitlines()[0]
    return indent + ast.unparse(ast.parse(text))


def _static(pred: str) -> bool | None | str:
    """Decide a check now where its literal parts allow: True/False, or the simplified predicate
    text with the always-true conjuncts (and always-false disjuncts) removed."""
    tree = ast.parse(pred, mode="eval").body
    result = _decide(tree)
    if isinstance(result, bool):
        return result
    return ast.unparse(result)


def _decide(node: ast.expr) -> bool | ast.expr:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        left, right = _decide(node.left), _decide(node.right)
        neutral = isinstance(node.op, ast.BitAnd)  # True is neutral for &, False for |
        for side, other in ((left, right), (right, left)):
            if isinstance(side, bool):
                return other if side is neutral else side
        return ast.BinOp(left, node.op, right)
    try:
        return bool(eval(compile(ast.Expression(node), "<check>", "eval"), {"__builtins__": {}, "np": np}))  # noqa: S307
    except NameError:
        return node


def _simple(text: str) -> bool:
    t = text.strip()
    if t.isidentifier():
        return True
    try:
        float(t)
        return True
    except ValueError:
        return t in ("np.pi", "np.e", "np.inf", "np.nan", "-np.inf")


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    facts = ctx.analyze(func)
    lower = _Lower(ctx, facts)
    lower.counters = counters(func)
    masked = frozenset(n for n, b in facts.batched_test.items() if b and isinstance(n, cst.If))
    lower.live = Liveness(func, masked)
    batched = [n for n, v in ctx.params.items() if v.batched]
    init_line = len(lower.lines)
    lower.block(func_body(func), None)
    lines = lower.lines
    if lower.has_flags:
        ctx.flag = lower.flag
        shape = f"len({batched[0]})" if batched else "()"  # one flag per lane
        lines.insert(init_line, f"    {lower.flag} = np.zeros({shape}, dtype=bool)")
        lines = [ln.replace(_NOT_FLAG, f" & ~{lower.flag}") for ln in lines]
    else:
        lines = [ln.replace(_NOT_FLAG, "").replace(f", {lower.flag}", ", None") for ln in lines]
    lines = [_minimal_parens(ln) for ln in lines]
    params = ", ".join(ctx.params)
    text = f"def {func.name.value}({params}):\n" + "\n".join(lines) + "\n"
    return cst.parse_statement(text)  # type: ignore[return-value]
