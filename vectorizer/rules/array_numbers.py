"""NumPy calls that make a NumPy value of a number, as code written for scalars and arrays alike
does (`s = np.asanyarray(s)`, `p = np.float64(p)`). See arrays.py.

    np.asarray(x), np.asanyarray(x), np.array(x)   of a number: a 0-d array (`Val.zero_d`)
                                                   of a one-element array or an array: that array
                                                   (np.array: a copy)
    np.float64(x)                                  of a number: a NumPy float (a scalar)
    np.int64(n)                                    of an int or a bool: a NumPy int (frontend/astype_calls.py
                                                   makes np.int64(x) np.int64(int(x)))

On a lane the value is the number, with NumPy's semantics from then on: its arithmetic warns
where Python's raises (float division by zero is inf, an int64 wraps), which the lowerings keep
by flag and patch where they compute Python's. A 0-d array's `**` is NumPy's array power, not
the C library's pow that a NumPy scalar's `**` calls (analysis/exprs.py, ops_to_numpy/arrays.py).
A number that is an int on some lanes and a float on others is refused: NumPy makes an int64
array of one and a float64 array of the other, whose arithmetic differs.
"""

from __future__ import annotations

from ..core.types import BOOL, FLOAT, INT, NUM, ArrayType, TupleType, Val
from ..errors import VectorizeTypeError
from .array_base import Arg, ArrayRule, arity
from .array_constructors import DTYPE_NAMES


def _dtype(name: str, kw: dict[str, Val], x: Val) -> object:
    """dtype=float of anything; dtype=int or bool of a number: of a float, NumPy's cast where it is a
    NumPy value (.astype's: truncation, the CPU's value for NaN and out of range); of a Python
    float NumPy converts as int() does (ValueError for NaN...), which this rule does not flag: refused."""
    dtype = kw.get("dtype")
    if dtype is None:
        return None
    t = DTYPE_NAMES.get(dtype.const) if isinstance(dtype.const, str) else None
    python_float = x.type is FLOAT and not (x.numpy or x.zero_d or x.one_d)
    if t is None or (t is not FLOAT and (isinstance(x.type, ArrayType) or (t is INT and python_float))):
        raise VectorizeTypeError(f"{name}(..., dtype={dtype.const}) is not supported here",
                                 hint="use dtype=float (or np.float64), or convert with int(...) or bool(...) first")
    return t


def _number(name: str, x: Val) -> None:
    if isinstance(x.type, TupleType):
        raise VectorizeTypeError(f"{name} of a tuple is not supported here", hint="index the tuple instead")
    if x.type is NUM:
        raise VectorizeTypeError(f"{name} of a number that is an int on some lanes and a float on others",
                                 hint="NumPy makes an int64 array of one and a float64 array of the other; "
                                      "convert with float(...) first")


DTYPES = {FLOAT: "np.float64", INT: "np.int64", BOOL: "np.bool_"}


def as_array(name: str) -> ArrayRule:
    """np.asarray / np.asanyarray / np.array."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity(f"np.{name}", args, 1, 1)
        x = args[0]
        t = _dtype(f"np.{name}", kw, x)
        if isinstance(x.type, ArrayType):
            elem = t or x.type.elem
            return Val(ArrayType(elem, x.type.shape), x.batched, fresh=name == "array" or elem is not x.type.elem)
        _number(f"np.{name}", x)
        # of a one-element array (np.atleast_1d): that array (np.array: a copy, which may be written into)
        return Val(t or x.type, x.batched, numpy=True, fresh=name == "array", zero_d=True, one_d=x.one_d)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        if "dtype" in kw and result.type in (INT, BOOL):  # NumPy's cast (.astype's), of a folded constant too
            return f"np.asarray({x.text}).astype({DTYPES[result.type]})"  # type: ignore[index]
        dtype = ", dtype=np.float64" if "dtype" in kw else ""
        if isinstance(x.val.type, ArrayType):
            return f"np.{'array' if name == 'array' else 'asarray'}({x.text}{dtype})"
        # a uniform number becomes a 0-d array, as on each lane: NumPy's semantics from here on
        return f"np.asarray({x.text}{dtype})" if dtype or not x.val.batched else x.text

    return ArrayRule("convert", result, lower, frozenset({"dtype"}))


def float64() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.float64", args, 1, 1)
        x = args[0]
        if isinstance(x.type, ArrayType):
            raise VectorizeTypeError("np.float64 of an array is not supported here", hint="use x.astype(np.float64)")
        if isinstance(x.type, TupleType):
            raise VectorizeTypeError("np.float64 of a tuple", hint="convert one number at a time")
        return Val(FLOAT, x.batched, numpy=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        return f"np.asarray({x.text}, dtype=np.float64)" if x.val.batched else f"np.float64({x.text})"

    return ArrayRule("convert", result, lower)


def int64() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.int64", args, 1, 1)
        x = args[0]
        if isinstance(x.type, ArrayType | TupleType) or x.one_d is not False or x.zero_d is not False:
            raise VectorizeTypeError("np.int64 of an array is not supported here", hint="use x.astype(np.int64)")
        if x.type not in (INT, BOOL):
            raise VectorizeTypeError("np.int64 of a float is supported here as np.int64(int(x))",
                                     hint="write np.int64(int(x)), or int(x)")
        return Val(INT, x.batched, numpy=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        if x.val.batched:
            return x.text if x.val.type is INT else f"np.asarray({x.text}, dtype=np.int64)"
        return f"np.int64({x.text})"

    return ArrayRule("convert", result, lower)
