"""Csmith-style random programs in vectorizer's scalar subset, built from Hypothesis choices.

`programs()` is a Hypothesis strategy producing a `Program`: a module with numeric constants and
tuples, 0-2 helper functions and a main function `f` of 1-3 typed parameters. Every program is
well defined and runs in bounded time in the scalar interpreter:

* variables are read only where they are assigned on every path (a definite-assignment scope);
* `while` loops carry a fuel counter (`fuel_k < L` in the test, or `if fuel_k > L: break` first in
  the body) that nothing else assigns; `for` loops over `range` have literal bounds or batched
  bounds clamped into [-3, 6]; loops nest at most two deep;
* Python ints are unbounded, so every int expression carries a bound on its size in bits;
  exponents and shift counts are clamped, and an assignment whose value could grow beyond
  `BITS_CAP` bits (or that grows a loop-carried variable) is wrapped in `min(max(e, -C), C)`;
* helper calls never sit inside `and`/`or`/`x if c else y` operands, and helpers only call
  helpers defined before them (no recursion).

Within those rules anything goes: every operator and supported math/builtin call, chained
comparisons, Python's value semantics of `and`/`or`, mixed int/float values, early returns and
raises at any depth, break/continue, tuple returns, and deliberately risky operations (int64
overflow, division and modulo by zero, math domain errors, int ** negative int).

All choices go through a `Chooser` whose choice 0 is always the simplest (a leaf, "stop adding
statements", no else branch...), so Hypothesis shrinks a failure to a small program.

`Program.source(variant)` renders the module; variants are the metamorphic transformations
(renamed variables, swapped if/else with `not (...)`, elif chains as nested ifs, if-tests hoisted
into temporaries, `if a and b` split into nested ifs, helpers inlined by hand), all equivalent to
the original in Python. `shim=True` renders the same program with the libm-dependent
operations routed to `fuzz.shim` (NumPy's value, Python's exceptions): the second oracle used for
programs with transcendental functions.
"""

from __future__ import annotations

import math
import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

# Constructs the generator leaves out, e.g. VECTORIZER_FUZZ_AVOID=truthy,pass while a known engine
# bug in them is open, so that fuzzing finds the next bug instead of the same one. See AVOIDABLE.
AVOIDABLE = {
    "truthy": "if/while/assert tests that are numbers (truthiness) rather than bools",
    "pass": "'pass' (the swap variant of an if without else)",
    "lazy": "'and', 'or' and conditional expressions",
    "loops": "while and for loops",
    "calls": "helper functions",
    "tuples": "module-level tuples",
    "raise": "raise and assert statements",
    "early-return": "return statements before the end of the function",
    "mixed": "values that are ints on some lanes and floats on others",
    "bitwise": "bitwise operators and shifts",
    "gamma": "math.gamma and math.lgamma (the Numba backend refuses them: runs on it avoid them)",
}
AVOID = frozenset(filter(None, os.environ.get("VECTORIZER_FUZZ_AVOID", "").split(",")))
EXTRA_AVOID: set[str] = set()  # set by a campaign for one backend (test_fuzz: "gamma" for Numba)
BITS_CAP = 4000  # an int value that may need more bits than this is clamped at assignment
LOOP_GROWTH = 6  # bits a loop-carried int may grow per assignment without a clamp
MAX_LOOP_DEPTH = 2
TYPES = ("bool", "int", "float", "num")


# -- choices ------------------------------------------------------------------------------------
class Chooser:
    """Random choices; 0 is always the simplest answer (what shrinking moves towards)."""

    def below(self, n: int) -> int:
        raise NotImplementedError

    def coin(self, percent: int) -> bool:
        """True with `percent`% probability; shrinks to False."""
        return self.below(100) >= 100 - percent

    def pick(self, weights: Sequence[int]) -> int:
        """An index, with probability proportional to its weight; shrinks to the first nonzero."""
        total = sum(weights)
        r = self.below(total)
        for i, w in enumerate(weights):
            if r < w:
                return i
            r -= w
        raise AssertionError("unreachable")

    def choice(self, seq: Sequence):
        return seq[self.below(len(seq))]


class DrawChooser(Chooser):
    def __init__(self, draw) -> None:
        self.draw = draw

    def below(self, n: int) -> int:
        return 0 if n <= 1 else self.draw(st.integers(0, n - 1))


class RandomChooser(Chooser):
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def below(self, n: int) -> int:
        return 0 if n <= 1 else self.rng.randrange(n)


# -- types --------------------------------------------------------------------------------------
def join(a: str, b: str) -> str:
    if a == b:
        return a
    if {a, b} <= {"bool", "int"}:
        return "int"
    return "num"


def arith(a: str, b: str) -> str:
    if "float" in (a, b):
        return "float"
    if "num" in (a, b):
        return "num"
    return "int"


def fits(want: str, t: str) -> bool:
    """May a value of type t go where `want` is asked for (without changing the type)?"""
    if want == "any":
        return True
    if want == "int":
        return t in ("int", "bool")
    if want == "num":
        return True
    return t == want


def bits_of(value: int) -> int:
    return max(int(abs(value)).bit_length(), 1)


# -- expressions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    text: str  # the Python source
    shim: str  # the same expression with libm-dependent operations routed to fuzz.shim
    type: str  # bool / int / float / num (int on some lanes, float on others)
    bits: int = 1  # bound on the size of an int value, in bits
    classb: bool = False  # uses a libm-dependent (transcendental) operation
    call: bool = False  # contains a call to a helper function
    const: bool = False  # only literals and module constants: vectorizer folds it with Python
    conj: tuple | None = None  # (left, right) when the expression is `left and right`


def slots(n: int) -> str:
    """"{0}, {1}, ..." for a call's arguments in a `node` format."""
    return ", ".join(f"{{{i}}}" for i in range(n))


def leaf(text: str, t: str, bits: int = 64, const: bool = False) -> Expr:
    return Expr(text, text, t, bits, const=const)


def node(fmt: str, *kids: Expr, t: str, bits: int = 64, classb: bool = False, shim_fmt: str | None = None,
         call: bool = False) -> Expr:
    const = all(k.const for k in kids) and not call
    libm = classb and not const  # constant folding computes libm-dependent constants with libm
    return Expr(
        fmt.format(*(k.text for k in kids)),
        (shim_fmt if libm and shim_fmt is not None else fmt).format(*(k.shim for k in kids)),
        t,
        min(bits, 10**6),
        classb or any(k.classb for k in kids),
        call or any(k.call for k in kids),
        const,
    )


INT_LITERALS = (0, 1, 2, 3, 5, 7, 10, 100, -1, -2, -7, 2**31, 2**32 + 1, 2**53 + 1, 3037000499, 3037000500,
                10**18, 2**62, 2**63 - 1, -(2**63) + 1)
FLOAT_LITERALS = (0.0, 1.0, 0.5, 2.5, -1.5, 3.0, -0.0, 0.1, 1e-3, 1e10, 1e300, 1.7976931348623157e308,
                  5e-324, 2.2250738585072014e-308, 709.78, 710.5, 2.0**53, 1e-300, 100.0, -3.75)
MATH_CONSTANTS = ("math.pi", "math.e", "math.tau", "math.inf", "math.nan")

# name -> (arity, libm-dependent?)
MATH_FUNCS = {
    "sqrt": (1, False), "exp": (1, True), "expm1": (1, True), "exp2": (1, True), "log": (1, True),
    "log2": (1, True), "log10": (1, True), "log1p": (1, True), "sin": (1, True), "cos": (1, True),
    "tan": (1, True), "asin": (1, True), "acos": (1, True), "atan": (1, True), "sinh": (1, True),
    "cosh": (1, True), "tanh": (1, True), "asinh": (1, True), "acosh": (1, True), "atanh": (1, True),
    "cbrt": (1, True), "fabs": (1, False), "degrees": (1, False), "radians": (1, False),
    "erf": (1, True), "erfc": (1, True), "gamma": (1, False), "lgamma": (1, False),
    "atan2": (2, True), "hypot": (2, True), "copysign": (2, False), "fmod": (2, False),
    "pow": (2, True), "nextafter": (2, False),
}
# Domain guards that make a math call total on its argument (used half the time).
GUARDS = {
    "sqrt": "abs({0})", "log": "(abs({0}) + 1.0)", "log2": "(abs({0}) + 0.5)", "log10": "(abs({0}) + 2.0)",
    "log1p": "abs({0})", "asin": "math.sin({0})", "acos": "math.cos({0})", "acosh": "(abs({0}) + 1.0)",
    "atanh": "math.tanh({0}) * 0.5", "gamma": "(abs({0}) + 0.5)", "lgamma": "(abs({0}) + 0.5)",
    "exp": "min({0}, 700.0)", "expm1": "min({0}, 700.0)", "exp2": "min({0}, 1000.0)",
    "sinh": "max(min({0}, 700.0), -700.0)", "cosh": "max(min({0}, 700.0), -700.0)",
    "sin": "max(min({0}, 1e6), -1e6)", "cos": "max(min({0}, 1e6), -1e6)", "tan": "max(min({0}, 1e6), -1e6)",
}
EXCEPTIONS = ("ValueError", "ZeroDivisionError", "ArithmeticError", "RuntimeError", "KeyError", "TypeError")


# -- statements ---------------------------------------------------------------------------------
@dataclass
class Assign:
    targets: list[str]
    values: list[Expr]  # one per target, or a single tuple-valued expression (divmod)


@dataclass
class AugAssign:
    target: str
    op: str
    value: Expr


@dataclass
class CallAssign:
    targets: list[str]
    helper: str
    args: list[Expr]


@dataclass
class If:
    tests: list[Expr]  # if, elif, elif...
    bodies: list[list]
    orelse: list | None


@dataclass
class While:
    fuel: str
    limit: int
    cond: Expr | None
    body: list
    form: str  # "test": `while fuel < L and c`; "break": `while c:` + `if fuel > L: break`; "true"


@dataclass
class ForRange:
    var: str
    args: list[Expr]
    body: list


@dataclass
class ForTuple:
    var: str
    iterable: str
    body: list


@dataclass
class Return:
    values: list[Expr]


@dataclass
class Raise:
    exc: str
    message: str  # Python source of the message argument


@dataclass
class Assert:
    test: Expr
    message: str | None


@dataclass
class Jump:
    word: str  # break / continue / pass


TERMINATORS = (Return, Raise)


# -- scope --------------------------------------------------------------------------------------
@dataclass
class Var:
    type: str
    bits: int


@dataclass
class Scope:
    vars: dict[str, Var]
    loops: int = 0
    pinned: frozenset = frozenset()  # live around an enclosing loop: type may not change
    reserved: frozenset = frozenset()  # fuel counters: never assigned by random statements
    uniform: frozenset = frozenset()  # loop variables of loops with uniform bounds

    def copy(self) -> Scope:
        return replace(self, vars=dict(self.vars))


def merge(scopes: list[Scope], base: Scope) -> Scope:
    """The scope after paths meet: variables assigned on every path, types joined."""
    out = base.copy()
    if not scopes:
        return out
    names = set(scopes[0].vars)
    for s in scopes[1:]:
        names &= set(s.vars)
    out.vars = {}
    for n in sorted(names):
        t = scopes[0].vars[n].type
        b = scopes[0].vars[n].bits
        for s in scopes[1:]:
            t = join(t, s.vars[n].type)
            b = max(b, s.vars[n].bits)
        out.vars[n] = Var(t, b)
    return out


# -- functions and programs ---------------------------------------------------------------------
@dataclass
class Function:
    name: str
    params: list[tuple[str, str]]
    body: list = field(default_factory=list)
    arity: int = 1  # 1: returns a number; k > 1: returns a k-tuple
    slots: list = field(default_factory=list)  # per returned value: (joined type, bits bound)
    inlinable: bool = False  # the only return is the last top-level statement

    @property
    def result(self) -> str:
        return self.slots[0][0]

    @property
    def result_bits(self) -> int:
        return self.slots[0][1]


@dataclass
class Program:
    constants: list[tuple[str, str, str]]  # name, literal source, type ('tuple-int'... for tuples)
    helpers: list[Function]
    main: Function
    floats: tuple[float, ...] = ()  # float literals used: inputs are drawn next to them

    @property
    def params(self) -> list[tuple[str, str]]:
        return self.main.params

    @property
    def classb(self) -> bool:
        return any(_uses_classb(fn.body) for fn in (*self.helpers, self.main))

    def source(self, variant: frozenset | set = frozenset(), shim: bool = False) -> str:
        return Renderer(self, frozenset(variant), shim).module()

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example
        return "Program, source:\n" + self.source()


def _walk(stmts: list):
    for s in stmts:
        yield s
        if isinstance(s, If):
            for b in s.bodies:
                yield from _walk(b)
            if s.orelse:
                yield from _walk(s.orelse)
        elif isinstance(s, While | ForRange | ForTuple):
            yield from _walk(s.body)


def _exprs(s) -> list[Expr]:
    if isinstance(s, Assign):
        return list(s.values)
    if isinstance(s, AugAssign):
        return [s.value]
    if isinstance(s, CallAssign):
        return list(s.args)
    if isinstance(s, If):
        return list(s.tests)
    if isinstance(s, While):
        return [s.cond] if s.cond is not None else []
    if isinstance(s, ForRange):
        return list(s.args)
    if isinstance(s, Return):
        return list(s.values)
    if isinstance(s, Assert):
        return [s.test]
    return []


def _uses_classb(stmts: list) -> bool:
    return any(e.classb for s in _walk(stmts) for e in _exprs(s)) or any(
        isinstance(s, AugAssign) and s.op == "**" for s in _walk(stmts))


# -- the generator ------------------------------------------------------------------------------
class Gen:
    def __init__(self, ch: Chooser) -> None:
        self.ch = ch
        self.counter = 0
        self.constants: list[tuple[str, str, str]] = []
        self.const_values: dict[str, object] = {}
        self.helpers: list[Function] = []
        self.floats: set[float] = set()
        self.fn: Function | None = None
        self.callable: list[Function] = []
        self.exact = False  # no libm-dependent operation anywhere: every value is compared bit-exact
        self.risk = 35

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    # -- program ---------------------------------------------------------------------------------
    def program(self) -> Program:
        self.exact = self.ch.coin(50)
        self.risk = 35 if self.ch.coin(50) else 8  # % of risky operations left unguarded
        for _ in range(self.ch.pick([3, 3, 2, 1])):
            self.constant()
        for k in range(self.ch.pick([6, 4, 1]) if "calls" not in AVOID else 0):
            params = self.params("a", 1 + self.ch.pick([3, 3, 1]))
            fn = Function(f"g_{k}", params, arity=1 if self.ch.coin(80) else 2)
            self.function(fn)
            self.helpers.append(fn)
        params = self.params(None, 1 + self.ch.pick([4, 4, 2]))
        main = Function("f", params, arity=self.ch.choice((1, 1, 1, 1, 2, 3)))
        self.function(main)
        return Program(self.constants, self.helpers, main, tuple(sorted(self.floats, key=repr)))

    def params(self, stem: str | None, count: int) -> list[tuple[str, str]]:
        out = []
        for _ in range(count):
            t = ("float", "int", "bool")[self.ch.pick([5, 4, 2])]
            out.append((self.fresh(stem or {"float": "x", "int": "n", "bool": "b"}[t]), t))
        return out

    def constant(self) -> None:
        kind = self.ch.pick([3, 2, 1, 2, 2, 1])
        if "tuples" in AVOID:
            kind = min(kind, 2)
        if kind in (0, 1, 2):
            t = ("float", "int", "bool")[kind]
            name = f"K_{len(self.constants)}"
            e = self.literal(t)
            self.constants.append((name, e.text, t))
            self.const_values[name] = eval(e.text, {"math": math})  # noqa: S307 - our own literal
        else:
            t = ("float", "int", "mixed")[kind - 3]
            n = 1 + self.ch.pick([1, 4, 3, 1])
            items = []
            for _ in range(n):
                tt = t if t != "mixed" else self.ch.choice(("int", "float"))
                items.append(self.literal(tt, small=True).text)
            name = f"T_{len(self.constants)}"
            src = "(" + ", ".join(items) + ("," if n == 1 else "") + ")"
            self.constants.append((name, src, f"tuple-{t}"))
            self.const_values[name] = eval(src, {"math": math})  # noqa: S307

    def function(self, fn: Function) -> None:
        self.fn = fn
        self.callable = list(self.helpers)
        scope = Scope({n: Var(t, 64 if t != "bool" else 1) for n, t in fn.params})
        self.returns: list[list[Expr]] = []
        self.result_types = [("float", "int", "bool", "any")[self.ch.pick([4, 3, 2, 1])] for _ in range(fn.arity)]
        body, out, done = self.block(scope, 0, top=True)
        if not done:
            body.append(self.ret(out))
        fn.body = body
        fn.slots = []
        for k in range(fn.arity):
            values = [r[k] for r in self.returns] or [leaf("0", "int", 1)]
            t, b = values[0].type, values[0].bits
            for e in values[1:]:
                t, b = join(t, e.type), max(b, e.bits)
            fn.slots.append((t, b))
        fn.inlinable = isinstance(body[-1], Return) and not any(isinstance(s, Return) for s in _walk(body[:-1]))

    # -- statements ------------------------------------------------------------------------------
    def block(self, sc: Scope, depth: int, top: bool = False) -> tuple[list, Scope, bool]:
        """Statements; returns them, the scope after them, and whether they always leave."""
        sc = sc.copy()
        out: list = []
        limit = (7, 4, 3, 2)[min(depth, 3)]
        while True:
            stmts, sc, done = self.statement(sc, depth, top)
            out.extend(stmts)
            if done or len(out) >= limit or not self.ch.coin(65 if depth == 0 else 45):
                return out, sc, done

    def statement(self, sc: Scope, depth: int, top: bool) -> tuple[list, Scope, bool]:
        in_loop = sc.loops > 0
        deep = depth >= 3
        loops_ok = sc.loops < MAX_LOOP_DEPTH and not deep and "loops" not in AVOID
        raises = "raise" not in AVOID
        w = [
            10,  # 0 new variable
            6,  # 1 assign an existing variable
            4,  # 2 augmented assignment
            0 if deep else 7,  # 3 if / elif / else
            3 if loops_ok else 0,  # 4 while with fuel
            3 if loops_ok else 0,  # 5 for range, uniform bounds
            3 if loops_ok else 0,  # 6 for range, batched (clamped) bounds
            1 if loops_ok and self.tuples() else 0,  # 7 for over a tuple
            0 if "early-return" in AVOID else 2 if depth > 0 else 1,  # 8 return
            2 if raises else 0,  # 9 guarded raise
            1 if raises else 0,  # 10 assert
            3 if in_loop else 0,  # 11 guarded break / continue
            2,  # 12 tuple assignment
            1,  # 13 divmod
            4 if self.callable else 0,  # 14 helper call
            1 if depth > 0 and raises else 0,  # 15 bare raise (ends the block)
            2 if in_loop and depth > 0 else 0,  # 16 bare break / continue (ends the block)
        ]
        kind = self.ch.pick(w)
        if kind == 0:
            return self.new_var(sc)
        if kind == 1:
            return self.assign(sc)
        if kind == 2:
            return self.aug(sc)
        if kind == 3:
            return self.if_stmt(sc, depth)
        if kind == 4:
            return self.while_stmt(sc, depth)
        if kind in (5, 6):
            return self.for_range(sc, depth, batched=kind == 6)
        if kind == 7:
            return self.for_tuple(sc, depth)
        if kind == 8:
            return [self.ret(sc)], sc, True
        if kind == 9:
            return [If([self.cond(sc)], [[self.raise_stmt(sc)]], None)], sc, False
        if kind == 10:
            msg = None if self.ch.coin(50) else repr(f"assert {self.fresh('A')}")
            return [Assert(self.cond(sc), msg)], sc, False
        if kind == 11:
            return [If([self.cond(sc)], [[Jump(self.ch.choice(("break", "continue")))]], None)], sc, False
        if kind == 12:
            return self.tuple_assign(sc)
        if kind == 13:
            return self.divmod_assign(sc)
        if kind == 14:
            return self.call_assign(sc)
        if kind == 15:
            return [self.raise_stmt(sc)], sc, True
        return [Jump(self.ch.choice(("break", "continue")))], sc, True

    def assignable(self, sc: Scope) -> list[str]:
        return [n for n in sc.vars if n not in sc.reserved]

    def bind(self, sc: Scope, name: str, e: Expr) -> Expr:
        """Record `name = e` in the scope, clamping ints that could grow without bound."""
        old = sc.vars.get(name)
        if e.type in ("int", "num"):
            limit = BITS_CAP
            if name in sc.pinned and old is not None:
                limit = max(old.bits, 64) + LOOP_GROWTH
            if e.bits > limit:
                c = self.ch.choice((10**6, 2**40, 2**62))
                e = node(f"min(max({{0}}, {-c}), {c})", e, t=e.type, bits=bits_of(c))
        sc.vars[name] = Var(e.type, e.bits if e.type != "bool" else 1)
        return e

    def new_var(self, sc: Scope) -> tuple[list, Scope, bool]:
        name = self.fresh("v")
        e = self.bind(sc, name, self.expr("any", sc, 3))
        return [Assign([name], [e])], sc, False

    def target_want(self, sc: Scope, name: str) -> str:
        if name in sc.pinned:
            t = sc.vars[name].type
            return {"bool": "bool", "int": "int", "float": "float", "num": "any"}[t]
        return "any"

    def assign(self, sc: Scope) -> tuple[list, Scope, bool]:
        names = self.assignable(sc)
        if not names:
            return self.new_var(sc)
        name = self.ch.choice(names)
        e = self.bind(sc, name, self.expr(self.target_want(sc, name), sc, 3))
        return [Assign([name], [e])], sc, False

    def aug(self, sc: Scope) -> tuple[list, Scope, bool]:
        names = [n for n in self.assignable(sc) if sc.vars[n].type != "bool" or n not in sc.pinned]
        if not names:
            return self.new_var(sc)
        name = self.ch.choice(names)
        var = sc.vars[name]
        pinned = name in sc.pinned
        ops = ["+", "-", "*", "//", "%", "/", "**"] + ([] if "bitwise" in AVOID else ["&", "|", "^", "<<", ">>"])
        op = self.ch.choice(ops)
        t = var.type
        if op in ("&", "|", "^", "<<", ">>") and t not in ("int", "bool"):
            op = "-"
        if pinned and t in ("int", "num", "bool") and op in ("/", "**", "<<", "*"):
            op = "+"  # would change the type of a loop-carried int, or grow it without bound
        if op == "**" and self.exact and t in ("float", "num"):
            op = "*"  # float ** is libm-dependent
        if op in ("&", "|", "^", ">>", "<<"):
            rhs = self.expr("int", sc, 2)
            if op == "<<":
                rhs = node("min({0}, 40)", rhs, t="int", bits=6)
            result = "bool" if op in ("&", "|", "^") and t == "bool" and rhs.type == "bool" else "int"
        elif op == "**":
            if t != "float" and (self.exact or self.ch.coin(60)):  # an int base: a small exponent
                rhs = leaf(str(self.ch.choice((0, 1, 2, 3))), "int", 2, const=True)
                result = "num" if t == "num" else "int"
            else:
                rhs = self.expr("float", sc, 2) if t != "float" else self.expr("any", sc, 2)
                result = "float"
        elif op == "/":
            rhs = self.expr("any", sc, 2)
            result = "float"
        else:
            want = {"float": "any", "num": "any"}.get(t, "int")
            if pinned and op == "*":
                rhs = self.literal("float" if t == "float" else "int", small=True)
            else:
                rhs = self.expr(want, sc, 2)
            result = arith(t, rhs.type)
        if pinned and join(t, result) != t:
            return self.assign(sc)
        bits = max(var.bits, rhs.bits) + 1
        if op == "*":
            bits = var.bits + rhs.bits
        elif op == "**":
            bits = var.bits * 3
        elif op == "<<":
            bits = var.bits + 40
        elif op in ("//", "%", "&", "|", "^", ">>"):
            bits = max(var.bits, rhs.bits) + 1
        limit = max(var.bits, 64) + LOOP_GROWTH if pinned else BITS_CAP
        if result in ("int", "num") and bits > limit:
            return self.assign(sc)
        classb = op == "**" and result != "int"
        value = replace(rhs, classb=rhs.classb or classb)
        sc.vars[name] = Var(result, bits if result != "bool" else 1)
        return [AugAssign(name, op, value)], sc, False

    def tuple_assign(self, sc: Scope) -> tuple[list, Scope, bool]:
        names = self.assignable(sc)
        if len(names) >= 2 and self.ch.coin(40):  # a swap, as in `a, b = b, a`
            a, b = self.ch.choice(names), self.ch.choice(names)
            if a != b and (a not in sc.pinned and b not in sc.pinned or sc.vars[a].type == sc.vars[b].type):
                va, vb = sc.vars[a], sc.vars[b]
                ea, eb = leaf(b, vb.type, vb.bits), leaf(a, va.type, va.bits)
                sc.vars[a], sc.vars[b] = Var(vb.type, vb.bits), Var(va.type, va.bits)
                return [Assign([a, b], [ea, eb])], sc, False
        targets, values = [], []
        evaluated = sc.copy()  # the right side is evaluated before any target is bound
        for _ in range(2 + self.ch.pick([4, 1])):
            if names and self.ch.coin(40):
                name = self.ch.choice(names)
                if name in targets:
                    name = self.fresh("v")
            else:
                name = self.fresh("v")
            want = self.target_want(evaluated, name) if name in evaluated.vars else "any"
            values.append(self.expr(want, evaluated, 2))
            targets.append(name)
        values = [self.bind(sc, n, e) for n, e in zip(targets, values)]
        return [Assign(targets, values)], sc, False

    def divmod_assign(self, sc: Scope) -> tuple[list, Scope, bool]:
        a = self.expr("any" if self.ch.coin(50) else "int", sc, 2)
        b = self.divisor(sc, self.ch.coin(50))
        t = arith(a.type, b.type)
        q, r = self.fresh("v"), self.fresh("v")
        e = node("divmod({0}, {1})", a, b, t=t, bits=max(a.bits, b.bits) + 1)
        sc.vars[q] = Var(t, e.bits)
        sc.vars[r] = Var(t, e.bits)
        return [Assign([q, r], [e])], sc, False

    def call_assign(self, sc: Scope) -> tuple[list, Scope, bool]:
        g = self.ch.choice(self.callable)
        args = [self.expr({"bool": "bool", "int": "int", "float": "float"}[t], sc, 2) for _, t in g.params]
        targets = [self.fresh("v") for _ in range(g.arity)]
        names = self.assignable(sc)
        if g.arity == 1 and names and self.ch.coin(30):
            cand, (t, b) = self.ch.choice(names), g.slots[0]
            old = sc.vars[cand]
            if cand not in sc.pinned or (join(old.type, t) == old.type and b <= max(old.bits, 64) + LOOP_GROWTH):
                targets = [cand]
        for tgt, (t, b) in zip(targets, g.slots):
            sc.vars[tgt] = Var(t, b if t != "bool" else 1)
        return [CallAssign(targets, g.name, args)], sc, False

    def ret(self, sc: Scope) -> Return:
        values = []
        for want in self.result_types:
            e = self.expr(want if self.ch.coin(80) else "any", sc, 3)
            if self.fn is not None and self.fn.name != "f" and e.type in ("int", "num") and e.bits > BITS_CAP:
                e = node("min(max({0}, -1000000), 1000000)", e, t=e.type, bits=20)
            values.append(e)
        self.returns.append(values)
        return Return(values)

    def raise_stmt(self, sc: Scope) -> Raise:
        exc = EXCEPTIONS[self.ch.pick([4, 2, 1, 1, 1, 1])]
        tag = self.fresh("E")
        names = list(sc.vars)
        if names and self.ch.coin(30):
            return Raise(exc, f'f"{tag} {{{self.ch.choice(names)}!r}}"')
        return Raise(exc, repr(tag))

    def cond(self, sc: Scope, calls: bool = True) -> Expr:
        """An if/while/assert test: usually a bool, sometimes any number (truthiness)."""
        if sc.uniform and self.ch.coin(25):
            uniform = Scope({n: sc.vars[n] for n in sc.uniform if n in sc.vars})
            return self.expr("bool", uniform, 2, calls=False)
        truthy = "truthy" not in AVOID and self.ch.coin(25)
        return self.expr("any" if truthy else "bool", sc, 3, calls=calls)

    def if_stmt(self, sc: Scope, depth: int) -> tuple[list, Scope, bool]:
        tests = [self.cond(sc)]
        bodies, outs, dones = [], [], []
        b, o, d = self.block(sc, depth + 1)
        bodies.append(b)
        outs.append(o)
        dones.append(d)
        for _ in range(self.ch.pick([6, 2, 1])):
            tests.append(self.cond(sc))
            b, o, d = self.block(sc, depth + 1)
            bodies.append(b)
            outs.append(o)
            dones.append(d)
        orelse = None
        if self.ch.coin(45):
            orelse, o, d = self.block(sc, depth + 1)
            outs.append(o)
            dones.append(d)
        else:
            outs.append(sc)
            dones.append(False)
        live = [o for o, d in zip(outs, dones) if not d]
        for o in outs:  # growth inside any branch bounds the variable afterwards
            for n, v in o.vars.items():
                if n in sc.vars and v.bits > sc.vars[n].bits:
                    sc.vars[n] = Var(sc.vars[n].type, v.bits)
        after = merge(live, sc)
        return [If(tests, bodies, orelse)], after, not live

    def loop_scope(self, sc: Scope, extra: dict[str, Var], uniform: set[str] = frozenset()) -> Scope:
        inner = sc.copy()
        inner.vars.update(extra)
        inner.loops += 1
        inner.pinned = frozenset(sc.vars) | sc.pinned
        inner.uniform = frozenset(inner.uniform | uniform)
        return inner

    def after_loop(self, sc: Scope, inner_out: Scope, limit: int) -> Scope:
        """Loop-carried ints may grow a little per iteration: widen their bound."""
        out = sc.copy()
        for n, v in out.vars.items():
            w = inner_out.vars.get(n)
            if w is not None and w.bits > v.bits:
                out.vars[n] = Var(v.type, min(v.bits + (w.bits - v.bits) * limit, BITS_CAP))
        return out

    def while_stmt(self, sc: Scope, depth: int) -> tuple[list, Scope, bool]:
        fuel = self.fresh("fuel")
        limit = 1 + self.ch.pick([2, 4, 3, 1]) * 4  # 1, 5, 9, 13
        form = ("test", "break", "true")[self.ch.pick([5, 3, 1])]
        inner = self.loop_scope(sc, {fuel: Var("int", 8)})
        inner.reserved = frozenset(inner.reserved | {fuel})
        cond = None
        if form != "true":
            cond = self.cond(inner, calls=form == "break")
        body, out, _ = self.block(inner, depth + 1)
        after = self.after_loop(sc, out, limit)
        after.vars[fuel] = Var("int", 8)  # the trip count is readable after the loop
        after.reserved = frozenset(after.reserved | {fuel})
        return [While(fuel, limit, cond, body, form)], after, False

    def for_range(self, sc: Scope, depth: int, batched: bool) -> tuple[list, Scope, bool]:
        var = self.fresh("i")
        if not batched:
            shape = self.ch.pick([4, 2, 1])
            lo, hi = self.ch.choice((0, 1, -2)), self.ch.choice((0, 1, 3, 4, 6))
            if shape == 0:
                args = [leaf(str(hi), "int", 4, True)]
            elif shape == 1:
                args = [leaf(str(lo), "int", 4, True), leaf(str(hi), "int", 4, True)]
            else:
                step = self.ch.choice((2, -1, 3, -2))
                if step < 0:
                    lo, hi = hi, lo
                args = [leaf(str(lo), "int", 4, True), leaf(str(hi), "int", 4, True), leaf(str(step), "int", 3, True)]
        else:
            shape = self.ch.pick([4, 2, 2, 1])
            e1 = self.expr("int", sc, 2)
            if shape == 0:
                args = [node("min({0}, 6)", e1, t="int", bits=4)]
            elif shape == 1:
                e2 = self.expr("int", sc, 2)
                args = [node("max({0}, -3)", e1, t="int", bits=4), node("min({0}, 6)", e2, t="int", bits=4)]
            else:
                e2 = self.expr("int", sc, 2)
                step = self.expr("int", sc, 1) if shape == 3 else leaf(self.ch.choice(("-1", "2", "-2")), "int", 2, True)
                args = [node("min(max({0}, -3), 6)", e1, t="int", bits=4),
                        node("min(max({0}, -3), 6)", e2, t="int", bits=4), step]
        inner = self.loop_scope(sc, {var: Var("int", 64)}, uniform=set() if batched else {var})
        body, out, _ = self.block(inner, depth + 1)
        return [ForRange(var, args, body)], self.after_loop(sc, out, 10), False

    def tuples(self) -> list[tuple[str, str, str]]:
        return [c for c in self.constants if c[2].startswith("tuple")]

    def for_tuple(self, sc: Scope, depth: int) -> tuple[list, Scope, bool]:
        var = self.fresh("i")
        name, _, kind = self.ch.choice(self.tuples())
        t = {"tuple-int": "int", "tuple-float": "float", "tuple-mixed": "num"}[kind]
        inner = self.loop_scope(sc, {var: Var(t, 64)}, uniform={var})
        body, out, _ = self.block(inner, depth + 1)
        return [ForTuple(var, name, body)], self.after_loop(sc, out, 5), False

    # -- expressions -----------------------------------------------------------------------------
    def literal(self, t: str, small: bool = False) -> Expr:
        if t == "bool":
            return leaf(self.ch.choice(("True", "False")), "bool", 1, True)
        if t == "int":
            pool = INT_LITERALS[:11] if small else INT_LITERALS
            v = pool[self.ch.pick([8] * 11 + [1] * (len(pool) - 11))] if not small else self.ch.choice(pool)
            return leaf(str(v) if v >= 0 else f"({v})", "int", bits_of(v), True)
        pool = FLOAT_LITERALS[:10] if small else FLOAT_LITERALS
        v = pool[self.ch.pick([6] * 10 + [1] * (len(pool) - 10))] if not small else self.ch.choice(pool)
        self.floats.add(v)
        text = repr(v)
        return leaf(text if not text.startswith("-") else f"({text})", "float", 1, True)

    def var(self, want: str, sc: Scope) -> Expr | None:
        names = [n for n, v in sc.vars.items() if fits(want, v.type)]
        if not names:
            return None
        n = self.ch.choice(names)
        return leaf(n, sc.vars[n].type, sc.vars[n].bits)

    def leaf(self, want: str, sc: Scope) -> Expr:
        if want in ("any", "num"):
            want = ("int", "float", "bool")[self.ch.pick([3, 4, 1])] if not sc.vars or self.ch.coin(30) else "any"
        ints = [c for c in self.constants if c[2] == "int"]
        floats = [c for c in self.constants if c[2] == "float"]
        kind = self.ch.pick([12, 4, 1, 1])
        if want == "bool" and kind == 2:
            bools = [c[0] for c in self.constants if c[2] == "bool"]
            if bools:
                return leaf(self.ch.choice(bools), "bool", 1, True)
        if kind == 0 or want == "any":
            v = self.var(want, sc)
            if v is not None:
                return v
            want = "float" if want == "any" else want
        if kind == 2:
            pool = ints if want == "int" else floats if want == "float" else []
            if pool:
                name = self.ch.choice(pool)[0]
                value = self.const_values[name]
                return leaf(name, want, bits_of(int(value)) if want == "int" else 1, True)
        if kind == 3:
            tup = [c for c in self.tuples() if c[2] == {"int": "tuple-int", "float": "tuple-float"}.get(want)]
            if tup:
                name = self.ch.choice(tup)[0]
                size = len(self.const_values[name])
                if want == "int" and self.ch.coin(50):
                    return leaf(f"len({name})", "int", 4, True)
                idx = self.expr("int", sc, 1, calls=False)
                if not self.ch.coin(self.risk):
                    e = node(f"{name}[{{0}} % {size}]", idx, t=want, bits=64)
                else:
                    e = node(f"{name}[{{0}}]", idx, t=want, bits=64)  # may raise IndexError
                return e
            if want == "float" and self.ch.coin(50):
                return leaf(self.ch.choice(MATH_CONSTANTS), "float", 1, True)
        return self.literal(want)

    def expr(self, want: str, sc: Scope, depth: int, calls: bool = True) -> Expr:
        if depth <= 0:
            return self.leaf(want, sc)
        if want == "any":
            want = ("int", "float", "bool", "num")[self.ch.pick([4, 5, 2, 0 if "mixed" in AVOID else 1])]
        sub = depth - 1
        if want == "int":
            return self.int_expr(sc, sub, calls)
        if want == "float":
            return self.float_expr(sc, sub, calls)
        if want == "bool":
            return self.bool_expr(sc, sub, calls)
        if "mixed" in AVOID:
            return self.float_expr(sc, sub, calls)
        return self.num_expr(sc, sub, calls)

    def divisor(self, sc: Scope, float_ok: bool, depth: int = 1) -> Expr:
        """A divisor: raw (may be zero) or guarded to be nonzero."""
        d = self.expr("any" if float_ok else "int", sc, depth, calls=False)
        if self.ch.coin(self.risk):
            return d
        if d.type in ("int", "bool"):
            return node("({0} | 1)", d, t="int", bits=d.bits)
        return node("(abs({0}) + 1.0)", d, t="float" if d.type == "float" else "num", bits=d.bits + 1)

    def helper_call(self, want: str, sc: Scope, depth: int) -> Expr | None:
        options = [g for g in self.callable if g.arity == 1 and fits(want, g.result)]
        if not options:
            return None
        g = self.ch.choice(options)
        args = [self.expr({"bool": "bool", "int": "int", "float": "float"}[t], sc, depth) for _, t in g.params]
        fmt = f"{g.name}(" + slots(len(args)) + ")"
        return node(fmt, *args, t=g.result, bits=g.result_bits, call=True)

    def lazy(self, want: str, sc: Scope, depth: int) -> Expr:
        """`a if c else b`, `a and b`, `a or b`: operands never contain helper calls."""
        kind = self.ch.pick([2, 2, 2])
        if kind == 0:
            a, c, b = self.expr(want, sc, depth, False), self.cond(sc, False), self.expr(want, sc, depth, False)
            return node("({0} if {1} else {2})", a, c, b, t=join(a.type, b.type), bits=max(a.bits, b.bits))
        a, b = self.expr(want, sc, depth, False), self.expr(want, sc, depth, False)
        op = ("and", "or")[kind - 1]
        e = node(f"({{0}} {op} {{1}})", a, b, t=join(a.type, b.type), bits=max(a.bits, b.bits))
        return replace(e, conj=(a, b)) if op == "and" else e

    def int_expr(self, sc: Scope, d: int, calls: bool) -> Expr:
        bitwise = 0 if "bitwise" in AVOID else 2
        k = self.ch.pick([3, 4, 3, bitwise, bitwise, 2, 2, 3, 1, 0 if "lazy" in AVOID else 2, 2, 2 if calls else 0])
        if k == 0:
            return self.leaf("int", sc)
        if k == 1:  # + - *
            a, b = self.expr("int", sc, d, calls), self.expr("int", sc, d, calls)
            op = self.ch.choice(("+", "-", "*"))
            bits = a.bits + b.bits if op == "*" else max(a.bits, b.bits) + 1
            return node(f"({{0}} {op} {{1}})", a, b, t="int", bits=bits)
        if k == 2:  # // %
            a = self.expr("int", sc, d, calls)
            b = self.divisor(sc, False, d)
            op = self.ch.choice(("//", "%"))
            return node(f"({{0}} {op} {{1}})", a, b, t="int", bits=a.bits + 1)
        if k == 3:  # & | ^
            a, b = self.expr("int", sc, d, calls), self.expr("int", sc, d, calls)
            op = self.ch.choice(("&", "|", "^"))
            t = "bool" if a.type == b.type == "bool" else "int"
            return node(f"({{0}} {op} {{1}})", a, b, t=t, bits=max(a.bits, b.bits) + 1)
        if k == 4:  # << >>
            a, b = self.expr("int", sc, d, calls), self.expr("int", sc, d, calls)
            if self.ch.coin(50):
                fmt = "({0} << min({1}, 70))" if self.ch.coin(self.risk) else "({0} << min({1} & 127, 70))"
                return node(fmt, a, b, t="int", bits=a.bits + 70)
            shift = "({0} >> {1})" if self.ch.coin(self.risk) else "({0} >> ({1} & 63))"
            return node(shift, a, b, t="int", bits=a.bits)
        if k == 5:  # unary
            a = self.expr("int", sc, d, calls)
            op = self.ch.choice(("-", "+") if "bitwise" in AVOID else ("-", "+", "~"))
            return node(f"({op}{{0}})", a, t="int", bits=a.bits + 1)
        if k == 6:  # abs / min / max
            if self.ch.coin(35):
                a = self.expr("int", sc, d, calls)
                return node("abs({0})", a, t="int", bits=a.bits + 1)
            n = 2 + self.ch.pick([4, 1])
            args = [self.expr("int", sc, d, calls) for _ in range(n)]
            fn = self.ch.choice(("min", "max"))
            t = "bool" if all(a.type == "bool" for a in args) else "int"
            return node(f"{fn}(" + slots(n) + ")", *args, t=t,
                        bits=max(a.bits for a in args))
        if k == 7:  # conversions
            a = self.expr("any", sc, d, calls)
            fn = self.ch.choice(("int", "round", "math.floor", "math.ceil", "math.trunc"))
            return node(f"{fn}({{0}})", a, t="int", bits=1025 if a.type in ("float", "num") else a.bits)
        if k == 8:  # int ** small literal, pow(), round(int, k)
            a = self.expr("int", sc, d, calls)
            p = self.ch.choice((0, 1, 2, 3))
            if self.ch.coin(30):
                return node(f"pow({{0}}, {p})", a, t="int", bits=a.bits * max(p, 1))
            return node(f"({{0}} ** {p})", a, t="int", bits=a.bits * max(p, 1))
        if k in (9, 10):
            if k == 9:
                return self.lazy("int", sc, d)
            return self.leaf("int", sc)
        e = self.helper_call("int", sc, d)
        return e if e is not None else self.leaf("int", sc)

    def float_expr(self, sc: Scope, d: int, calls: bool) -> Expr:
        k = self.ch.pick([3, 5, 3, 1, 5, 1, 1, 2, 1, 0 if "lazy" in AVOID else 2, 2, 2 if calls else 0])
        if k in (5, 6, 8) and self.exact:
            k = 1
        if k == 0:
            return self.leaf("float", sc)
        if k == 1:  # + - * with a float operand
            a, b = self.expr("float", sc, d, calls), self.expr("any", sc, d, calls)
            if self.ch.coin(50):
                a, b = b, a
            op = self.ch.choice(("+", "-", "*"))
            return node(f"({{0}} {op} {{1}})", a, b, t="float", bits=1)
        if k == 2:  # / (any operands) and float // %
            a = self.expr("any", sc, d, calls)
            op = self.ch.choice(("/", "/", "//", "%"))
            if op != "/" and a.type != "float":
                b = self.divisor(sc, True, d)
                if b.type != "float":
                    op = "/"
            else:
                b = self.divisor(sc, True, d)
            return node(f"({{0}} {op} {{1}})", a, b, t="float", bits=1)
        if k == 3:  # float(), abs, unary
            a = self.expr("any", sc, d, calls)
            if a.type == "float" and self.ch.coin(60):
                op = self.ch.choice(("-", "+", "abs"))
                return node("abs({0})" if op == "abs" else f"({op}{{0}})", a, t="float", bits=1)
            return node("float({0})", a, t="float", bits=1)
        if k == 4:  # math functions
            exact = self.exact or self.ch.coin(50)
            no_gamma = "gamma" in AVOID or "gamma" in EXTRA_AVOID
            name = self.ch.choice([n for n, (_, libm) in MATH_FUNCS.items()
                                   if libm != exact and not (no_gamma and n in ("gamma", "lgamma"))])
            arity, libm = MATH_FUNCS[name]
            args = [self.expr("any", sc, d, calls) for _ in range(arity)]
            if name in GUARDS and not self.ch.coin(self.risk):
                g = GUARDS[name]
                args[0] = node(g, args[0], t="float", bits=1, classb="math." in g,
                               shim_fmt=g.replace("math.", "fuzz_shim."))
            if name == "pow" and self.ch.coin(50):
                args[1] = node("float(min({0}, 4))", self.expr("int", sc, d, calls), t="float", bits=1)
            inner = slots(arity)
            return node(f"math.{name}({inner})", *args, t="float", bits=1, classb=libm,
                        shim_fmt=f"fuzz_shim.{name}({inner})")
        if k == 5:  # ** with a float side
            a, b = self.expr("float", sc, d, calls), self.expr("any", sc, d, calls)
            if self.ch.coin(40):
                a, b = b, a
                if a.type in ("int", "bool") and b.type in ("int", "bool"):
                    b = self.expr("float", sc, d, calls)
            fmt = "({0} ** {1})" if self.ch.coin(75) else "pow({0}, {1})"
            return node(fmt, a, b, t="float", bits=1, classb=True, shim_fmt="fuzz_shim.power({0}, {1})")
        if k == 6:  # int ** negative literal
            a = self.expr("int", sc, d, calls)
            p = self.ch.choice((-1, -2, -3))
            return node(f"({{0}} ** ({p}))", a, t="float", bits=1, classb=True,
                        shim_fmt=f"fuzz_shim.power({{0}}, {p})")
        if k == 7:  # min / max over floats
            n = 2 + self.ch.pick([4, 1])
            args = [self.expr("float", sc, d, calls) for _ in range(n)]
            fn = self.ch.choice(("min", "max"))
            return node(f"{fn}(" + slots(n) + ")", *args, t="float", bits=1)
        if k == 8:  # round(x, k), log(x, base)
            a = self.expr("float", sc, d, calls)
            if self.ch.coin(60):
                return node(f"round({{0}}, {self.ch.choice((0, 1, 2, 3))})", a, t="float", bits=1)
            b = self.expr("any", sc, d, calls)
            return node("math.log({0}, {1})", a, b, t="float", bits=1, classb=True,
                        shim_fmt="fuzz_shim.log({0}, {1})")
        if k == 9:
            return self.lazy("float", sc, d)
        if k == 10:
            return self.leaf("float", sc)
        e = self.helper_call("float", sc, d)
        return e if e is not None else self.leaf("float", sc)

    def bool_expr(self, sc: Scope, d: int, calls: bool) -> Expr:
        k = self.ch.pick([2, 7, 2, 1, 2, 0 if "bitwise" in AVOID else 1, 0 if "lazy" in AVOID else 1, 2,
                          2 if calls else 0])
        if k == 0:
            return self.leaf("bool", sc)
        if k == 1:  # comparisons, sometimes chained
            n = 2 + self.ch.pick([4, 1])
            ops = [self.ch.choice(("<", "<=", ">", ">=", "==", "!=")) for _ in range(n - 1)]
            # in `a < b < c`, c is evaluated lazily: no helper calls there
            args = [self.expr("any", sc, d, calls and i < 2) for i in range(n)]
            fmt = "({0}" + "".join(f" {op} {{{i + 1}}}" for i, op in enumerate(ops)) + ")"
            return node(fmt, *args, t="bool", bits=1)
        if k == 2:  # not / bool()
            a = self.expr("any", sc, d, calls)
            return node("(not {0})" if self.ch.coin(60) else "bool({0})", a, t="bool", bits=1)
        if k == 3:  # math predicates
            a = self.expr("any", sc, d, calls)
            fn = self.ch.choice(("isnan", "isinf", "isfinite"))
            return node(f"math.{fn}({{0}})", a, t="bool", bits=1)
        if k == 4:  # isclose
            a, b = self.expr("float", sc, d, calls), self.expr("any", sc, d, calls)
            tol = self.ch.choice(("", ", rel_tol=0.001", ", abs_tol=0.5", ", rel_tol=1e-06, abs_tol=1e-09"))
            return node(f"math.isclose({{0}}, {{1}}{tol})", a, b, t="bool", bits=1)
        if k == 5:  # & | ^ on bools
            a, b = self.expr("bool", sc, d, calls), self.expr("bool", sc, d, calls)
            return node(f"({{0}} {self.ch.choice(('&', '|', '^'))} {{1}})", a, b, t="bool", bits=1)
        if k == 6:
            return self.lazy("bool", sc, d)
        if k == 7:
            return self.leaf("bool", sc)
        e = self.helper_call("bool", sc, d)
        return e if e is not None else self.leaf("bool", sc)

    def num_expr(self, sc: Scope, d: int, calls: bool) -> Expr:
        """Values that are ints on some lanes and floats on others."""
        k = self.ch.pick([2, 0 if self.exact else 2, 2, 0 if "lazy" in AVOID else 2, 1, 2]) if d > 0 else 0
        if k == 0:
            v = self.var("num", sc) if any(v.type == "num" for v in sc.vars.values()) else None
            return v if v is not None else self.leaf("any", sc)
        if k == 1:  # int ** int exponent of either sign
            a, b = self.expr("int", sc, d, calls), self.expr("int", sc, d, calls)
            fmt = "({0} ** min({1}, 6))" if self.ch.coin(70) else "pow({0}, min({1}, 6))"
            return node(fmt, a, b, t="num", bits=a.bits * 6, classb=True,
                        shim_fmt="fuzz_shim.power({0}, min({1}, 6))")
        if k == 2:  # min / max mixing ints and floats
            a, b = self.expr("int", sc, d, calls), self.expr("float", sc, d, calls)
            if self.ch.coin(50):
                a, b = b, a
            return node(f"{self.ch.choice(('min', 'max'))}({{0}}, {{1}})", a, b, t="num", bits=max(a.bits, b.bits))
        if k == 3:  # lazy operators mixing types
            kind = self.ch.pick([1, 1, 1])
            a, b = self.expr("int", sc, d, False), self.expr("float", sc, d, False)
            if self.ch.coin(50):
                a, b = b, a
            if kind == 0:
                c = self.cond(sc, False)
                return node("({0} if {1} else {2})", a, c, b, t="num", bits=max(a.bits, b.bits))
            op = ("and", "or")[kind - 1]
            return node(f"({{0}} {op} {{1}})", a, b, t="num", bits=max(a.bits, b.bits))
        if k == 4:  # abs / unary minus of a num
            a = self.num_expr(sc, max(d - 1, 0), calls)
            return node("abs({0})" if self.ch.coin(50) else "(-{0})", a, t=a.type if a.type != "bool" else "int",
                        bits=a.bits + 1)
        a, b = self.num_expr(sc, max(d - 1, 0), calls), self.expr("int", sc, d, calls)
        op = self.ch.choice(("+", "-", "*"))
        t = arith(a.type, b.type)
        return node(f"({{0}} {op} {{1}})", a, b, t=t, bits=a.bits + b.bits if op == "*" else max(a.bits, b.bits) + 1)


# -- rendering ----------------------------------------------------------------------------------
RENAME = re.compile(r"\b(x|n|b|a|v|i|fuel|ct)_(\d+)\b")
VARIANTS = ("rename", "swap", "elif", "hoist", "split", "inline")


class Renderer:
    """Source text of a program; `variant` names metamorphic transformations to apply."""

    def __init__(self, program: Program, variant: frozenset, shim: bool) -> None:
        self.p = program
        self.variant = variant
        self.shim = shim
        self.temps = 0
        self.helpers = {g.name: g for g in program.helpers}

    def module(self) -> str:
        lines = ['"""Generated by tests/fuzz/generator.py."""', "", "import math"]
        if self.shim:
            lines.append("from fuzz import shim as fuzz_shim")
        lines.append("")
        for name, src, _ in self.p.constants:
            lines.append(f"{name} = {src}")
        for fn in (*self.p.helpers, self.p.main):
            lines += ["", ""] + self.function(fn)
        text = "\n".join(lines) + "\n"
        if "rename" in self.variant:
            text = RENAME.sub(lambda m: f"{m.group(1)}{m.group(1)}_{int(m.group(2)) + 500}", text)
        return text

    def e(self, expr: Expr) -> str:
        return expr.shim if self.shim else expr.text

    def function(self, fn: Function) -> list[str]:
        params = ", ".join(f"{n}: {t}" for n, t in fn.params)
        return [f"def {fn.name}({params}):"] + self.block(fn.body, 1)

    def block(self, stmts: list, level: int) -> list[str]:
        out: list[str] = []
        for s in stmts:
            out += self.stmt(s, level)
        return out or ["    " * level + "pass"]

    def stmt(self, s, level: int) -> list[str]:
        pad = "    " * level
        if isinstance(s, Assign):
            return [pad + ", ".join(s.targets) + " = " + ", ".join(self.e(v) for v in s.values)]
        if isinstance(s, AugAssign):
            if self.shim and s.op == "**":
                return [pad + f"{s.target} = fuzz_shim.power({s.target}, {self.e(s.value)})"]
            return [pad + f"{s.target} {s.op}= {self.e(s.value)}"]
        if isinstance(s, CallAssign):
            g = self.helpers[s.helper]
            if "inline" in self.variant and g.inlinable:
                return self.inline(s, g, level)
            return [pad + ", ".join(s.targets) + f" = {s.helper}(" + ", ".join(self.e(a) for a in s.args) + ")"]
        if isinstance(s, If):
            return self.if_stmt(s, level)
        if isinstance(s, While):
            out = [pad + f"{s.fuel} = 0"]
            if s.form == "test":
                out.append(pad + f"while {s.fuel} < {s.limit} and {self.e(s.cond)}:")
                out.append(pad + f"    {s.fuel} += 1")
            else:
                out.append(pad + f"while {self.e(s.cond) if s.form == 'break' else 'True'}:")
                out.append(pad + f"    {s.fuel} += 1")
                out.append(pad + f"    if {s.fuel} > {s.limit}:")
                out.append(pad + "        break")
            return out + self.block(s.body, level + 1)
        if isinstance(s, ForRange):
            return [pad + f"for {s.var} in range(" + ", ".join(self.e(a) for a in s.args) + "):"] + \
                self.block(s.body, level + 1)
        if isinstance(s, ForTuple):
            return [pad + f"for {s.var} in {s.iterable}:"] + self.block(s.body, level + 1)
        if isinstance(s, Return):
            return [pad + "return " + ", ".join(self.e(v) for v in s.values)]
        if isinstance(s, Raise):
            return [pad + f"raise {s.exc}({s.message})"]
        if isinstance(s, Assert):
            return [pad + f"assert {self.e(s.test)}" + (f", {s.message}" if s.message else "")]
        if isinstance(s, Jump):
            return [pad + s.word]
        raise AssertionError(s)

    def if_stmt(self, s: If, level: int) -> list[str]:
        pad = "    " * level
        out: list[str] = []
        tests, bodies, orelse = list(s.tests), list(s.bodies), s.orelse
        if "elif" in self.variant and len(tests) > 1:  # elif chains as nested else: if
            nested = If(tests[1:], bodies[1:], orelse)
            tests, bodies, orelse = tests[:1], bodies[:1], [nested]
        head = tests[0]
        if "split" in self.variant and len(tests) == 1 and orelse is None and head.conj is not None:
            left, right = head.conj
            return [pad + f"if {self.e(left)}:"] + self.stmt(If([right], bodies, None), level + 1)
        test = self.e(head)
        if "hoist" in self.variant:
            self.temps += 1
            name = f"ct_{900 + self.temps}"
            out.append(pad + f"{name} = {test}")
            test = name
        if "swap" in self.variant and len(tests) == 1 and (orelse or "pass" not in AVOID):
            out.append(pad + f"if not ({test}):")
            out += self.block(orelse or [], level + 1)
            out.append(pad + "else:")
            return out + self.block(bodies[0], level + 1)
        out.append(pad + f"if {test}:")
        out += self.block(bodies[0], level + 1)
        for t, b in zip(tests[1:], bodies[1:]):
            out.append(pad + f"elif {self.e(t)}:")
            out += self.block(b, level + 1)
        if orelse is not None:
            out.append(pad + "else:")
            out += self.block(orelse, level + 1)
        return out

    def inline(self, s: CallAssign, g: Function, level: int) -> list[str]:
        """`t = g(a)` as g's body: parameters assigned, the final return assigned to t.

        Names are unique across the whole program, so g's locals cannot clash with the caller's.
        """
        pad = "    " * level
        out = [pad + ", ".join(n for n, _ in g.params) + " = " + ", ".join(self.e(a) for a in s.args)]
        for stmt in g.body[:-1]:
            out += self.stmt(stmt, level)
        last = g.body[-1]
        if isinstance(last, Return):
            out.append(pad + ", ".join(s.targets) + " = " + ", ".join(self.e(v) for v in last.values))
        else:
            out += self.stmt(last, level)
        return out


def applicable(program: Program, variant: str) -> bool:
    """Does the variant change this program's text?"""
    return program.source({variant}) != program.source()


# -- strategies ---------------------------------------------------------------------------------
@st.composite
def programs(draw) -> Program:
    return Gen(DrawChooser(draw)).program()


def random_program(seed: int) -> Program:
    """A program from a seeded `random.Random` (no Hypothesis): for cross-process checks."""
    return Gen(RandomChooser(seed)).program()


def literal_floats(program: Program) -> list[float]:
    return [v for v in program.floats if math.isfinite(v)]
