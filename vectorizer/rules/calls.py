"""Calls in the scalar op table (scalar.py): builtins (abs, float, int, round...) and `math.*`,
with their domain and overflow checks, and what a known operand sign lets a rule drop."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

from ..core.types import BOOL, FLOAT, INT, Type, Val
from ..errors import VectorizeTypeError
from ..runtime import special
from . import mathcalls
from .base import (
    BIG_INT,
    I64_MIN,
    Check,
    Impl,
    Rule,
    as_float,
    as_int,
    lane_int,
    power_expr,
)


# -- calls -----------------------------------------------------------------------------------------
def _to_int_checks() -> tuple[Check, ...]:
    return (Check(f"~(np.abs({{0}}) < {BIG_INT})", "NaN/inf raise; beyond int64 Python returns a big int"),)


def _float_to_int(np_name: str, math_name: str) -> Rule:
    """math.floor/ceil/trunc, int(), round(): float -> int, exact ints pass through."""

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, math_name)
        if t.is_intlike:
            return Impl(INT, as_int(t, "{0}"), lane_int(t, "{0}"))
        return Impl(INT, f"np.int64(np.{np_name}({{0}}))", f"{math_name}({{0}})", _to_int_checks())

    return rule


def float_valued_int(np_name: str) -> Impl:
    """math.floor(x) and the like of a float x read at once as a float (analysis/float_ints.py):
    the integer-valued double, +0.0 for a zero (the int 0 converts to +0.0). Python raises for a
    NaN or an infinite x (ValueError, OverflowError): flagged."""
    return Impl(FLOAT, f"np.{np_name}({{0}}) + 0.0", f"np.{np_name}({{0}}) + 0.0",
                (Check("~np.isfinite({0})", "NaN/inf raise converting to int"),))


def _unary_float(name: str, *checks: Check, exact: bool = False, np_name: str | None = None) -> Rule:
    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        return Impl(FLOAT, f"np.{np_name or name}({as_float(t, '{0}')})", f"math.{name}({{0}})", checks, exact)

    return rule


def _overflow_above(limit: float, *, below: bool = True) -> Check:
    """|x| > limit (sinh, cosh...), or x > limit alone for the exponentials (exp(-1000) is 0.0,
    no error; NumPy's results there, subnormals included, are the C library's bits)."""
    if not below:
        return Check(f"{{0}} > {limit!r}", "OverflowError: math range error (conservative bound)", positive_only=True)
    # Two comparisons, not np.abs: an int operand may be INT64_MIN, whose abs wraps negative.
    return Check(f"({{0}} > {limit!r}) | ({{0}} < {-limit!r})", "OverflowError: math range error (conservative bound)")


def _domain(pred: str, negative_only: bool = False, outside_unit: bool = False) -> Check:
    return Check(pred, "ValueError: math domain error", negative_only=negative_only, outside_unit=outside_unit)


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


def without_unit_checks(impl: Impl, within_unit: bool) -> Impl:
    """`impl` less the checks that need an operand {0} outside [-1, 1], where it is known to be
    inside or NaN (signs.py, within_unit)."""
    if not within_unit or not any(c.outside_unit for c in impl.checks):
        return impl
    return dataclasses.replace(impl, checks=tuple(c for c in impl.checks if not c.outside_unit))


def _log(args: list[Val]) -> Impl:
    if len(args) == 2:
        a, b = _types(args, 2, "math.log")
        return Impl(FLOAT, f"np.log({as_float(a, '{0}')}) / np.log({as_float(b, '{1}')})", "math.log({0}) / math.log({1})",
                    (_domain("({0} <= 0) | ({1} <= 0)"), Check("{1} == 1", "ZeroDivisionError")), exact=False)
    return _unary_float("log", _domain("{0} <= 0"))(args)


def _pow_call(args: list[Val]) -> Impl:
    a, b = _types(args, 2, "math.pow")
    checks = (
        _domain("(({0} < 0) & ({1} != np.floor({1})) & np.isfinite({0}) & np.isfinite({1})) | (({0} == 0) & ({1} < 0))"),
        Check("(np.abs({r}) > 1e308) & np.isfinite({0}) & np.isfinite({1})", "OverflowError"),
    )
    return Impl(FLOAT, power_expr(args[1], as_float(a, '{0}'), as_float(b, '{1}')), "math.pow({0}, {1})", checks, exact=False)


def _binary_float(name: str, np_name: str, *checks: Check, exact: bool = True) -> Rule:
    def rule(args: list[Val]) -> Impl:
        a, b = _types(args, 2, f"math.{name}")
        return Impl(FLOAT, f"np.{np_name}({as_float(a, '{0}')}, {as_float(b, '{1}')})", f"math.{name}({{0}}, {{1}})", checks, exact)

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
        return Impl(FLOAT, f"{as_float(t, '{0}')} * {factor!r}", f"math.{name}({{0}})")

    return rule


def _per_lane(name: str, *checks: Check) -> Rule:
    """NumPy has no ufunc for it: call the C library per lane (exact, slow).

    Lanes where a check holds get the harmless argument 1.0 first, so garbage on masked-off lanes
    cannot raise inside the per-lane call; the checks flag the real failing lanes.
    """

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        arg = as_float(t, "{0}")
        if checks:
            bad = " | ".join(f"({c.pred})" for c in checks)
            arg = f"np.where({bad}, 1.0, {arg})"
        return Impl(FLOAT, f"np.vectorize(math.{name}, otypes=[np.float64])({arg})", f"math.{name}({{0}})", checks)

    return rule


def _special(name: str, *checks: Check) -> Rule:
    """NumPy has no ufunc for it: `_vz_<name>` (special.py), NumPy code the module carries."""

    def rule(args: list[Val]) -> Impl:
        (t,) = _types(args, 1, f"math.{name}")
        return Impl(FLOAT, f"_vz_{name}({as_float(t, '{0}')})", f"math.{name}({{0}})", checks, exact=False)

    return rule


def _abs(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "abs")
    if t.is_intlike:
        x = as_int(t, "{0}")
        return Impl(INT, f"np.abs({x})", f"abs({lane_int(t, '{0}')})", (Check(f"{x} == {I64_MIN}", "int64 overflow"),))
    return Impl(t, "np.abs({0})", "abs({0})")


def _float_call(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "float")
    return Impl(FLOAT, "{0}" if t is FLOAT else "np.float64({0})", "float({0})")


def _bool_call(args: list[Val]) -> Impl:
    (t,) = _types(args, 1, "bool")
    return Impl(BOOL, "{0}" if t is BOOL else "{0} != 0", "bool({0})")


def _index_call(args: list[Val]) -> Impl:
    """operator.index(n): an int itself, a bool as its int; a float raises TypeError on every lane."""
    (t,) = _types(args, 1, "operator.index")
    if t not in (INT, BOOL):
        raise VectorizeTypeError("operator.index() of a float (or a value that is a float on some lanes) raises "
                                 "TypeError: 'float' object cannot be interpreted as an integer",
                                 hint="pass ints (an int array), or call int(x) where truncation is meant")
    return Impl(INT, as_int(t, "{0}"), lane_int(t, "{0}"))


def _round(args: list[Val]) -> Impl:
    if len(args) == 1:
        return _float_to_int("rint", "round")(args)
    t, n = _types(args, 2, "round")
    nd = args[1].const
    if not n.is_intlike or args[1].batched or not isinstance(nd, int) or not 0 <= nd <= 22:
        raise VectorizeTypeError("round(x, ndigits) is supported for a literal ndigits from 0 to 22",
                                 hint="write round(x, 2) with a constant number of digits")
    if t.is_intlike:
        return Impl(INT, as_int(t, "{0}"), lane_int(t, "{0}"))
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
    "operator.index": _index_call,
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
    "math.asin": _unary_float("asin", _domain("np.abs({0}) > 1", outside_unit=True), np_name="arcsin"),
    "math.acos": _unary_float("acos", _domain("np.abs({0}) > 1", outside_unit=True), np_name="arccos"),
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
# math.remainder, modf, gcd, comb, factorial... and pow(a, b, m) (three arguments; two are
# lowered by the expression passes as `**`).
CALLS.update(mathcalls.MATH_CALLS)
CALLS["pow"] = mathcalls.pow3
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
