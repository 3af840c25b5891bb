"""NumPy functions of numbers with more than a ufunc's shape: np.around / np.round (a scale),
np.modf and np.broadcast_arrays (tuples). See arrays.py; array_numbers.py makes NumPy values of
numbers, analysis/one_d.py follows one-element arrays (np.atleast_1d of a number).

    np.around(x, decimals=0), np.round(x, decimals)
        of a float (a number, a NumPy scalar, a one-element array): NumPy's float64 value, which
        is not Python's round(): for decimals > 0 it is rint(x * 10**d) / 10**d, for decimals < 0
        rint(x / 10**-d) * 10**-d, for 0 rint(x) (half to even), with 10**d NumPy's own
        power_of_ten (a product of 1e9 and tens past 1e8, not the correctly rounded 10.0**d)
        of an int, decimals >= 0: the int as a NumPy int (NumPy returns it unchanged)
        decimals: an int the same on every lane (a literal, or an argument: lane code then computes
        the power of ten per call, _vz_around); an int x with decimals < 0 or not a literal (NumPy
        rounds in float64 and casts back: the CPU's cast near 2**63) and bools are refused
    np.modf(x)
        of a number: (fractional part, integral part), NumPy float64 values, each with the sign of
        x; modf(±inf) = (±0.0, ±inf); an int is converted to float64 first
    np.broadcast_arrays(a, b, ...)
        of numbers and NumPy scalars: a tuple of 0-d arrays (each keeps its own dtype); with one-
        element arrays among them (np.atleast_1d): a tuple of one-element arrays. On a lane each
        item is its number, with NumPy's semantics from there on.

Tuple results are unpacked (`frac, whole = np.modf(x)`) or indexed by a literal (`np.modf(x)[1]`):
the items are NumPy values (`Val.numpy`, and `zero_d` / `one_d` as the tuple's).
"""

from __future__ import annotations

from ..core.types import BOOL, FLOAT, INT, NUM, ArrayType, TupleType, Type, Val
from ..errors import VectorizeTypeError
from .array_base import Arg, ArrayRule, arity

# NumPy calls that return tuples (frontend/arity.py counts their values as unknown)
TUPLE_CALLS = frozenset({"np.modf", "np.broadcast_arrays"})


def power_of_ten(n: int) -> float:
    """NumPy's power_of_ten (numpy/_core/src/multiarray/calculation.c): exact up to 1e8, then
    1e9 multiplied by 10.0 once per further decade, rounding at each step as C does."""
    p10 = (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8)
    if n < 9:
        return p10[n]
    ret = 1e9
    for _ in range(n - 9):
        ret *= 10.0
    return ret


def decimals(name: str, args: list[Val], kw: dict[str, Val]) -> int | None:
    """The `decimals` of np.around(x, decimals): 0 when absent, the int when it is a constant,
    None for an int that is the same on every lane but known only when called."""
    d = kw.get("decimals", args[1] if len(args) > 1 else None)
    if d is None:
        return 0
    if d.batched or d.type is not INT or d.one_d is not False or d.zero_d is not False:
        raise VectorizeTypeError(f"{name}(x, decimals) with decimals that is not an int the same on every lane",
                                 hint="pass decimals as an int (NumPy raises TypeError for an array of them)")
    return d.const if isinstance(d.const, int) and not isinstance(d.const, bool) else None


def _number(name: str, x: Val) -> Type:
    if isinstance(x.type, TupleType) or x.type is NUM or not isinstance(x.type, Type):
        raise VectorizeTypeError(f"{name} of a tuple, or of a number that is an int on some lanes and a float on others",
                                 hint="NumPy makes an int64 array of one and a float64 array of the other; "
                                      "convert with float(...) first")
    if x.type is BOOL:
        raise VectorizeTypeError(f"{name} of a bool is not supported here", hint="convert with float(...) first")
    if x.one_d is None or x.zero_d is None:
        raise VectorizeTypeError(f"{name} of a value that is an array on some paths and a number on others",
                                 hint="convert it the same way on every path")
    return x.type


def around(name: str) -> ArrayRule:
    """np.around / np.round."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity(f"np.{name}", args, 1, 2)
        x = args[0]
        d = decimals(f"np.{name}", args, kw)
        if isinstance(x.type, ArrayType):
            if x.type.elem is not FLOAT:
                raise VectorizeTypeError(f"np.{name} of an int or bool array is not supported here",
                                         hint="convert it with .astype(np.float64) first")
            return Val(x.type, x.batched, fresh=True)
        t = _number(f"np.{name}", x)
        if t is INT and (d is None or d < 0):
            raise VectorizeTypeError(f"np.{name} of an int with decimals < 0 (or not a constant): NumPy rounds it in "
                                     "float64 and casts back to int64 (the CPU's cast near 2**63)",
                                     hint="write it with // and *, or pass decimals as a literal int >= 0")
        # a NumPy scalar (NumPy returns one of a 0-d array too), a one-element array of one
        return Val(t, x.batched, numpy=True, zero_d=bool(x.one_d), one_d=x.one_d)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        given = kw.get("decimals", args[1] if len(args) > 1 else None)
        return f"np.{name}({args[0].text}{f', {given.text}' if given is not None else ''})"

    return ArrayRule("one_d", result, lower, frozenset({"decimals"}))


def modf() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.modf", args, 1, 1)
        x = args[0]
        if isinstance(x.type, ArrayType):
            raise VectorizeTypeError("np.modf of an array is not supported here", hint="call it on a number")
        _number("np.modf", x)
        return Val(TupleType((FLOAT, FLOAT)), x.batched, numpy=True, zero_d=bool(x.one_d), one_d=x.one_d)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        return f"np.modf({args[0].text})"

    return ArrayRule("one_d", result, lower)


def broadcast_arrays() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if not args:
            raise VectorizeTypeError("np.broadcast_arrays() of nothing", hint="pass the values to broadcast")
        types = []
        for x in args:
            if isinstance(x.type, ArrayType):
                raise VectorizeTypeError("np.broadcast_arrays of an array is not supported here",
                                         hint="it is supported on numbers and one-element arrays (np.atleast_1d)")
            types.append(_number("np.broadcast_arrays", x))
        one = any(x.one_d for x in args)  # one of shape (1,) makes them all so; else all are 0-d
        return Val(TupleType(tuple(types)), any(x.batched for x in args), numpy=True, zero_d=True, one_d=one)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        if not any(a.val.batched for a in args):
            return f"np.broadcast_arrays({', '.join(a.text for a in args)})"
        # batched: each item is its lanes (the numbers of a lane, as 0-d or one-element arrays)
        return f"({''.join(f'{a.text}, ' for a in args)})"

    return ArrayRule("one_d", result, lower)
