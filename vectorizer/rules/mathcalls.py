"""Calls of the scalar op table (scalar.py) with exact integer or exact float results:
`math.remainder`, `modf`, `frexp`, `ldexp`, `gcd`, `lcm`, `factorial`, `comb`, `perm`, `isqrt`,
the method `n.bit_length()` ("int.bit_length") and three-argument `pow(a, b, m)`. calls.py adds them to `CALLS`.

NumPy forms are runtime/intmath.py's helpers (`_vz_comb`...), which generated modules carry;
per-lane (Numba) forms are helpers of the same names, codegen/numba_intmath.py. A lane whose
int result may leave int64 comes back as -1 from a function that is never negative there, and
its check says "int64 overflow": the runtime re-runs the scalar function on it, which gives the
exact int (stored when it fits, else the engine's integer-overflow refusal) or Python's error.
An int function of a float raises TypeError in Python on every lane that calls it: the rule
flags all of them (the re-run raises it); a value that may be either (NUM) is refused.
"""

from __future__ import annotations

from ..core.types import FLOAT, INT, NUM, TupleType, Type, Val
from ..errors import VectorizeTypeError
from .base import Check, Impl, Rule, as_float, as_int

_OVERFLOW = "int64 overflow (Python ints are unbounded)"


def _kinds(args: list[Val], counts: tuple[int, ...], name: str) -> list[Type]:
    if len(args) not in counts:
        raise VectorizeTypeError(f"{name}() takes {' or '.join(map(str, counts))} arguments here, got {len(args)}",
                                 hint=f"see the documentation of {name}")
    types = [a.type for a in args]
    if any(not isinstance(t, Type) for t in types):
        raise VectorizeTypeError(f"{name}() takes numbers, not tuples", hint="unpack the tuple first")
    return types  # type: ignore[return-value]


def _ints(args: list[Val], counts: tuple[int, ...], name: str) -> tuple[list[str], tuple[Check, ...]]:
    """The operands as int64 slots, and the check that flags every lane when one is a float."""
    types = _kinds(args, counts, name)
    if any(t is NUM for t in types):
        raise VectorizeTypeError(f"{name}() of a value that may be an int or a float",
                                 hint="Python raises TypeError for a float: convert with int(...) first")
    floats = [i for i, t in enumerate(types) if t.is_floatlike]
    checks: tuple[Check, ...] = ()
    if floats:  # TypeError on every lane (a re-run raises it): no value is ever read
        slot = f"np.float64({{{floats[0]}}})"
        checks = (Check(f"np.isnan({slot}) | ~np.isnan({slot})", "TypeError: a float is not an integer"),)
    slots = [f"np.int64(np.isnan({{{i}}}))" if t.is_floatlike else as_int(t, f"{{{i}}}") for i, t in enumerate(types)]
    return slots, checks


def _remainder(args: list[Val]) -> Impl:
    a, b = _kinds(args, (2,), "math.remainder")
    x, y = as_float(a, "{0}"), as_float(b, "{1}")
    domain = Check("(np.isinf({0}) & ~np.isnan({1})) | (({1} == 0) & ~np.isnan({0}))", "ValueError: math domain error")
    return Impl(FLOAT, f"_vz_remainder({x}, {y})", "math.remainder({0}, {1})", (domain,))


def _modf(args: list[Val]) -> Impl:
    (a,) = _kinds(args, (1,), "math.modf")
    return Impl(TupleType((FLOAT, FLOAT)), f"_vz_modf({as_float(a, '{0}')})", "math.modf({0})")


def _frexp(args: list[Val]) -> Impl:
    (a,) = _kinds(args, (1,), "math.frexp")
    return Impl(TupleType((FLOAT, INT)), f"_vz_frexp({as_float(a, '{0}')})", "math.frexp({0})")


def _ldexp(args: list[Val]) -> Impl:
    a, b = _kinds(args, (2,), "math.ldexp")
    if b is NUM:
        raise VectorizeTypeError("math.ldexp() of an exponent that may be a float",
                                 hint="Python raises TypeError for a float exponent: convert with int(...) first")
    checks = (Check("np.isinf({r}) & np.isfinite({0})", "OverflowError: math range error"),)
    if b.is_floatlike:
        checks += (Check("np.isnan({1}) | ~np.isnan({1})", "TypeError: a float is not an integer"),)
        exponent = "np.int64(np.isnan({1}))"
    else:  # beyond +-2200 every double is 0 or inf: the clip keeps the value and fits any C int
        exponent = f"np.clip({as_int(b, '{1}')}, -2200, 2200)"
    return Impl(FLOAT, f"np.ldexp({as_float(a, '{0}')}, {exponent})", "math.ldexp({0}, {1})", checks)


def _gcd(args: list[Val]) -> Impl:
    slots, checks = _ints(args, tuple(range(0, 9)), "math.gcd")
    if not slots:
        return Impl(INT, "0", "0")
    expr = f"np.abs({slots[0]})" if len(slots) == 1 else f"np.gcd({slots[0]}, {slots[1]})"
    for s in slots[2:]:
        expr = f"np.gcd({expr}, {s})"
    # np.gcd's (and abs's) only wrong answers: -2**63, where Python's is 2**63
    return Impl(INT, expr, "", checks + (Check("{r} < 0", _OVERFLOW),))


def _lcm(args: list[Val]) -> Impl:
    slots, checks = _ints(args, (0, 1, 2), "math.lcm")
    if not slots:
        return Impl(INT, "1", "1")
    expr = f"np.abs({slots[0]})" if len(slots) == 1 else f"_vz_lcm({slots[0]}, {slots[1]})"
    return Impl(INT, expr, "", checks + (Check("{r} < 0", _OVERFLOW),))


def _factorial(args: list[Val]) -> Impl:
    (n,), checks = _ints(args, (1,), "math.factorial")
    return Impl(INT, f"_vz_factorial({n})", "", checks + (
        Check(f"{n} < 0", "ValueError: factorial() not defined for negative values"),
        Check(f"{n} > 20", _OVERFLOW)))


def _comb_perm(name: str) -> Rule:
    def rule(args: list[Val]) -> Impl:
        if name == "perm" and len(args) == 1:
            return _factorial(args)
        (n, k), checks = _ints(args, (2,), f"math.{name}")
        return Impl(INT, f"_vz_{name}({n}, {k})", "", checks + (
            Check(f"({n} < 0) | ({k} < 0)", "ValueError: n and k must be non-negative integers"),
            Check("{r} < 0", _OVERFLOW)))

    return rule


def _isqrt(args: list[Val]) -> Impl:
    (n,), checks = _ints(args, (1,), "math.isqrt")
    return Impl(INT, f"_vz_isqrt({n})", "", checks + (Check(f"{n} < 0", "ValueError: isqrt() argument must be nonnegative"),))


def _bit_length(args: list[Val]) -> Impl:
    """n.bit_length(): a float receiver has no such method (AttributeError on every lane: flagged)."""
    (n,), checks = _ints(args, (1,), "int.bit_length")
    return Impl(INT, f"_vz_bit_length({n})", "", checks)


def pow3(args: list[Val]) -> Impl:
    """pow(a, b, m) on ints: lanes with m == 0 (ValueError), |m| beyond 3037000499 (products
    beyond int64) or b == -2**63 are re-run per lane, and so are those with a negative b whose
    base has no inverse modulo m (ValueError): there the helper gives m, which no result is
    (|result| < |m|)."""
    (a, b, m), checks = _ints(args, (3,), "pow")
    return Impl(INT, f"_vz_powmod({a}, {b}, {m})", "", checks + (
        Check(f"{m} == 0", "ValueError: pow() 3rd argument cannot be 0"),
        Check(f"({m} > 3037000499) | ({m} < -3037000499) | ({b} == -9223372036854775807 - 1)",
              "products beyond int64: computed per lane"),
        Check(f"({b} < 0) & ({{r}} == {m})", "ValueError: base is not invertible for the given modulus")))


MATH_CALLS: dict[str, Rule] = {
    "math.remainder": _remainder,
    "math.modf": _modf,
    "math.frexp": _frexp,
    "math.ldexp": _ldexp,
    "math.gcd": _gcd,
    "math.lcm": _lcm,
    "math.factorial": _factorial,
    "math.comb": _comb_perm("comb"),
    "math.perm": _comb_perm("perm"),
    "math.isqrt": _isqrt,
    "int.bit_length": _bit_length,  # the method, n.bit_length() (frontend/fence_attributes.py: int_method)
}
