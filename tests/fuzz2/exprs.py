"""Typed random expressions: text for one `int`, `float` or `bool` value of a fuzz2 program.

Every expression is well-defined Python: it may raise (ZeroDivisionError, ValueError from a math
domain, OverflowError, IndexError), but never TypeError, never runs long and never grows an int
without bound. Growth is bounded by construction: inside loops and helpers (whose callers may
loop) one operand of `*`, the base of `**` and the `n` of `comb` are leaves that no loop
carries; exponents, shifts and `comb`'s `k` are masked to a few bits, `factorial`'s argument is
capped. A "float" context may also hold an int where the program mixes types (`a or x`): Python
then computes with the int, which every operation used on floats here accepts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INT_LITERALS = (0, 1, -1, 2, 3, -3, 5, 7, 10, -12, 100, 255, 1000, 2**31, -(2**31), 2**53 + 1,
                2**62, 2**63 - 1, -(2**63))
FLOAT_LITERALS = ("0.0", "-0.0", "0.5", "1.0", "-1.0", "1.5", "2.0", "-2.5", "3.0", "10.0", "0.1",
                  "1e-300", "5e-324", "1e300", "-1e308", "1.7976931348623157e308", "9007199254740993.0",
                  "math.inf", "-math.inf", "math.nan", "math.pi")
LIBM_UNARY = ("exp", "log", "sin", "cos", "atan", "tanh", "log1p", "expm1")
HANDLERS = ("ZeroDivisionError", "ValueError", "OverflowError", "ArithmeticError", "IndexError",
            "AssertionError", "FzError", "Exception")


@dataclass
class Scope:
    """What an expression may read: variables by type, which of them a loop carries, and the
    helpers it may call (only those defined before the function being generated)."""

    vars: dict[str, str]
    carried: set[str] = field(default_factory=set)
    loops: int = 0
    bounded_growth: bool = False  # a recursive helper's body: no int grows by a product of two
    callable: list = field(default_factory=list)  # Helper objects
    statics: bool = True  # static helpers may be called

    def child(self) -> Scope:
        return Scope(dict(self.vars), set(self.carried), self.loops, self.bounded_growth, self.callable, self.statics)

    def without_calls(self) -> Scope:
        """For `while` and `elif` tests, where calls of the module's functions are refused (README)."""
        inner = self.child()
        inner.callable, inner.statics = [], False
        return inner

    def growth_limited(self) -> bool:
        return self.loops > 0 or self.bounded_growth

    def names(self, ty: str, leaf: bool = False) -> list[str]:
        return [n for n, t in self.vars.items() if t == ty and not (leaf and n in self.carried)]


class Exprs:
    """Expression text by type; `module` (program.Module) names the tables, constants, static
    helpers and the features this program uses."""

    def __init__(self, rng: random.Random, module) -> None:  # noqa: ANN001 - program.Module
        self.rng, self.module, self.feats = rng, module, module.features

    def on(self, feature: str) -> bool:
        return feature in self.feats

    def raw(self, p: float) -> bool:
        """Whether an operation that may raise is left unguarded: with probability p in a
        program with the `risky` feature, rarely in another (so that most of its batches return
        values, which are then compared lane by lane)."""
        return self.rng.random() < (p if self.on("risky") else 0.03)

    def of(self, ty: str, depth: int, sc: Scope) -> str:
        return {"int": self.int_, "float": self.float_, "bool": self.bool_}[ty](depth, sc)

    # -- leaves -------------------------------------------------------------------------------
    def int_leaf(self, sc: Scope, growth_safe: bool = False) -> str:
        r = self.rng
        names = sc.names("int", leaf=growth_safe and sc.growth_limited())
        if names and r.random() < 0.75:
            return r.choice(names)
        if self.module.int_constants and r.random() < 0.15:
            return r.choice(self.module.int_constants)
        value = r.choice(INT_LITERALS) if r.random() < 0.25 else r.randint(-9, 12)
        return str(value) if value >= 0 else f"({value})"

    def float_leaf(self, sc: Scope) -> str:
        r = self.rng
        names = sc.names("float")
        if names and r.random() < 0.75:
            return r.choice(names)
        if self.module.float_constants and r.random() < 0.1:
            return r.choice(self.module.float_constants)
        return r.choice(FLOAT_LITERALS) if r.random() < 0.5 else repr(round(r.uniform(-20, 20), r.choice((0, 1, 3))))

    # -- int ----------------------------------------------------------------------------------
    def int_(self, depth: int, sc: Scope) -> str:
        r, on = self.rng, self.on
        if depth <= 0 or r.random() < 0.2:
            return self.int_leaf(sc)
        d = depth - 1
        forms = ["arith", "arith", "divmod", "unary", "minmax", "ifexp"]
        forms += ["bits"] * on("bits") + ["intmath", "intmath"] * on("intmath") + ["table", "table"] * on("tables")
        forms += ["conv"] * on("conv") + ["andor"] * on("andor") + ["call", "call"] * bool(self.module.calls(sc, "int"))
        forms += ["static"] * bool(sc.statics and self.module.statics_of("int")) + ["boolint"] * bool(sc.names("bool"))
        form = r.choice(forms)
        if form == "arith":
            op = r.choice(("+", "-", "*", "+", "-"))
            right = self.int_leaf(sc, growth_safe=True) if op == "*" else self.int_(d, sc)
            return f"({self.int_(d, sc)} {op} {right})"
        if form == "divmod":
            divisor = self.int_(d, sc) if self.raw(0.3) else f"({self.int_(d, sc)} or {r.choice((1, 3, -7))})"
            if r.random() < 0.15:
                return f"divmod({self.int_(d, sc)}, {divisor})[{r.randint(0, 1)}]"
            return f"({self.int_(d, sc)} {r.choice(('//', '%'))} {divisor})"
        if form == "unary":
            return r.choice((f"(-{self.int_(d, sc)})", f"abs({self.int_(d, sc)})", f"(~{self.int_(d, sc)})"))
        if form == "minmax":
            return f"{r.choice(('min', 'max'))}({self.int_(d, sc)}, {self.int_(d, sc)})"
        if form == "ifexp":
            return f"({self.int_(d, sc)} if {self.bool_(d, sc)} else {self.int_(d, sc)})"
        if form == "bits":
            op = r.choice(("&", "|", "^", "<<", ">>"))
            if op == "<<":
                return f"({self.int_leaf(sc, growth_safe=True)} << ({self.int_(d, sc)} & {r.choice((3, 7, 15))}))"
            if op == ">>":
                return f"({self.int_(d, sc)} >> ({self.int_(d, sc)} & 63))"
            return f"({self.int_(d, sc)} {op} {self.int_(d, sc)})"
        if form == "intmath":
            return self._intmath(d, sc)
        if form == "table":
            return self.table_item("int", d, sc)
        if form == "conv":
            fn = r.choice(("int", "round", "math.floor", "math.ceil", "math.trunc"))
            if self.raw(0.6):
                return f"{fn}({self.float_(d, sc)})"
            v = self.float_(d - 1, sc)
            return f"{fn}({v} if math.isfinite({v}) else {r.choice(('0.5', '-2.5', '1e18'))})"
        if form == "andor":
            return f"({self.int_(d, sc)} {r.choice(('and', 'or'))} {self.int_(d, sc)})"
        if form == "call":
            return self.call("int", d, sc)
        if form == "static":
            return self.module.static_call("int", r, sc)
        return f"({r.choice(sc.names('bool'))} + {self.int_(d, sc)})"

    def _intmath(self, d: int, sc: Scope) -> str:
        r = self.rng
        kind = r.choice(("pow3", "pow3", "gcd", "isqrt", "comb", "factorial", "power", "bitlen"))
        if kind == "pow3":
            modulus = self.int_(d, sc) if self.raw(0.6) else str(r.choice((7, 13, 1000003, 2**31 - 1, 2**61 - 1, -5)))
            exponent = self.int_(d, sc) if self.raw(0.3) else f"({self.int_(d, sc)} % {r.choice((5, 64, 1000))})"
            return f"pow({self.int_(d, sc)}, {exponent}, {modulus})"
        if kind == "gcd":
            return f"math.gcd({self.int_(d, sc)}, {self.int_(d, sc)})"
        if kind == "isqrt":
            arg = self.int_(d, sc)
            return f"math.isqrt({arg if self.raw(0.5) else f'abs({arg})'})"
        if kind == "comb":
            n = self.int_leaf(sc, growth_safe=True) if sc.growth_limited() else self.int_(d, sc)
            return f"math.comb({n if self.raw(0.3) else f'abs({n})'}, {self.int_(d, sc)} & 7)"
        if kind == "factorial":
            n = self.int_(d, sc)
            return f"math.factorial(min({n if self.raw(0.3) else f'abs({n})'}, {r.choice((5, 20, 21, 25))}))"
        if kind == "power":
            return f"({self.int_leaf(sc, growth_safe=True)} ** {r.choice(('2', '3', '0', f'({self.int_(d, sc)} % 4)'))})"
        return f"({self.int_(d, sc)}).bit_length()"

    # -- float --------------------------------------------------------------------------------
    def float_(self, depth: int, sc: Scope) -> str:
        r, on = self.rng, self.on
        if depth <= 0 or r.random() < 0.2:
            return self.float_leaf(sc)
        d = depth - 1
        forms = ["arith", "arith", "mixed", "div", "exact", "minmax", "ifexp", "unary", "fromint"]
        forms += ["libm", "libm"] * on("libm") + ["table"] * on("tables") + ["andor"] * on("andor")
        forms += ["intfloat"] * on("mixed") + ["pow"] * on("floatpow") + ["call", "call"] * bool(self.module.calls(sc, "float"))
        forms += ["static"] * bool(sc.statics and self.module.statics_of("float"))
        form = r.choice(forms)
        if form == "arith":
            return f"({self.float_(d, sc)} {r.choice(('+', '-', '*'))} {self.float_(d, sc)})"
        if form == "mixed":
            a, b = self.float_(d, sc), self.int_(d, sc)
            op = r.choice(("+", "-", "*", "/"))
            return f"({a} {op} {b})" if r.random() < 0.5 else f"({b} {op} {a})"
        if form == "div":
            op = r.choice(("/", "/", "//", "%"))
            divisor = self.float_(d, sc) if self.raw(0.5) else f"({self.float_(d, sc)} or {r.choice(('1.5', '-0.25'))})"
            if r.random() < 0.2:
                return f"divmod({self.float_(d, sc)}, {divisor})[{r.randint(0, 1)}]"
            if r.random() < 0.3:  # int / int is a float (and its own ZeroDivisionError message)
                return f"({self.int_(d, sc)} / {self.int_(d, sc) if self.raw(0.5) else f'({self.int_(d, sc)} or 7)'})"
            return f"({self.float_(d, sc)} {op} {divisor})"
        if form == "exact":
            fn = r.choice(("math.sqrt", "math.fabs", "abs", "math.copysign", "math.fmod", "math.hypot"))
            if fn == "math.fmod" and not self.raw(1.0):
                fn = "math.copysign"
            if fn in ("math.copysign", "math.fmod", "math.hypot"):
                return f"{fn}({self.float_(d, sc)}, {self.float_(d, sc)})"
            if fn == "math.sqrt" and not self.raw(0.4):  # a domain error on fewer lanes
                return f"math.sqrt(abs({self.float_(d, sc)}))"
            return f"{fn}({self.float_(d, sc)})"
        if form == "minmax":
            return f"{r.choice(('min', 'max'))}({self.float_(d, sc)}, {self.float_(d, sc)})"
        if form == "ifexp":
            return f"({self.float_(d, sc)} if {self.bool_(d, sc)} else {self.float_(d, sc)})"
        if form == "unary":
            return f"(-{self.float_(d, sc)})"
        if form == "fromint":
            return f"float({self.int_(d, sc)})"
        if form == "libm":
            fn = r.choice(LIBM_UNARY + ("atan2",))
            if fn == "atan2":
                return f"math.atan2({self.float_(d, sc)}, {self.float_(d, sc)})"
            v = self.float_(d, sc)
            if fn in ("exp", "expm1", "log", "log1p", "sin", "cos") and not self.raw(0.5):  # domain or range errors
                v = {"exp": f"min({v}, 700.0)", "expm1": f"min({v}, 700.0)", "log": f"abs({v}) + 0.5",
                     "log1p": f"abs({v})"}.get(fn, f"({v} if math.isfinite({v}) else 1.0)")
            return f"math.{fn}({v})"
        if form == "table":
            return self.table_item("float", d, sc)
        if form == "andor":
            return f"({self.float_(d, sc)} {r.choice(('and', 'or'))} {self.float_(d, sc)})"
        if form == "intfloat":  # an operand, int on some lanes: Python keeps its type
            a, b = self.int_(d, sc), self.float_(d, sc)
            return f"({a} {r.choice(('and', 'or'))} {b})" if r.random() < 0.5 else f"({b} {r.choice(('and', 'or'))} {a})"
        if form == "pow":
            whole = r.random() < 0.6  # an integral exponent; else the base is made >= 0 (no complex results)
            raw = self.raw(0.5)  # else no negative exponent (0.0 ** -1 raises) and no float exponent (overflow)
            exponent = r.choice((("2", "-1", "3", "2.0", f"({self.int_(d, sc)} % 5)") if raw else ("2", "3", "2.0")) if whole else
                                (("0.5", "-0.5", "1.5", self.float_(d, sc)) if raw else ("0.5", "1.5")))
            base = self.float_(d, sc)
            return f"({base} ** {exponent})" if whole else f"(abs({base}) ** {exponent})"
        if form == "call":
            return self.call("float", d, sc)
        return self.module.static_call("float", r, sc)

    # -- bool ---------------------------------------------------------------------------------
    def bool_(self, depth: int, sc: Scope) -> str:
        r, on = self.rng, self.on
        if depth <= 0 or r.random() < 0.1:
            names = sc.names("bool")
            return r.choice(names) if names and r.random() < 0.7 else r.choice(("True", "False"))
        d = depth - 1
        forms = ["compare", "compare", "compare", "not", "logic", "isnan"]
        forms += ["chain", "chain"] * on("chained") + ["member"] * on("tables")
        form = r.choice(forms)
        if form == "compare":
            ty = r.choice(("int", "int", "float", "mixed"))
            a, b = (self.int_(d, sc), self.float_(d, sc)) if ty == "mixed" else (self.of(ty, d, sc), self.of(ty, d, sc))
            return f"({a} {r.choice(('<', '<=', '>', '>=', '==', '!='))} {b})"
        if form == "chain":
            items = [self.of(r.choice(("int", "int", "float")), d, sc) for _ in range(r.choice((3, 3, 4)))]
            ops = [r.choice(("<", "<=", "<", "==", "!=", ">")) for _ in items[1:]]
            return "(" + items[0] + "".join(f" {op} {item}" for op, item in zip(ops, items[1:])) + ")"
        if form == "not":
            return f"(not {self.bool_(d, sc)})"
        if form == "logic":
            return f"({self.bool_(d, sc)} {r.choice(('and', 'or'))} {self.bool_(d, sc)})"
        if form == "isnan":
            return f"math.{r.choice(('isnan', 'isinf', 'isfinite'))}({self.float_(d, sc)})"
        values = ", ".join(str(r.choice(INT_LITERALS[:12])) for _ in range(r.randint(2, 4)))
        item = self.int_leaf(sc) if r.random() < 0.95 else self.int_(d, sc)  # a name or a literal is supported
        return f"({item} {r.choice(('in', 'not in'))} ({values}))"

    # -- tables and calls ---------------------------------------------------------------------
    def table_item(self, ty: str, d: int, sc: Scope) -> str:
        names = [t for t, (tt, _) in self.module.tables.items() if tt == ty]
        if not names:
            return self.of(ty, 0, sc)
        name = self.rng.choice(names)
        size = len(self.module.tables[name][1])
        index = self.int_(d, sc)
        form = self.rng.random()
        if form < 0.55:
            return f"{name}[{index} % {size}]"
        if form < 0.85 or not self.raw(1.0):
            return f"{name}[{index} % len({name})]"
        return f"{name}[{index}]"  # IndexError on the lanes out of range (negative ones wrap)

    def call(self, ty: str, d: int, sc: Scope) -> str:
        helper = self.rng.choice(self.module.calls(sc, ty))
        return helper.call_text(self, d, sc)
