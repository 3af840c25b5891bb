"""THE op table: each scalar operation, by operand types, to a NumPy expression, a per-lane scalar
expression, and the checks that flag lanes where Python would raise or the result may not be exact.

A rule maps operand types to an `Impl`. Templates use `{0}`, `{1}`, ... for operands and `{r}` for
the result (the lowering binds operands and results to names before using a template twice).

* `expr`   NumPy form, valid on arrays and on NumPy scalars (uniform values).
* `lane`   scalar form for per-lane compiled code; libm-backed `math.*` so it is bit-exact.
* `checks` predicates over operands/result. A lane where one holds is *flagged*: the runtime re-runs
           the original scalar function on it, which raises Python's exact exception or returns the
           exact value (flag and patch). Checks may be conservative, never optimistic.
* `exact`  False for libm-dependent (Class B) functions: NumPy's SIMD kernels may differ from the C
           library by a few ulp (see `ULP_BOUND`); comparisons, + - * /, sqrt, floor... are exact.

Bools in arithmetic are converted to int first (NumPy's `bool + bool` is a logical or).
Adding `math.tanh` is one line: `_unary_float("tanh", exact=False)`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from math import isqrt

from ..core.types import BOOL, FLOAT, INT, NUM, TupleType, Type, Val, arith
from ..errors import VectorizeTypeError
from ..runtime import special

# Documented bound for Class B (libm-dependent) functions on the NumPy backend, in ulp per
# operation; tests/rules/test_rules.py measures every such rule against CPython's math module. 5, not
# 4: special.py's erfc is 5 ulp from glibc's on 1 of 800,017 inputs (x = 1.1741338299996613,
# where glibc's own erfc is 1.7 units of 2**-52 above the true value and ours 1.5 below).
ULP_BOUND = 5
# CPython computes these itself instead of calling the C library, and per-lane compiled code (the
# Numba backend) does not compute them CPython's way: relative error bound, measured. None now:
# hypot is CPython's algorithm in lane code (codegen/numba_helpers.py); gamma and lgamma are
# refused by the Numba backend (passes/lane_exprs.py, NOT_CPYTHONS).
NOT_LIBM_IN_CPYTHON: dict[str, float] = {}

I64_MIN = "-9223372036854775808"
I64_MAX = "9223372036854775807"
BIG_INT = "9.2e18"  # |float estimate| at or above this may not fit int64: flag (conservative)
EXACT_INT = "9007199254740992"  # 2**53: ints beyond this may not be exact as float64
# A float estimate of an int power at or above this may be beyond 2**53: 2**53 - 512, a margin
# for the estimate's errors (an int beyond 2**53 rounded down to 2**53 first, pow's few ulp).
EXACT_POW = "9007199254740480"


def beyond_exact(slot: str) -> str:
    """|slot| > 2**53, exactly: an int literal keeps int64 operands in integer comparisons (a float
    bound would round 2**53 + 1 down first), and no np.abs (abs(INT64_MIN) wraps negative)."""
    return f"(({slot} > {EXACT_INT}) | ({slot} < -{EXACT_INT}))"


@dataclass(frozen=True)
class Check:
    pred: str  # over operands {0},{1}... and result {r}; valid on arrays, NumPy and Python scalars
    why: str  # what Python does on such a lane, for readers of the generated code
    # The per-lane (Numba) form when `pred` will not do there: Numba's int + and - are `nsw`
    # (overflow is undefined to LLVM), so a check of the wrapped result can be optimized away.
    lane: str | None = None
    # Holds only for a negative operand {0}: dropped where {0} is known to be >= 0 or NaN
    # (`math.log1p(math.exp(x))`, `math.sqrt(x * x + 1.0)`; see analysis/signs.py).
    negative_only: bool = False
    positive_only: bool = False  # only for a positive {0}: dropped where {0} <= 0 (`math.exp(-x * x)`)
    divisor: bool = False  # holds only where operand {1} is 0: dropped for a counter that never is


@dataclass(frozen=True)
class Impl:
    result: Type | TupleType
    expr: str
    lane: str
    checks: tuple[Check, ...] = ()
    exact: bool = True


Rule = Callable[..., Impl]


def _int(t: Type, slot: str) -> str:
    """Operand as an int: bools must not reach NumPy's logical-or/not arithmetic."""
    return f"np.int64({slot})" if t is BOOL else slot


def _float(t: Type, slot: str) -> str:
    """Operand as a float64 (math.* converts ints, and bools must not become float16)."""
    return slot if t.is_floatlike else f"np.float64({slot})"


def _lane_int(t: Type, slot: str) -> str:
    return f"int({slot})" if t is BOOL else slot


def _num_exact(result: Type) -> tuple[Check, ...]:
    """NUM results may hold ints: flag int lanes that float64 cannot hold exactly."""
    return (Check(beyond_exact("{r}"), "int beyond 2**53 in a mixed int/float value"),) if result is NUM else ()


# -- arithmetic ------------------------------------------------------------------------------------
_INT_OVERFLOW = {
    "+": "(({0} ^ {r}) & ({1} ^ {r})) < 0",
    "-": "(({0} ^ {1}) & ({0} ^ {r})) < 0",
    "*": f"np.abs(np.multiply({{0}}, {{1}}, dtype=np.float64)) >= {BIG_INT}",
}
# The same tests before the operation, from the operands alone (each bound is computed only where
# it cannot overflow itself): for the per-lane kernels, where the wrapped result is undefined.
_INT_OVERFLOW_BEFORE = {
    "+": f"(({{0}} > {I64_MAX} - {{1}}) if {{1}} > 0 else ({{0}} < {I64_MIN} - {{1}}))",
    "-": f"(({{0}} > {I64_MAX} + {{1}}) if {{1}} < 0 else ({{0}} < {I64_MIN} + {{1}}))",
}


def _const_overflow(op: str, va: Val, vb: Val) -> str | None:
    """With a known int operand, overflow is a range test of the other one: cheaper than the
    general checks (one comparison instead of xor arithmetic or a float product)."""
    lo, hi = -(2**63), 2**63 - 1
    known = [v.const if isinstance(v.const, int) and not isinstance(v.const, bool) else None for v in (va, vb)]
    if known[1] is not None and op in "+-":
        c = known[1] if op == "+" else -known[1]
        if op == "-" and known[1] == lo:
            return None
        return "False" if c == 0 else (f"{{0}} > {hi - c}" if c > 0 else f"{{0}} < {lo - c}")
    if known[0] is not None and op == "+":
        return _const_overflow("+", vb, va).replace("{0}", "{1}") if _const_overflow("+", vb, va) else None
    if op == "*" and known[0] is None and known[1] is None and va is vb:
        return f"({{0}} > {isqrt(hi)}) | ({{0}} < {-isqrt(hi)})"  # x * x (not np.abs: abs(INT64_MIN) < 0)
    if op == "*" and (known[0] is not None or known[1] is not None):
        c, slot = (known[1], "{0}") if known[1] is not None else (known[0], "{1}")
        if c in (0, 1):
            return "False"
        if c == -1:
            return f"{slot} == {lo}"
        bound_hi, bound_lo = (hi // c, -(lo // -c)) if c > 0 else (lo // c, -(hi // -c))
        return f"({slot} > {max(bound_hi, bound_lo)}) | ({slot} < {min(bound_hi, bound_lo)})"
    return None


def affine_range(c: int, d: int) -> tuple[int, int]:
    """The ints x for which both c*x and c*x + d fit in int64: `c*x + d` needs one range test.
    (ceil(a/b) is -((-a) // b) for either sign of b; tests/rules/test_rules.py checks it exhaustively.)"""
    lo, hi = -(2**63), 2**63 - 1
    low, high = max(lo, lo - d), min(hi, hi - d)
    if c > 0:
        return -((-low) // c), high // c
    return -((-high) // c), low // c


def _add_sub_mul(op: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        result = arith(a, b)
        if result is INT:
            x, y = _int(a, "{0}"), _int(b, "{1}")
            lx, ly = _lane_int(a, "{0}"), _lane_int(b, "{1}")
            fast = _const_overflow(op, va, vb)
            pred = fast.format(x, y) if fast else _INT_OVERFLOW[op].format(x, y, r="{r}")
            lane = None if fast or op not in _INT_OVERFLOW_BEFORE else _INT_OVERFLOW_BEFORE[op].format(lx, ly)
            check = Check(pred, "int64 overflow (Python ints are unbounded)", lane)
            return Impl(INT, f"{x} {op} {y}", f"{lx} {op} {ly}", (check,))
        # A bool operand is an int here too (NumPy refuses bool `-`; a NUM may hold a bool).
        return Impl(result, f"{_int(a, '{0}')} {op} {_int(b, '{1}')}", f"{{0}} {op} {{1}}", _num_exact(result))

    return rule


def _true_divide(a: Type, b: Type, va: Val, vb: Val) -> Impl:
    checks = [Check("{1} == 0", "ZeroDivisionError", divisor=True)]
    if a.is_intlike and b.is_intlike:
        # Python divides big ints exactly, then rounds once; float64 operands round first.
        checks.append(Check(f"{beyond_exact('{0}')} | {beyond_exact('{1}')}", "int/int beyond 2**53"))
    lane = "{0} / {1}" if not (a.is_intlike and b.is_intlike) else "float({0}) / float({1})"
    return Impl(FLOAT, "{0} / {1}", lane, tuple(checks))


def _floordiv_mod(op: str, np_name: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        result = arith(a, b)
        checks = [Check("{1} == 0", "ZeroDivisionError", divisor=True)]
        if result is INT:
            x, y = _int(a, "{0}"), _int(b, "{1}")
            if op == "//":
                checks.append(Check(f"({x} == {I64_MIN}) & ({y} == -1)", "int64 overflow"))
            return Impl(INT, f"np.{np_name}({x}, {y})", f"{_lane_int(a, '{0}')} {op} {_lane_int(b, '{1}')}", tuple(checks))
        return Impl(result, f"np.{np_name}({{0}}, {{1}})", f"{{0}} {op} {{1}}", tuple(checks) + _num_exact(result))

    return rule


def _divmod(a: Type, b: Type, va: Val, vb: Val) -> Impl:
    q = _floordiv_mod("//", "floor_divide")(a, b, va, vb)
    result = arith(a, b)
    x, y = _int(a, "{0}"), _int(b, "{1}")
    return Impl(TupleType((result, result)), f"np.divmod({x}, {y})", "divmod({0}, {1})",
                tuple(c for c in q.checks if "{r}" not in c.pred))


def _power(a: Type, b: Type, va: Val, vb: Val) -> Impl:
    if a.is_intlike and b.is_intlike:
        x, y = _int(a, "{0}"), _int(b, "{1}")
        estimate = f"np.abs(np.power({x}, {y}, dtype=np.float64))"
        if vb.const is not None and vb.const >= 0:
            return Impl(INT, f"{x} ** {y}", "{0} ** {1}", (Check(f"{estimate} >= {BIG_INT}", "int64 overflow"),))
        if vb.const is not None:  # a negative literal exponent: Python computes in float
            return Impl(FLOAT, f"np.power({x}, {y}, dtype=np.float64)", "math.pow(float({0}), float({1}))",
                        (Check(f"{x} == 0", "ZeroDivisionError"),), exact=False)
        # Sign unknown: int lanes where y >= 0, float lanes where y < 0 (Python's int.__pow__).
        return Impl(
            NUM,
            f"np.where({y} < 0, np.power({x}, {y}, dtype=np.float64), np.power({x}, np.maximum({y}, 0)))",
            "{0} ** {1}",
            (Check(f"({y} < 0) & ({x} == 0)", "ZeroDivisionError"),
             Check(f"({y} >= 0) & ({estimate} >= {EXACT_POW})", "int power beyond 2**53")),
            exact=False,
        )
    result = FLOAT
    checks = (
        Check("({0} == 0) & ({1} < 0)", "ZeroDivisionError"),
        Check("({0} < 0) & ({1} != np.floor({1}))", "negative base, fractional exponent: complex result"),
    )
    # A constant exponent in [0, 0.99] keeps |x| ** y below DBL_MAX ** 0.99 < 1e306: no overflow
    # (drag_coefficient's `reynolds ** 0.687`: four array passes fewer).
    if not (vb.const is not None and 0 <= vb.const <= 0.99):
        checks += (Check("(np.abs({r}) > 1e308) & np.isfinite({0}) & np.isfinite({1})", "OverflowError"),)
    return Impl(result, _power_expr(vb, "{0}", "{1}"), "math.pow(float({0}), float({1}))", checks, exact=False)


def _power_expr(vb: Val, x: str, y: str) -> str:
    """np.power, or runtime.power (`_vz_power`) where the exponent may be 0.5 for every element (a
    float that is not a constant other than 0.5): NumPy's fast path there is not C's pow.
    tests/rules/test_rules.py pins NumPy's other scalar exponents to C's pow."""
    if vb.type.is_intlike or (vb.const is not None and vb.const != 0.5):
        return f"np.power({x}, {y}, dtype=np.float64)"
    return f"_vz_power({x}, {y})"


def _bitwise(op: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        _require_ints(op, a, b)
        if a is BOOL and b is BOOL:
            return Impl(BOOL, f"{{0}} {op} {{1}}", f"{{0}} {op} {{1}}")
        x, y = _int(a, "{0}"), _int(b, "{1}")
        return Impl(INT, f"{x} {op} {y}", f"{_lane_int(a, '{0}')} {op} {_lane_int(b, '{1}')}")

    return rule


def _shift(op: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        _require_ints(op, a, b)
        x, y = _int(a, "{0}"), _int(b, "{1}")
        count = f"np.minimum({y}, 63)"  # Numba's shifts by 64 or more are LLVM poison
        checks = [Check(f"{y} < 0", "ValueError: negative shift count")]
        if op == "<<":
            # The shift back is clamped like the shift itself, or the whole test (and the flag)
            # would be undefined in compiled lane code.
            checks.append(Check(f"({y} > 62) | (({{r}} >> {count}) != {x})", "int64 overflow"))
        expr = f"{x} {op} {count}"
        return Impl(INT, expr, f"{_lane_int(a, '{0}')} {op} {_lane_int(b, '{1}')}", tuple(checks))

    return rule


def _require_ints(op: str, a: Type, b: Type) -> None:
    if not (a.is_intlike and b.is_intlike):
        raise VectorizeTypeError(f"'{op}' needs int operands, but one operand may be a float",
                                 hint="Python raises TypeError for bitwise operators on floats; convert with int(...)")


DIVMOD: Rule = _divmod

BINARY: dict[str, Rule] = {
    "+": _add_sub_mul("+"),
    "-": _add_sub_mul("-"),
    "*": _add_sub_mul("*"),
    "/": _true_divide,
    "//": _floordiv_mod("//", "floor_divide"),
    "%": _floordiv_mod("%", "remainder"),
    "**": _power,
    "&": _bitwise("&"),
    "|": _bitwise("|"),
    "^": _bitwise("^"),
    "<<": _shift("<<"),
    ">>": _shift(">>"),
}


# -- unary -----------------------------------------------------------------------------------------
def _negate(a: Type, va: Val) -> Impl:
    if a.is_intlike:
        x = _int(a, "{0}")
        return Impl(INT, f"-{x}", f"-{_lane_int(a, '{0}')}", (Check(f"{x} == {I64_MIN}", "int64 overflow"),))
    return Impl(a, "-{0}", "-{0}")


def _positive(a: Type, va: Val) -> Impl:
    return Impl(INT if a.is_intlike else a, _int(a, "{0}"), _lane_int(a, "{0}"))


def _invert(a: Type, va: Val) -> Impl:
    _require_ints("~", a, a)
    return Impl(INT, f"~{_int(a, '{0}')}", f"~{_lane_int(a, '{0}')}")


def _not(a: Type, va: Val) -> Impl:
    return Impl(BOOL, "~{0}" if a is BOOL else "{0} == 0", "not {0}")


UNARY: dict[str, Callable[[Type, Val], Impl]] = {"-": _negate, "+": _positive, "~": _invert, "not": _not}


def truthy(t: Type) -> str:
    """Template for Python's truth value of a number (NaN is true, -0.0 is false)."""
    return "{0}" if t is BOOL else "{0} != 0"


def compare(op: str, a: Type, b: Type) -> Impl:
    """Comparisons are exact, except int vs float beyond 2**53, where NumPy rounds the int."""
    checks: tuple[Check, ...] = ()
    if a is INT and b.is_floatlike:
        checks = (Check(beyond_exact("{0}"), "int vs float compared exactly by Python"),)
    elif b is INT and a.is_floatlike:
        checks = (Check(beyond_exact("{1}"), "int vs float compared exactly by Python"),)
    return Impl(BOOL, f"{{0}} {op} {{1}}", f"{{0}} {op} {{1}}", checks)


# -- calls -----------------------------------------------------------------------------------------
def _to_int_checks() -> tuple[Check, ...]:
    return (Check(f"~(np.abs({{0}}) < {BIG_INT})", "NaN/inf raise; beyond int64 Python returns a big int"),)


def _float_to_int(np_name: str, math_name: str) -> Rule:
    """math.floor/ceil/trunc, int(), round(): float -> int, exact ints pass through."""

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, math_name)
        if t.is_intlike:
            return Impl(INT, _int(t, "{0}"), _lane_int(t, "{0}"))
        return Impl(INT, f"np.int64(np.{np_name}({{0}}))", f"{math_name}({{0}})", _to_int_checks())

    return rule


def _unary_float(name: str, *checks: Check, exact: bool = False, np_name: str | None = None) -> Rule:
    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        return Impl(FLOAT, f"np.{np_name or name}({_float(t, '{0}')})", f"math.{name}({{0}})", checks, exact)

    return rule


def _overflow_above(limit: float, *, below: bool = True) -> Check:
    """|x| > limit (sinh, cosh...), or x > limit alone for the exponentials (exp(-1000) is 0.0,
    no error; NumPy's results there, subnormals included, are the C library's bits)."""
    if not below:
        return Check(f"{{0}} > {limit!r}", "OverflowError: math range error (conservative bound)", positive_only=True)
    # Two comparisons, not np.abs: an int operand may be INT64_MIN, whose abs wraps negative.
    return Check(f"({{0}} > {limit!r}) | ({{0}} < {-limit!r})", "OverflowError: math range error (conservative bound)")


def _domain(pred: str, negative_only: bool = False) -> Check:
    return Check(pred, "ValueError: math domain error", negative_only=negative_only)


# Calls whose result is >= 0 or NaN for every argument: a check that needs a negative operand
# cannot hold on them (abs of INT64_MIN wraps negative, but abs flags that lane itself).
NONNEGATIVE_CALLS = frozenset({"math.exp", "math.exp2", "math.cosh", "math.sqrt", "math.fabs", "math.hypot", "abs"})


def without_sign_checks(impl: Impl, operand_sign: int | None) -> Impl:
    """`impl` less the checks that need an operand {0} of the sign it cannot have (signs.py:
    1 for >= 0, -1 for <= 0, NaN included in both)."""
    if operand_sign is None:
        return impl
    kept = tuple(c for c in impl.checks if not (c.negative_only and operand_sign > 0)
                 and not (c.positive_only and operand_sign < 0))
    return impl if len(kept) == len(impl.checks) else dataclasses.replace(impl, checks=kept)


def _log(args: list[Val]) -> Impl:
    if len(args) == 2:
        a, b = _types(args, 2, "math.log")
        return Impl(FLOAT, f"np.log({_float(a, '{0}')}) / np.log({_float(b, '{1}')})", "math.log({0}) / math.log({1})",
                    (_domain("({0} <= 0) | ({1} <= 0)"), Check("{1} == 1", "ZeroDivisionError")), exact=False)
    return _unary_float("log", _domain("{0} <= 0"))(args)


def _pow_call(args: list[Val]) -> Impl:
    a, b = _types(args, 2, "math.pow")
    checks = (
        _domain("(({0} < 0) & ({1} != np.floor({1})) & np.isfinite({0}) & np.isfinite({1})) | (({0} == 0) & ({1} < 0))"),
        Check("(np.abs({r}) > 1e308) & np.isfinite({0}) & np.isfinite({1})", "OverflowError"),
    )
    return Impl(FLOAT, _power_expr(args[1], _float(a, '{0}'), _float(b, '{1}')), "math.pow({0}, {1})", checks, exact=False)


def _binary_float(name: str, np_name: str, *checks: Check, exact: bool = True) -> Rule:
    def rule(args: list[Val]) -> Impl:
        a, b = _types(args, 2, f"math.{name}")
        return Impl(FLOAT, f"np.{np_name}({_float(a, '{0}')}, {_float(b, '{1}')})", f"math.{name}({{0}}, {{1}})", checks, exact)

    return rule


def _predicate(np_name: str, name: str) -> Rule:
    def rule(args: list[Val]) -> Impl:
        _types(args, 1, f"math.{name}")
        return Impl(BOOL, f"np.{np_name}({{0}})", f"math.{name}({{0}})")

    return rule


def _scaled(name: str, factor: float) -> Rule:
    """math.degrees/radians multiply by one double constant, exactly as CPython does."""

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        return Impl(FLOAT, f"{_float(t, '{0}')} * {factor!r}", f"math.{name}({{0}})")

    return rule


def _per_lane(name: str, *checks: Check) -> Rule:
    """NumPy has no ufunc for it: call the C library per lane (exact, slow).

    Lanes where a check holds get the harmless argument 1.0 first, so garbage on masked-off lanes
    cannot raise inside the per-lane call; the checks flag the real failing lanes.
    """

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        arg = _float(t, "{0}")
        if checks:
            bad = " | ".join(f"({c.pred})" for c in checks)
            arg = f"np.where({bad}, 1.0, {arg})"
        return Impl(FLOAT, f"np.vectorize(math.{name}, otypes=[np.float64])({arg})", f"math.{name}({{0}})", checks)

    return rule


def _special(name: str, *checks: Check) -> Rule:
    """NumPy has no ufunc for it: `_vz_<name>` (special.py), NumPy code the module carries."""

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        return Impl(FLOAT, f"_vz_{name}({_float(t, '{0}')})", f"math.{name}({{0}})", checks, exact=False)

    return rule


def _abs(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "abs")
    if t.is_intlike:
        x = _int(t, "{0}")
        return Impl(INT, f"np.abs({x})", f"abs({_lane_int(t, '{0}')})", (Check(f"{x} == {I64_MIN}", "int64 overflow"),))
    return Impl(t, "np.abs({0})", "abs({0})")


def _float_call(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "float")
    return Impl(FLOAT, "{0}" if t is FLOAT else "np.float64({0})", "float({0})")


def _bool_call(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "bool")
    return Impl(BOOL, "{0}" if t is BOOL else "{0} != 0", "bool({0})")


def _round(args: list[Val]) -> Impl:
    if len(args) == 1:
        return _float_to_int("rint", "round")(args)
    t, n = _types(args, 2, "round")
    nd = args[1].const
    if not n.is_intlike or args[1].batched or not isinstance(nd, int) or not 0 <= nd <= 22:
        raise VectorizeTypeError("round(x, ndigits) is supported for a literal ndigits from 0 to 22",
                                 hint="write round(x, 2) with a constant number of digits")
    if t.is_intlike:
        return Impl(INT, _int(t, "{0}"), _lane_int(t, "{0}"))
    scale = f"{10.0 ** nd!r}"
    # np.rint(x * 10**n) / 10**n is Python's correctly rounded result unless x * 10**n sits
    # within rounding error of a half-way point, or is too large to carry a fraction: flag those
    # lanes (the re-run rounds exactly). Doubles of magnitude >= 2**52 are integers: round(x, n) is x.
    return Impl(FLOAT, f"np.where(np.abs({{0}}) >= 4503599627370496.0, {{0}}, np.rint({{0}} * {scale}) / {scale})",
                f"round({{0}}, {nd})",
                (Check(f"(np.abs(np.abs({{0}} * {scale} - np.floor({{0}} * {scale})) - 0.5) <= np.abs({{0}} * {scale}) * 2.0**-51)"
                       f" | ((np.abs({{0}} * {scale}) >= 4503599627370496.0) & (np.abs({{0}}) < 4503599627370496.0))",
                       "near a decimal half-way point, or too large for the scaled value to hold a fraction"),))


def _isclose(args: list[Val], keywords: dict[str, Val]) -> Impl:
    _types(args, 2, "math.isclose")
    rel = keywords.get("rel_tol", Val(FLOAT, False, 1e-09))
    abs_ = keywords.get("abs_tol", Val(FLOAT, False, 0.0))
    if rel.const is None or abs_.const is None or rel.const < 0 or abs_.const < 0:
        raise VectorizeTypeError("math.isclose tolerances must be non-negative constants",
                                 hint="write math.isclose(a, b, rel_tol=1e-9) with literal tolerances")
    r, t = float(rel.const), float(abs_.const)
    # CPython: a == b, or both finite and |b - a| <= max(|rel*b|, |rel*a|, abs_tol).
    expr = (f"({{0}} == {{1}}) | (~(np.isinf({{0}}) | np.isinf({{1}})) & ((np.abs({{1}} - {{0}}) <= np.abs({r!r} * {{1}})) | "
            f"(np.abs({{1}} - {{0}}) <= np.abs({r!r} * {{0}})) | (np.abs({{1}} - {{0}}) <= {t!r})))")
    return Impl(BOOL, expr, f"math.isclose({{0}}, {{1}}, rel_tol={r!r}, abs_tol={t!r})")


def _types(args: list[Val], n: int, name: str) -> list[Type]:
    if len(args) != n:
        raise VectorizeTypeError(f"{name}() takes {n} argument{'s' if n != 1 else ''} here, got {len(args)}",
                                 hint=f"see the documentation of {name}")
    types = [a.type for a in args]
    if any(not isinstance(t, Type) for t in types):
        raise VectorizeTypeError(f"{name}() takes numbers, not tuples", hint="unpack the tuple first")
    return types  # type: ignore[return-value]


CALLS: dict[str, Rule] = {
    "abs": _abs,
    "float": _float_call,
    "bool": _bool_call,
    "int": _float_to_int("trunc", "int"),
    "round": _round,
    "math.floor": _float_to_int("floor", "math.floor"),
    "math.ceil": _float_to_int("ceil", "math.ceil"),
    "math.trunc": _float_to_int("trunc", "math.trunc"),
    "math.sqrt": _unary_float("sqrt", _domain("{0} < 0", negative_only=True), exact=True),
    "math.exp": _unary_float("exp", _overflow_above(709.7, below=False)),
    "math.expm1": _unary_float("expm1", _overflow_above(709.7, below=False)),
    "math.exp2": _unary_float("exp2", _overflow_above(1023.9, below=False)),
    "math.log": _log,
    "math.log2": _unary_float("log2", _domain("{0} <= 0")),
    "math.log10": _unary_float("log10", _domain("{0} <= 0")),
    "math.log1p": _unary_float("log1p", _domain("{0} <= -1", negative_only=True)),
    "math.sin": _unary_float("sin", _domain("np.isinf({0})")),
    "math.cos": _unary_float("cos", _domain("np.isinf({0})")),
    "math.tan": _unary_float("tan", _domain("np.isinf({0})")),
    "math.asin": _unary_float("asin", _domain("np.abs({0}) > 1"), np_name="arcsin"),
    "math.acos": _unary_float("acos", _domain("np.abs({0}) > 1"), np_name="arccos"),
    "math.atan": _unary_float("atan", np_name="arctan"),
    "math.sinh": _unary_float("sinh", _overflow_above(710.4)),
    "math.cosh": _unary_float("cosh", _overflow_above(710.4)),
    "math.tanh": _unary_float("tanh"),
    "math.asinh": _unary_float("asinh", np_name="arcsinh"),
    "math.acosh": _unary_float("acosh", _domain("{0} < 1"), np_name="arccosh"),
    "math.atanh": _unary_float("atanh", _domain("np.abs({0}) >= 1"), np_name="arctanh"),
    "math.cbrt": _unary_float("cbrt"),
    "math.fabs": _unary_float("fabs", exact=True, np_name="abs"),
    "math.atan2": _binary_float("atan2", "arctan2", exact=False),
    "math.hypot": _binary_float("hypot", "hypot", Check("np.isinf({r}) & np.isfinite({0}) & np.isfinite({1})", "OverflowError"), exact=False),
    "math.copysign": _binary_float("copysign", "copysign"),
    "math.nextafter": _binary_float("nextafter", "nextafter"),
    "math.fmod": _binary_float("fmod", "fmod", _domain("(np.isinf({0}) | ({1} == 0)) & ~np.isnan({0}) & ~np.isnan({1})")),
    "math.pow": _pow_call,
    "math.isnan": _predicate("isnan", "isnan"),
    "math.isinf": _predicate("isinf", "isinf"),
    "math.isfinite": _predicate("isfinite", "isfinite"),
    "math.degrees": _scaled("degrees", 180.0 / math.pi),
    "math.radians": _scaled("radians", math.pi / 180.0),
    "math.erf": _special("erf"),
    # Subnormal results have fewer bits than the approximation keeps: those lanes use math.erfc
    # (libm per lane is exact, hence no check there).
    "math.erfc": _special("erfc", Check(special.ERFC_SUBNORMAL, "erfc below 2.2e-308: computed per lane", lane="False")),
    "math.gamma": _per_lane("gamma", _domain("(({0} <= 0) & ({0} == np.floor({0}))) | ({0} == -np.inf)"), _overflow_above(171.0),
                            Check("np.abs({0}) < 1e-300", "OverflowError: gamma of a tiny argument is ~1/x (conservative)")),
    "math.lgamma": _per_lane("lgamma", _domain("({0} <= 0) & ({0} == np.floor({0}))"), _overflow_above(1e305)),
}
# Calls with keyword arguments (constants only).
KEYWORD_CALLS: dict[str, Callable[[list[Val], dict[str, Val]], Impl]] = {"math.isclose": _isclose}

# Builtins lowered by the expression pass itself (they need laziness or n-ary folding).
SPECIAL_CALLS = frozenset({"min", "max", "pow", "divmod", "len"})

MATH_CONSTANTS = {"pi": "np.pi", "e": "np.e", "tau": repr(math.tau), "inf": "np.inf", "nan": "np.nan"}


def call_rule(name: str) -> Rule | None:
    return CALLS.get(name)


def unsupported_math(name: str) -> VectorizeTypeError:
    return VectorizeTypeError(f"{name} has no batched implementation yet",
                              hint="supported: " + ", ".join(sorted(n for n in CALLS if n.startswith("math."))))
