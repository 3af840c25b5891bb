"""Per-example array rules that make a fresh array: np.zeros, np.ones, np.empty, np.full,
np.arange, the *_like forms, np.copy and np.array."""

from __future__ import annotations

from ..core.types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    TupleType,
    Type,
    Val,
    elem,
)
from ..errors import VectorizeTypeError
from .array_base import Arg, ArrayRule, arity, atom, pad, shape_of

# -- constructors ----------------------------------------------------------------------------
DTYPE_NAMES = {"float": FLOAT, "int": INT, "bool": BOOL, "np.float64": FLOAT, "np.int64": INT, "np.bool_": BOOL}


def _dtype(kw: dict[str, Val]) -> Type | None:
    """The element type `dtype=` asks for (None: not given); other dtypes are refused."""
    dtype = kw.get("dtype")
    if dtype is None:
        return None
    t = DTYPE_NAMES.get(dtype.const) if isinstance(dtype.const, str) else None
    if t is None:
        raise VectorizeTypeError(f"dtype={dtype.const} is not supported here",
                                 hint="use float, int, bool, np.float64, np.int64 or np.bool_")
    return t


def _size(v: Val, what: str) -> int | None:
    if v.batched:
        raise VectorizeTypeError(f"{what} must be the same for every lane", hint="array sizes cannot depend on batched values")
    if isinstance(v.type, TupleType):
        raise VectorizeTypeError(f"{what}: only 1-d sizes are supported here", hint="pass an int")
    return v.const if isinstance(v.const, int) else None


def _fill(name: str, fill: Val) -> Val:
    if isinstance(fill.type, ArrayType | TupleType):
        raise VectorizeTypeError(f"np.{name}: the fill value must be a number here", hint="fill with a number")
    return fill


def constructor(name: str) -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        t = _dtype(kw)
        if name == "arange":
            arity("np.arange", args, 1, 3)
            if len(args) == 1:
                n = _size(args[0], "np.arange(stop)")
            else:
                n = None
                for a in args:
                    _size(a, "np.arange bounds")
                if all(isinstance(a.const, int) for a in args):
                    n = len(range(*(a.const for a in args)))
            base = FLOAT if any(elem(a.type) is FLOAT for a in args) else INT
            return Val(ArrayType(t or base, (n,)), False, fresh=True)
        arity(f"np.{name}", args, *((2, 2) if name == "full" else (1, 1)))
        n = _size(args[0], f"np.{name}(size)")
        if name == "full":
            fill = _fill(name, args[1])
            return Val(ArrayType(t or elem(fill.type), (n,)), fill.batched, fresh=True)
        return Val(ArrayType(t or FLOAT, (n,)), False, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        dtype = _dtype_text(result)
        if name == "full" and args[1].val.batched:
            return f"np.full((len({args[1].text}), {args[0].text}), {atom(args[1].text)}[:, None]{dtype})"
        return f"np.{name}({', '.join(a.text for a in args)}{dtype})"

    return ArrayRule("constructor", result, lower, frozenset({"dtype"}))


def like(name: str) -> ArrayRule:
    """np.zeros_like(x) and friends: a fresh array of x's example shape (never x's lanes: the
    result is the same for every lane, unless the fill value is per-lane)."""
    base = name.removesuffix("_like")

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity(f"np.{name}", args, *((2, 2) if base == "full" else (1, 1)))
        x = args[0]
        if x.one_d and not isinstance(x.type, ArrayType) and not kw:  # of np.atleast_1d(number): passes/one_d_stores.py
            if base == "full" and (args[1].const is None or args[1].batched):
                raise VectorizeTypeError(f"np.{name} of a one-element array with a fill value that is not a constant",
                                         hint="fill it with a constant, then assign: a[:] = v")
            return Val(x.type, False, numpy=True, zero_d=True, one_d=True, fresh=True)
        if not isinstance(x.type, ArrayType):
            raise VectorizeTypeError(f"np.{name} of a number", hint="NumPy returns a 0-d array here; use a number")
        t = _dtype(kw) or x.type.elem
        batched = base == "full" and _fill(name, args[1]).batched
        return Val(ArrayType(t, x.type.shape), batched, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        known = None not in shape_of(x.val)
        shape = str(shape_of(x.val)) if known else f"{atom(x.text)}.shape{'[1:]' if x.val.batched else ''}"
        dtype = _dtype_text(result)
        if base != "full":
            return f"np.{base}({shape}{dtype})"
        fill = args[1]
        if not fill.val.batched:
            return f"np.full({shape}, {fill.text}{dtype})"
        lanes = f"(len({fill.text}), {', '.join(map(str, shape_of(x.val)))})" if known else f"(len({fill.text}), *{shape})"
        return f"np.full({lanes}, {pad(fill, x.rank)}{dtype})"

    return ArrayRule("constructor", result, lower, frozenset({"dtype"}))


def _dtype_text(result: Val) -> str:
    t = result.type
    assert isinstance(t, ArrayType)
    return f", dtype=np.{t.dtype if t.elem is not BOOL else 'bool_'}"


def copy() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.copy", args, 1, 1)
        if not isinstance(args[0].type, ArrayType):
            raise VectorizeTypeError("np.copy of a number", hint="NumPy returns a 0-d array here; use a number")
        return Val(args[0].type, args[0].batched, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        return f"np.array({args[0].text})"

    return ArrayRule("constructor", result, lower)
