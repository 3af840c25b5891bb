"""Batching rules for NumPy calls on per-example arrays: one rule per function, shared families.

A per-example array of shape `s` is stored as `(lanes, *s)` when batched (it differs per lane) and
as `s` when uniform. A rule gives the result type of a call and its batched form::

    elementwise   np.sqrt(x), np.maximum(x, y), np.where(c, x, y), np.clip(x, lo, hi)
                  same call; a batched operand of lower rank is padded after its lane axis
                  (x[:, None]) so broadcasting never pairs the lane axis with an example axis
    reduction     np.sum(x), np.max(x, axis=0), np.argmax(x), np.cumsum(x), np.sort(x)
                  the example axes shift by one: axis=None -> axis=(1, ..., rank); axis=k -> k + 1
    contraction   np.dot, np.matmul / @, np.inner (1-d and 2-d), np.outer (1-d), np.linalg.norm
                  np.vecdot / np.matmul over the stack of lanes; np.outer is a broadcast product
    constructor   np.zeros(n), np.ones, np.empty, np.full, np.arange, np.zeros_like, np.full_like...
                  sizes must be the same for every lane; the result is a fresh array, uniform
                  unless its fill value is per-lane

What the contractions guarantee (measured against per-example calls: tests/faces/test_vmap_rules.py,
and the exact cases of tests/faces/test_vmap.py):

* `np.outer` is `a[:, :, None] * b[:, None, :]`: the very products NumPy computes, exact.
* `np.dot`, `np.matmul` / `@`, `np.inner` and `np.linalg.norm` (sqrt of x.ravel() dot itself,
  in float64, as NumPy computes it) run as ONE `np.vecdot` or `np.matmul` over the stack of
  lanes. NumPy evaluates that stack lane by lane with the BLAS call (ddot, dgemv, dgemm, dsyrk)
  its per-example call makes, so each lane's result is bit-identical to the scalar function's
  when the lane's operands have the strides the per-example arrays have. Parameters are made
  C-contiguous first, as each lane's own array is in the scalar function (a C-contiguous copy);
  a view taken in the function (a row, `a.T`) then has per lane the strides of the same view of
  one example. Where that fails (a view of a parameter the caller mapped over a non-leading
  axis, say), BLAS may take another kernel: the results then agree to rounding error (a
  reordered sum), not bit for bit. `np.einsum` would not do: its sums are reordered (other bits
  on 20-85% of lanes) and start at +0.0.
* The sign of zero is NumPy's: BLAS sums start at +0.0 (an all -0.0 sum is +0.0), and a
  `np.dot` / `np.inner` of two one-element operands is NumPy's exact product (it keeps -0.0).
* Integer and bool products are exact (int64 wraps as NumPy's does); an int or bool operand of
  a float product is converted to float64 first, as NumPy's dot converts it.

Values read out of arrays are NumPy scalars in the scalar function, so their arithmetic has
NumPy's semantics (integers wrap, float division by zero gives inf): the lowering emits plain
operators for them, without Python's checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.types import (
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
from ..errors import VectorizeTypeError


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
    keywords: frozenset[str] = frozenset()  # the keyword arguments the rule understands
    blas: bool = False  # its batched form calls BLAS per lane: parameters are passed C-contiguous


def arity(name: str, args: list[Val], low: int, high: int) -> None:
    """NumPy's own positional arguments beyond the ones a rule understands are refused, never
    ignored (np.linalg.norm(x, 1) is not the 2-norm)."""
    if not low <= len(args) <= high:
        count = str(low) if low == high else f"{low} to {high}"
        raise VectorizeTypeError(f"{name}() takes {count} positional argument(s) here, got {len(args)}",
                                 hint=f"see numpy's {name.removeprefix('np.')}; other forms are not supported")


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
        arity(f"np.{name}", args, 1, 2)
        x = args[0]
        t = elem(x.type)
        t = {"same": INT if t is BOOL and name in ("sum", "prod", "cumsum") else t, "float": FLOAT, "int": INT, "bool": BOOL, "keep": t}[out]
        if not isinstance(x.type, ArrayType):
            if name in ("cumsum", "sort") or _axis(kw, args, name) is not None:
                raise VectorizeTypeError(f"np.{name} of a number", hint="NumPy returns a 1-d array or raises here; use an array")
            return Val(t, x.batched, numpy=True)
        axis = _axis(kw, args, name)
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
            return _of_one_number(name, x)
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

    return ArrayRule("reduction", result, lower, frozenset({"axis"}))


def _of_one_number(name: str, x: Arg) -> str:
    """A reduction of a number (one per lane when batched): never a reduction over the lanes.
    NumPy's own reduction over a length-1 axis gives its exact result (np.sum(-0.0) is 0.0,
    np.sum(True) is 1)."""
    if not x.val.batched:
        return f"np.{name}({x.text})"
    return f"np.{name}({_atom(x.text)}[:, None], axis=1)"


# -- contractions ----------------------------------------------------------------------------
def _product(name: str) -> ArrayRule:
    """np.dot, np.matmul (and `@`), np.inner of 1-d and 2-d arrays: see the module docstring."""

    def shapes(args: list[Val]) -> tuple[tuple[int | None, ...], tuple[int | None, ...]]:
        arity(f"np.{name}", args, 2, 2)
        a, b = _shape(args[0]), _shape(args[1])
        if not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
            raise VectorizeTypeError(f"np.{name} is supported here for 1-d and 2-d arrays",
                                     hint="reshape the arrays, or write the loop over the other axes")
        if name == "inner":
            b = b[::-1]  # np.inner contracts the last axes: a times b's transpose
        if a[-1] is not None and b[0] is not None and a[-1] != b[0]:
            raise VectorizeTypeError(f"np.{name}: shapes {_shape(args[0])} and {_shape(args[1])} are not aligned "
                                     "(NumPy raises ValueError)", hint="check the shapes of the per-example arrays")
        return a, b

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        a, b = shapes(args)
        t = numpy_promote(elem(args[0].type), elem(args[1].type))
        return _result(t, a[:-1] + b[1:], args[0].batched or args[1].batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        a, b = args
        if not (a.val.batched or b.val.batched):
            return f"np.{name}({a.text}, {b.text})"  # one example: NumPy's own call
        t = elem(result.type)
        stacked = _stacked(_cast(a, t), _cast(b, t), transpose=name == "inner")
        single = _single_elements(a, b) if name != "matmul" and t is FLOAT else False
        if single is False:
            return stacked
        product = f"{_cells(a, rank(result.type))} * {_cells(b, rank(result.type))}"
        if single:
            return product
        return f"({product} if {_one_element_test(a)} and {_one_element_test(b)} else {stacked})"

    return ArrayRule("contraction", result, lower, blas=True)


def _cast(arg: Arg, t: Type) -> Arg:
    """An int or bool operand of a float product, converted as NumPy's dot converts it."""
    if t is FLOAT and elem(arg.val.type) is not FLOAT:
        return Arg(f"np.asarray({arg.text}, dtype=np.float64)", arg.val)
    return arg


def _stacked(a: Arg, b: Arg, transpose: bool) -> str:
    """a times b (b transposed: np.inner) as one gufunc call over the lanes (one at least is
    batched): a 1-d a becomes a row, a 1-d b a column, and the axis added is dropped again."""
    right = f"np.swapaxes({b.text}, -1, -2)" if transpose and b.rank == 2 else b.text
    if a.rank == 1 and b.rank == 1:
        return f"np.vecdot({a.text}, {right})"
    row = f"{_atom(a.text)}[{':, ' if a.val.batched else ''}None, :]" if a.rank == 1 else a.text
    column = f"{_atom(right)}[{':, ' if b.val.batched else ''}:, None]" if b.rank == 1 else right
    product = f"np.matmul({row}, {column})"
    if a.rank == 1:
        return f"{product}[:, 0]"
    return f"{product}[:, :, 0]" if b.rank == 1 else product


def _single_elements(a: Arg, b: Arg) -> bool | None:
    """Do both operands hold one element per example? (NumPy's dot then multiplies them, and
    keeps the sign of a zero product.) None: only known at run time."""
    dims = _shape(a.val) + _shape(b.val)
    if any(d is not None and d != 1 for d in dims):
        return False
    return True if None not in dims else None


def _cells(arg: Arg, out_rank: int) -> str:
    """A one-element operand reshaped to the result's per-example shape (1, ..., 1)."""
    if arg.val.batched:
        return f"{_atom(arg.text)}.reshape(-1{', 1' * out_rank})"
    return f"{_atom(arg.text)}.reshape({(1,) * out_rank})"


def _one_element_test(arg: Arg) -> str:
    ones = (1,) * arg.rank
    return f"{_atom(arg.text)}.shape{'[1:]' if arg.val.batched else ''} == {ones}"


def _outer() -> ArrayRule:
    """np.outer of 1-d arrays: the broadcast product, exactly NumPy's (no sum, no reordering)."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.outer", args, 2, 2)
        if any(rank(v.type) != 1 for v in args):
            raise VectorizeTypeError("np.outer is supported here for two 1-d arrays", hint="pass 1-d arrays")
        t = numpy_promote(elem(args[0].type), elem(args[1].type))
        return _result(t, _shape(args[0]) + _shape(args[1]), args[0].batched or args[1].batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        a, b = args
        if not (a.val.batched or b.val.batched):
            return f"np.outer({a.text}, {b.text})"
        column = f"{_atom(a.text)}[:, :, None]" if a.val.batched else f"{_atom(a.text)}[:, None]"
        row = f"{_atom(b.text)}[:, None, :]" if b.val.batched else b.text
        return f"{column} * {row}"

    return ArrayRule("contraction", result, lower)


def _norm() -> ArrayRule:
    """np.linalg.norm(x): NumPy computes sqrt(dot(x.ravel(), x.ravel())) in float64."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.linalg.norm", args, 1, 1)
        shape = _shape(args[0])
        if not shape or (len(shape) > 1 and (None in shape or 0 in shape)):
            raise VectorizeTypeError("np.linalg.norm is supported here for arrays (a matrix: of a size known "
                                     "when the function is specialized, not empty)", hint="pass an array")
        return Val(FLOAT, args[0].batched, numpy=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = _cast(args[0], FLOAT)
        if not x.val.batched:
            return f"np.linalg.norm({args[0].text})"
        flat = x.text if x.rank == 1 else f"{_atom(x.text)}.reshape(-1, {_size_of(x)})"
        return f"np.sqrt(np.vecdot({flat}, {flat}))"

    return ArrayRule("contraction", result, lower, blas=True)


def _size_of(arg: Arg) -> int:
    size = 1
    for d in _shape(arg.val):
        size *= d  # type: ignore[operator]
    return size


# -- constructors ----------------------------------------------------------------------------
_DTYPE_NAMES = {"float": FLOAT, "int": INT, "bool": BOOL, "np.float64": FLOAT, "np.int64": INT, "np.bool_": BOOL}


def _dtype(kw: dict[str, Val]) -> Type | None:
    """The element type `dtype=` asks for (None: not given); other dtypes are refused."""
    dtype = kw.get("dtype")
    if dtype is None:
        return None
    t = _DTYPE_NAMES.get(dtype.const) if isinstance(dtype.const, str) else None
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


def _constructor(name: str) -> ArrayRule:
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
            return f"np.full((len({args[1].text}), {args[0].text}), {_atom(args[1].text)}[:, None]{dtype})"
        return f"np.{name}({', '.join(a.text for a in args)}{dtype})"

    return ArrayRule("constructor", result, lower, frozenset({"dtype"}))


def _like(name: str) -> ArrayRule:
    """np.zeros_like(x) and friends: a fresh array of x's example shape (never x's lanes: the
    result is the same for every lane, unless the fill value is per-lane)."""
    base = name.removesuffix("_like")

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity(f"np.{name}", args, *((2, 2) if base == "full" else (1, 1)))
        x = args[0]
        if not isinstance(x.type, ArrayType):
            raise VectorizeTypeError(f"np.{name} of a number", hint="NumPy returns a 0-d array here; use a number")
        t = _dtype(kw) or x.type.elem
        batched = base == "full" and _fill(name, args[1]).batched
        return Val(ArrayType(t, x.type.shape), batched, fresh=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        known = None not in _shape(x.val)
        shape = str(_shape(x.val)) if known else f"{_atom(x.text)}.shape{'[1:]' if x.val.batched else ''}"
        dtype = _dtype_text(result)
        if base != "full":
            return f"np.{base}({shape}{dtype})"
        fill = args[1]
        if not fill.val.batched:
            return f"np.full({shape}, {fill.text}{dtype})"
        lanes = f"(len({fill.text}), {', '.join(map(str, _shape(x.val)))})" if known else f"(len({fill.text}), *{shape})"
        return f"np.full({lanes}, {pad(fill, x.rank)}{dtype})"

    return ArrayRule("constructor", result, lower, frozenset({"dtype"}))


def _dtype_text(result: Val) -> str:
    t = result.type
    assert isinstance(t, ArrayType)
    return f", dtype=np.{t.dtype if t.elem is not BOOL else 'bool_'}"


def _copy() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.copy", args, 1, 1)
        if not isinstance(args[0].type, ArrayType):
            raise VectorizeTypeError("np.copy / np.array of a number", hint="NumPy returns a 0-d array here; use a number")
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
    **{f"np.{n}": _product(n) for n in ("dot", "matmul", "inner")},
    "np.outer": _outer(),
    "np.linalg.norm": _norm(),
    **{f"np.{n}": _constructor(n) for n in ("zeros", "ones", "empty", "full", "arange")},
    **{f"np.{n}": _like(n) for n in ("zeros_like", "ones_like", "empty_like", "full_like")},
    "np.copy": _copy(),
    "np.array": _copy(),
}

# Array methods that are the same as a NumPy function of the array: x.sum() is np.sum(x).
METHODS = {"sum", "mean", "prod", "min", "max", "argmin", "argmax", "any", "all", "cumsum", "copy", "dot"}
NUMPY_CONSTANTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "inf": float("inf"), "nan": float("nan")}
