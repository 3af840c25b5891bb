"""Operators in the scalar op table (scalar.py): + - * / // % ** divmod, bitwise and shifts,
unary - + ~ not, comparisons and truth values, with the checks that flag where Python raises."""

from __future__ import annotations

from collections.abc import Callable
from math import isqrt

from ..core.types import BOOL, FLOAT, INT, NUM, TupleType, Type, Val, arith
from ..errors import VectorizeTypeError
from .base import (
    BIG_INT,
    EXACT_POW,
    I64_MAX,
    I64_MIN,
    Check,
    Impl,
    Rule,
    as_int,
    beyond_exact,
    lane_int,
    num_exact,
    power_expr,
)

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
            x, y = as_int(a, "{0}"), as_int(b, "{1}")
            lx, ly = lane_int(a, "{0}"), lane_int(b, "{1}")
            fast = _const_overflow(op, va, vb)
            pred = fast.format(x, y) if fast else _INT_OVERFLOW[op].format(x, y, r="{r}")
            lane = None if fast or op not in _INT_OVERFLOW_BEFORE else _INT_OVERFLOW_BEFORE[op].format(lx, ly)
            check = Check(pred, "int64 overflow (Python ints are unbounded)", lane)
            return Impl(INT, f"{x} {op} {y}", f"{lx} {op} {ly}", (check,))
        # A bool operand is an int here too (NumPy refuses bool `-`; a NUM may hold a bool).
        return Impl(result, f"{as_int(a, '{0}')} {op} {as_int(b, '{1}')}", f"{{0}} {op} {{1}}", num_exact(result))

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
            x, y = as_int(a, "{0}"), as_int(b, "{1}")
            if op == "//":
                checks.append(Check(f"({x} == {I64_MIN}) & ({y} == -1)", "int64 overflow"))
            return Impl(INT, f"np.{np_name}({x}, {y})", f"{lane_int(a, '{0}')} {op} {lane_int(b, '{1}')}", tuple(checks))
        return Impl(result, f"np.{np_name}({{0}}, {{1}})", f"{{0}} {op} {{1}}", tuple(checks) + num_exact(result))

    return rule


def _divmod(a: Type, b: Type, va: Val, vb: Val) -> Impl:
    q = _floordiv_mod("//", "floor_divide")(a, b, va, vb)
    result = arith(a, b)
    x, y = as_int(a, "{0}"), as_int(b, "{1}")
    return Impl(TupleType((result, result)), f"np.divmod({x}, {y})", "divmod({0}, {1})",
                tuple(c for c in q.checks if "{r}" not in c.pred))


def _power(a: Type, b: Type, va: Val, vb: Val) -> Impl:
    if a.is_intlike and b.is_intlike:
        x, y = as_int(a, "{0}"), as_int(b, "{1}")
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
    return Impl(result, power_expr(vb, "{0}", "{1}"), "math.pow(float({0}), float({1}))", checks, exact=False)


def _float_operand(a: Type, b: Type) -> Impl | None:
    """A bitwise operator or shift with a float operand: Python (and NumPy, for its float64s)
    raises TypeError on every lane that gets there. Those lanes are flagged, and their re-run by
    the scalar function raises it, after whatever the line raises first; the value is a
    placeholder no lane keeps. An operand that may be either (NUM) is refused, as before."""
    if FLOAT not in (a, b) or NUM in (a, b):
        return None
    both = "({0} != {0}) | ({1} != {1}) | ({0} == {0}) | ({1} == {1})"  # true, of the operands' shape
    return Impl(INT, f"({both}) * 0", "0", (Check(both, "TypeError: a bitwise operator of a float"),))


def _bitwise(op: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        raising = _float_operand(a, b)
        if raising is not None:
            return raising
        _require_ints(op, a, b)
        if a is BOOL and b is BOOL:
            return Impl(BOOL, f"{{0}} {op} {{1}}", f"{{0}} {op} {{1}}")
        x, y = as_int(a, "{0}"), as_int(b, "{1}")
        return Impl(INT, f"{x} {op} {y}", f"{lane_int(a, '{0}')} {op} {lane_int(b, '{1}')}")

    return rule


def _shift(op: str) -> Rule:
    def rule(a: Type, b: Type, va: Val, vb: Val) -> Impl:
        raising = _float_operand(a, b)
        if raising is not None:
            return raising
        _require_ints(op, a, b)
        x, y = as_int(a, "{0}"), as_int(b, "{1}")
        count = f"np.minimum({y}, 63)"  # Numba's shifts by 64 or more are LLVM poison
        checks = [Check(f"{y} < 0", "ValueError: negative shift count")]
        if op == "<<":
            # The shift back is clamped like the shift itself, or the whole test (and the flag)
            # would be undefined in compiled lane code.
            checks.append(Check(f"({y} > 62) | (({{r}} >> {count}) != {x})", "int64 overflow"))
        expr = f"{x} {op} {count}"
        return Impl(INT, expr, f"{lane_int(a, '{0}')} {op} {lane_int(b, '{1}')}", tuple(checks))

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
        x = as_int(a, "{0}")
        return Impl(INT, f"-{x}", f"-{lane_int(a, '{0}')}", (Check(f"{x} == {I64_MIN}", "int64 overflow"),))
    return Impl(a, "-{0}", "-{0}")


def _positive(a: Type, va: Val) -> Impl:
    return Impl(INT if a.is_intlike else a, as_int(a, "{0}"), lane_int(a, "{0}"))


def _invert(a: Type, va: Val) -> Impl:
    if a is FLOAT:  # TypeError on every lane that gets there (see _float_operand)
        every = "({0} != {0}) | ({0} == {0})"
        return Impl(INT, f"({every}) * 0", "0", (Check(every, "TypeError: ~ of a float"),))
    _require_ints("~", a, a)
    return Impl(INT, f"~{as_int(a, '{0}')}", f"~{lane_int(a, '{0}')}")


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
