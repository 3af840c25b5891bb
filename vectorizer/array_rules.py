"""Batching rules for NumPy calls on per-example arrays: one rule per function, shared families.

A per-example array of shape `s` is stored as `(lanes, *s)` when batched (it differs per lane) and
as `s` when uniform. A rule gives the result type of a call and its batched form::

    elementwise   np.sqrt(x), np.maximum(x, y), np.where(c, x, y), np.clip(x, lo, hi)
                  same call; a batched operand of lower rank is padded after its lane axis
                  (x[:, None]) so broadcasting never pairs the lane axis with an example axis
    reduction     np.sum(x), np.max(x, axis=0), np.argmax(x), np.cumsum(x), np.sort(x)
                  the example axes shift by one: axis=None -> axis=(1, ..., rank); axis=k -> k + 1
    contraction   np.dot, np.matmul / @, np.outer, np.inner, np.linalg.norm
                  einsum with the lane axis kept apart; sums may be reassociated (ulp-level)
    constructor   np.zeros(n), np.ones, np.empty, np.full, np.arange, np.zeros_like, ...
                  sizes must be the same for every lane; the result is a fresh uniform array

Values read out of arrays are NumPy scalars in the scalar function, so their arithmetic has
NumPy's semantics (integers wrap, float division by zero gives inf): the lowering emits plain
operators for them, without Python's checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .analysis.types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    TupleType,
    Type,
    Val,
    elem,
    numpy_promote,
    rank,
)
from .errors import VectorizeTypeError


@dataclass(frozen=True)
class Arg:
    """An operand at lowering time: its text and what the analysis knows of it."""

    text: str
    val: Val

    @property
    def rank(self) -> int:
        return rank(self.val.type)


@dataclass(frozen=True)
class ArrayRule:
    family: str
    result: Callable[[list[Val], dict[str, Val]], Val]
    lower: Callable[[list[Arg], dict[str, Arg], Val], str]


def pad(arg: Arg, to_rank: int) -> str:
    """A batched operand of lower rank gets axes after its lane axis: x -> x[:, None]."""
    if not arg.val.batched or arg.rank >= to_rank:
        return arg.text
    return f"{_atom(arg.text)}[:, {', '.join(['None'] * (to_rank - arg.rank))}]"


def _atom(text: str) -> str:
    return text if text.replace("_", "").replace(".", "").isalnum() else f"({text})"


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """NumPy's broadcasting of example shapes (right-aligned), with unknown sizes as None."""
    out: list[int | None] = []
    for dims in zip(*(((1,) * (max(map(len, shapes)) - len(s)) + s) for s in shapes)):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise VectorizeTypeError(f"array shapes {' and '.join(map(str, shapes))} do not broadcast",
                                     hint="check the shapes of the per-example arrays")
        out.append(known.pop() if known else (None if None in dims else 1))
    return tuple(out)


def _shape(v: Val) -> tuple[int | None, ...]:
    return v.type.shape if isinstance(v.type, ArrayType) else ()


def _result(t: Type, shape: tuple[int | None, ...], batched: bool) -> Val:
    if shape:
        return Val(ArrayType(t, shape), batched, fresh=True)
    return Val(t, batched, numpy=True)


# -- elementwise -----------------------------------------------------------------------------
def _elementwise(name: str, out: str = "float", nargs: int = 1) -> ArrayRule:
    """`out`: "float" (math ufuncs), "same" (abs, negative...), "bool" (isnan...), "promote"."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if len(args) != nargs:
            raise VectorizeTypeError(f"np.{name}() takes {nargs} argument(s) here", hint=f"see numpy.{name}")
        shape = broadcast_shapes(*map(_shape, args))
        t = elem(args[0].type)
        for a in args[1:]:
            t = numpy_promote(t, elem(a.type))
        t = {"float": FLOAT, "bool": BOOL, "same": t, "promote": t}[out]
        if out == "same" and t is BOOL and name in ("negative", "abs", "absolute"):
            t = BOOL if name != "negative" else INT
        return _result(t, shape, any(a.batched for a in args))

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        r = max(a.rank for a in args)
        return f"np.{name}({', '.join(pad(a, r) for a in args)})"

    return ArrayRule("elementwise", result, lower)


def _where() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if len(args) != 3:
            raise VectorizeTypeError("np.where() needs three arguments here", hint="write np.where(cond, a, b)")
        shape = broadcast_shapes(*map(_shape, args))
        return _result(numpy_promote(elem(args[1].type), elem(args[2].type)), shape, any(a.batched for a in args))

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        r = max(a.rank for a in args)
        return f"np.where({', '.join(pad(a, r) for a in args)})"

    return ArrayRule("elementwise", result, lower)


# -- reductions ------------------------------------------------------------------------------
def _axis(kw: dict[str, Val], args: list[Val], name: str) -> int | None:
    axis = kw.get("axis", args[1] if len(args) > 1 else None)
    if axis is None or axis.const is None and axis.type is not None and isinstance(axis.type, Type) and False:
        return None
    if axis.const is None or not isinstance(axis.const, int) or isinstance(axis.const, bool):
        raise VectorizeTypeError(f"np.{name}(axis=...) must be a literal int or None here", hint="write axis=0")
    return axis.const


def _reduction(name: str, out: str) -> ArrayRule:
    """`out`: "same" (sum/prod keep ints, bools sum to ints), "float" (mean), "int" (argmax), "bool"."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        x = args[0]
        if not isinstance(x.type, ArrayType):
            return Val(x.type if out == "same" else {"float": FLOAT, "int": INT, "bool": BOOL}[out], x.batched, numpy=True)
        axis = _axis(kw, args, name)
        t = x.type.elem
        t = {"same": INT if t is BOOL and name in ("sum", "prod", "cumsum") else t, "float": FLOAT, "int": INT, "bool": BOOL, "keep": t}[out]
        if name in ("cumsum", "sort"):
            shape = x.type.shape if axis is not None or x.type.rank == 1 else (None,)
            return _result(t, shape, x.batched)
        if axis is None:
            return _result(t, (), x.batched)
        if not -x.type.rank <= axis < x.type.rank:
            raise VectorizeTypeError(f"axis {axis} is out of bounds for an array of rank {x.type.rank}", hint="check axis=")
        shape = tuple(d for i, d in enumerate(x.type.shape) if i != axis % x.type.rank)
        return _result(t, shape, x.batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        if x.rank == 0:
            return f"np.{name}({x.text})" if name not in ("sum", "prod", "min", "max", "amin", "amax") else x.text
        axis = _axis({k: a.val for k, a in kw.items()}, [a.val for a in args], name)
        if not x.val.batched:
            return f"np.{name}({x.text}{'' if axis is None else f', axis={axis}'})"
        if axis is None and name in ("argmax", "argmin", "cumsum", "sort") and x.rank > 1:
            flat = f"{_atom(x.text)}.reshape(len({x.text}), -1)"
            return f"np.{name}({flat}, axis=1)"
        if axis is None:
            axes = 1 if x.rank == 1 else tuple(range(1, x.rank + 1))
            return f"np.{name}({x.text}, axis={axes})"
        return f"np.{name}({x.text}, axis={axis + 1 if axis >= 0 else axis})"

    return ArrayRule("reduction", result, lower)


# -- contractions ----------------------------------------------------------------------------
_LETTERS = "ijkmnpq"


def _contraction(name: str) -> ArrayRule:
    def shapes(args: list[Val]) -> tuple[tuple, tuple]:
        a, b = (_shape(v) for v in args[:2])
        if name in ("dot", "matmul", "inner") and not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
            raise VectorizeTypeError(f"np.{name} is supported here for 1-d and 2-d arrays", hint="use np.einsum-free forms")
        return a, b

    def spec(a: tuple, b: tuple) -> tuple[str, str, str]:
        if name == "outer":
            return "i", "j", "ij"
        if len(a) == 1 and len(b) == 1:
            return "i", "i", ""
        if len(a) == 2 and len(b) == 1:
            return "ji", "i", "j"
        if len(a) == 1 and len(b) == 2:
            return "i", "ij", "j"
        return "ji", "ik", "jk"

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if name == "norm":
            return Val(FLOAT, args[0].batched, numpy=True)
        a, b = shapes(args)
        sa, sb, so = spec(a, b)
        dims = dict(zip(sa, a)) | dict(zip(sb, b))
        t = numpy_promote(elem(args[0].type), elem(args[1].type))
        return _result(t if t is not BOOL else BOOL, tuple(dims[c] for c in so), args[0].batched or args[1].batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        if name == "norm":
            x = args[0]
            letters = _LETTERS[: x.rank]
            lane = "l" if x.val.batched else ""
            return f'np.sqrt(np.einsum("{lane}{letters},{lane}{letters}->{lane}", {x.text}, {x.text}))'
        a, b = args[0], args[1]
        sa, sb, so = spec(_shape(a.val), _shape(b.val))
        la, lb = ("l" if a.val.batched else ""), ("l" if b.val.batched else "")
        lo = "l" if (a.val.batched or b.val.batched) else ""
        return f'np.einsum("{la}{sa},{lb}{sb}->{lo}{so}", {a.text}, {b.text})'

    return ArrayRule("contraction", result, lower)


# -- constructors ----------------------------------------------------------------------------
_DTYPE_NAMES = {"float": FLOAT, "int": INT, "bool": BOOL, "np.float64": FLOAT, "np.int64": INT, "np.bool_": BOOL}


def _size(v: Val, what: str) -> int | None:
    if v.batched:
        raise VectorizeTypeError(f"{what} must be the same for every lane", hint="array sizes cannot depend on batched values")
    if isinstance(v.type, TupleType):
        raise VectorizeTypeError(f"{what}: only 1-d sizes are supported here", hint="pass an int")
    return v.const if isinstance(v.const, int) else None


def _constructor(name: str) -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        dtype = kw.get("dtype")
        t = _DTYPE_NAMES.get(dtype.const) if dtype is not None and isinstance(dtype.const, str) else None
        if name.endswith("_like"):
            like = args[0].type
            return Val(ArrayType(t or elem(like), _shape(args[0])), args[0].batched and name == "copy", fresh=True)
        if name == "arange":
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
        n = _size(args[0], f"np.{name}(size)")
        if name == "full":
            fill = args[1]
            base = t or elem(fill.type)
            return Val(ArrayType(base, (n,)), fill.batched, fresh=True)
        return Val(ArrayType(t or FLOAT, (n,)), False, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        dtype = f", dtype=np.{result.type.dtype if result.type.elem is not BOOL else 'bool_'}" if isinstance(result.type, ArrayType) else ""  # type: ignore[union-attr]
        if name == "full" and args[1].val.batched:
            return f"np.full((len({args[1].text}), {args[0].text}), {_atom(args[1].text)}[:, None]{dtype})"
        if name.endswith("_like"):
            return f"np.{name}({args[0].text}{dtype})"
        return f"np.{name}({', '.join(a.text for a in args)}{dtype})"

    return ArrayRule("constructor", result, lower)


def _copy() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        return Val(args[0].type, args[0].batched, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        return f"np.array({args[0].text})"

    return ArrayRule("constructor", result, lower)


_FLOAT_UFUNCS = ["sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                 "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "deg2rad",
                 "rad2deg", "degrees", "radians", "floor", "ceil", "trunc", "rint"]

ARRAY_CALLS: dict[str, ArrayRule] = {
    **{f"np.{n}": _elementwise(n) for n in _FLOAT_UFUNCS},
    **{f"np.{n}": _elementwise(n, "same") for n in ("abs", "absolute", "negative", "square", "sign")},
    **{f"np.{n}": _elementwise(n, "bool") for n in ("isnan", "isinf", "isfinite", "signbit")},
    **{f"np.{n}": _elementwise(n, "promote", 2) for n in ("maximum", "minimum", "fmax", "fmin", "add", "subtract",
                                                          "multiply", "fmod", "remainder", "power")},
    **{f"np.{n}": _elementwise(n, "float", 2) for n in ("divide", "true_divide", "arctan2", "hypot", "copysign")},
    "np.clip": _elementwise("clip", "promote", 3),
    "np.where": _where(),
    **{f"np.{n}": _reduction(n, "same") for n in ("sum", "prod", "cumsum")},
    **{f"np.{n}": _reduction(n, "keep") for n in ("min", "max", "amin", "amax", "sort")},
    "np.mean": _reduction("mean", "float"),
    **{f"np.{n}": _reduction(n, "int") for n in ("argmin", "argmax")},
    **{f"np.{n}": _reduction(n, "bool") for n in ("any", "all")},
    **{f"np.{n}": _contraction(n) for n in ("dot", "matmul", "inner", "outer")},
    "np.linalg.norm": _contraction("norm"),
    **{f"np.{n}": _constructor(n) for n in ("zeros", "ones", "empty", "full", "arange", "zeros_like",
                                             "ones_like", "empty_like")},
    "np.copy": _copy(),
    "np.array": _copy(),
}

# Array methods that are the same as a NumPy function of the array: x.sum() is np.sum(x).
METHODS = {"sum", "mean", "prod", "min", "max", "argmin", "argmax", "any", "all", "cumsum", "copy", "dot"}
NUMPY_CONSTANTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "inf": float("inf"), "nan": float("nan")}
