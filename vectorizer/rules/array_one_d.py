"""NumPy calls of code written for scalars and arrays alike (analysis/one_d.py). See arrays.py.

    np.atleast_1d(x)      of a number: a one-element array (`Val.one_d`); of an array: itself
    np.isscalar(x)        True of a number or a NumPy scalar, False of an array (decided here)
    x.item()              of a NumPy scalar or a one-element array: the Python number
    x.astype(dtype)       of a NumPy scalar or an array: NumPy's cast (float to int truncates; NaN,
                          inf and values out of range are what the CPU's conversion gives, as NumPy)

A lane of a batched number is stored as an element of a 1-d array of the lanes, so the batched
form of a one-element array (or a NumPy scalar) is that array: np.atleast_1d and .item() change
what the analysis knows, not the values. A uniform one is np.atleast_1d's own result.
"""

from __future__ import annotations

from ..core.types import BOOL, FLOAT, INT, NUM, ArrayType, TupleType, Type, Val
from ..errors import VectorizeTypeError
from .array_base import Arg, ArrayRule, arity, atom
from .array_constructors import DTYPE_NAMES


def _number(name: str, x: Val) -> Type:
    if isinstance(x.type, TupleType):
        raise VectorizeTypeError(f"{name} of a tuple is not supported here", hint="index the tuple instead")
    if x.type is NUM or not isinstance(x.type, Type):
        raise VectorizeTypeError(f"{name} of a number that is an int on some lanes and a float on others",
                                 hint="NumPy makes an int64 array of one and a float64 array of the other; "
                                      "convert with float(...) first")
    return x.type


def atleast_1d() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.atleast_1d", args, 1, 1)
        x = args[0]
        if isinstance(x.type, ArrayType):
            if x.type.rank == 0:
                raise VectorizeTypeError("np.atleast_1d of a 0-d array is not supported here", hint="pass the number")
            return x
        if x.one_d:
            return x  # already one: NumPy returns it
        if x.zero_d is not False or x.one_d is None:
            raise VectorizeTypeError("np.atleast_1d of a 0-d array (np.asarray of a number), or of a value that is a "
                                     "one-element array on some paths only, is not supported here",
                                     hint="call np.atleast_1d on the number")
        return Val(_number("np.atleast_1d", x), x.batched, numpy=True, zero_d=True, one_d=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        return x.text if x.val.batched or isinstance(x.val.type, ArrayType) or x.val.one_d else f"np.atleast_1d({x.text})"

    return ArrayRule("one_d", result, lower)


def isscalar() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.isscalar", args, 1, 1)
        x = args[0]
        if isinstance(x.type, TupleType):
            return Val(BOOL, False, False)  # a tuple is not a scalar
        if x.one_d is None or x.zero_d is None:
            raise VectorizeTypeError("np.isscalar of a value that is an array on some paths and a number on others",
                                     hint="convert it the same way on every path")
        return Val(BOOL, False, not (isinstance(x.type, ArrayType) or x.one_d or x.zero_d))

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        return repr(result.const)

    return ArrayRule("one_d", result, lower)


def item() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("x.item", args, 1, 1)
        x = args[0]
        if isinstance(x.type, ArrayType) or not (x.numpy or x.zero_d or x.one_d):
            what = "an array (its size may not be 1)" if isinstance(x.type, ArrayType) else "a Python number"
            raise VectorizeTypeError(f".item() of {what} is not supported here",
                                     hint=".item() gives the number of a NumPy scalar or of a one-element array")
        if x.one_d is None or x.zero_d is None:
            raise VectorizeTypeError(".item() of a value that is an array on some paths and a number on others",
                                     hint="convert it the same way on every path")
        return Val(_number(".item()", x), x.batched)  # a Python number: Python's semantics from here on

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        return x.text if x.val.batched else f"np.asarray({x.text}).item()"

    return ArrayRule("one_d", result, lower)


def astype() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("x.astype", args, 1, 1)
        x = args[0]
        dtype = kw.get("dtype")
        t = DTYPE_NAMES.get(dtype.const) if dtype is not None and isinstance(dtype.const, str) else None
        if t is None:
            raise VectorizeTypeError(".astype() is supported here with np.float64, np.int64 or np.bool_ (float, int, "
                                     "bool)", hint="other dtypes (np.int32, 'i'...) wrap at other widths")
        if isinstance(x.type, ArrayType):
            return Val(ArrayType(t, x.type.shape), x.batched, fresh=True)
        if not (x.numpy or x.zero_d or x.one_d):
            raise VectorizeTypeError(".astype() of a Python number (it has no such method) is not supported here",
                                     hint="convert with float(...) or int(...)")
        if x.one_d is None or x.zero_d is None:
            raise VectorizeTypeError(".astype() of a value that is an array on some paths and a number on others",
                                     hint="convert it the same way on every path")
        _number(".astype()", x)
        return Val(t, x.batched, numpy=True, zero_d=x.zero_d, one_d=x.one_d)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        dtype = {FLOAT: "np.float64", INT: "np.int64", BOOL: "np.bool_"}[result.type if isinstance(result.type, Type)
                                                                         else result.type.elem]  # type: ignore[union-attr]
        # a uniform NumPy value may be written as a Python number (a folded constant): NumPy's cast all the same
        return f"{atom(x.text)}.astype({dtype})" if x.val.batched else f"np.asarray({x.text}).astype({dtype})"

    return ArrayRule("one_d", result, lower, frozenset({"dtype"}))
