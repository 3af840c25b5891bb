"""Per-example array rules for products: np.dot, np.matmul / @, np.inner, np.outer and
np.linalg.norm, one np.vecdot or np.matmul over the stack of lanes (arrays.py says what that
guarantees)."""

from __future__ import annotations

from ..core.types import (
    FLOAT,
    Type,
    Val,
    elem,
    numpy_promote,
    rank,
)
from ..errors import VectorizeTypeError
from .array_base import Arg, ArrayRule, arity, atom, result_val, shape_of


# -- contractions ----------------------------------------------------------------------------
def product(name: str) -> ArrayRule:
    """np.dot, np.matmul (and `@`), np.inner of 1-d and 2-d arrays: see the module docstring."""

    def shapes(args: list[Val]) -> tuple[tuple[int | None, ...], tuple[int | None, ...]]:
        arity(f"np.{name}", args, 2, 2)
        a, b = shape_of(args[0]), shape_of(args[1])
        if not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
            raise VectorizeTypeError(f"np.{name} is supported here for 1-d and 2-d arrays",
                                     hint="reshape the arrays, or write the loop over the other axes")
        if name == "inner":
            b = b[::-1]  # np.inner contracts the last axes: a times b's transpose
        if a[-1] is not None and b[0] is not None and a[-1] != b[0]:
            raise VectorizeTypeError(f"np.{name}: shapes {shape_of(args[0])} and {shape_of(args[1])} are not aligned "
                                     "(NumPy raises ValueError)", hint="check the shapes of the per-example arrays")
        return a, b

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        a, b = shapes(args)
        t = numpy_promote(elem(args[0].type), elem(args[1].type))
        return result_val(t, a[:-1] + b[1:], args[0].batched or args[1].batched)

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
    row = f"{atom(a.text)}[{':, ' if a.val.batched else ''}None, :]" if a.rank == 1 else a.text
    column = f"{atom(right)}[{':, ' if b.val.batched else ''}:, None]" if b.rank == 1 else right
    product = f"np.matmul({row}, {column})"
    if a.rank == 1:
        return f"{product}[:, 0]"
    return f"{product}[:, :, 0]" if b.rank == 1 else product


def _single_elements(a: Arg, b: Arg) -> bool | None:
    """Do both operands hold one element per example? (NumPy's dot then multiplies them, and
    keeps the sign of a zero product.) None: only known at run time."""
    dims = shape_of(a.val) + shape_of(b.val)
    if any(d is not None and d != 1 for d in dims):
        return False
    return True if None not in dims else None


def _cells(arg: Arg, out_rank: int) -> str:
    """A one-element operand reshaped to the result's per-example shape (1, ..., 1)."""
    if arg.val.batched:
        return f"{atom(arg.text)}.reshape(-1{', 1' * out_rank})"
    return f"{atom(arg.text)}.reshape({(1,) * out_rank})"


def _one_element_test(arg: Arg) -> str:
    ones = (1,) * arg.rank
    return f"{atom(arg.text)}.shape{'[1:]' if arg.val.batched else ''} == {ones}"


def outer() -> ArrayRule:
    """np.outer of 1-d arrays: the broadcast product, exactly NumPy's (no sum, no reordering)."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.outer", args, 2, 2)
        if any(rank(v.type) != 1 for v in args):
            raise VectorizeTypeError("np.outer is supported here for two 1-d arrays", hint="pass 1-d arrays")
        t = numpy_promote(elem(args[0].type), elem(args[1].type))
        return result_val(t, shape_of(args[0]) + shape_of(args[1]), args[0].batched or args[1].batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        a, b = args
        if not (a.val.batched or b.val.batched):
            return f"np.outer({a.text}, {b.text})"
        column = f"{atom(a.text)}[:, :, None]" if a.val.batched else f"{atom(a.text)}[:, None]"
        row = f"{atom(b.text)}[:, None, :]" if b.val.batched else b.text
        return f"{column} * {row}"

    return ArrayRule("contraction", result, lower)


def norm() -> ArrayRule:
    """np.linalg.norm(x): NumPy computes sqrt(dot(x.ravel(), x.ravel())) in float64."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        arity("np.linalg.norm", args, 1, 1)
        shape = shape_of(args[0])
        if not shape or (len(shape) > 1 and (None in shape or 0 in shape)):
            raise VectorizeTypeError("np.linalg.norm is supported here for arrays (a matrix: of a size known "
                                     "when the function is specialized, not empty)", hint="pass an array")
        return Val(FLOAT, args[0].batched, numpy=True)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = _cast(args[0], FLOAT)
        if not x.val.batched:
            return f"np.linalg.norm({args[0].text})"
        flat = x.text if x.rank == 1 else f"{atom(x.text)}.reshape(-1, {_size_of(x)})"
        return f"np.sqrt(np.vecdot({flat}, {flat}))"

    return ArrayRule("contraction", result, lower, blas=True)


def _size_of(arg: Arg) -> int:
    size = 1
    for d in shape_of(arg.val):
        size *= d  # type: ignore[operator]
    return size
