"""Per-example array rules that keep or fold the example axes: ufuncs, np.where, np.clip, and
reductions (np.sum, np.max, np.argmax, np.cumsum, np.sort...). See arrays.py."""

from __future__ import annotations

from ..core.types import (
    BOOL,
    FLOAT,
    INT,
    ArrayType,
    Type,
    Val,
    elem,
    numpy_promote,
)
from ..errors import VectorizeTypeError
from .array_base import (
    Arg,
    ArrayRule,
    arity,
    atom,
    broadcast_shapes,
    pad,
    result_val,
    shape_of,
)


# -- elementwise -----------------------------------------------------------------------------
def elementwise(name: str, out: str = "float", nargs: int = 1) -> ArrayRule:
    """`out`: "float" (math ufuncs), "same" (abs, negative...), "bool" (isnan...), "promote"."""

    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if len(args) != nargs:
            raise VectorizeTypeError(f"np.{name}() takes {nargs} argument(s) here", hint=f"see numpy.{name}")
        shape = broadcast_shapes(*map(shape_of, args))
        t = elem(args[0].type)
        for a in args[1:]:
            t = numpy_promote(t, elem(a.type))
        t = {"float": FLOAT, "bool": BOOL, "same": t, "promote": t}[out]
        if out == "same" and t is BOOL and name in ("negative", "abs", "absolute"):
            t = BOOL if name != "negative" else INT
        return result_val(t, shape, any(a.batched for a in args))

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        r = max(a.rank for a in args)
        if name == "power" and r == 0 and args[1].val.batched and result.type is FLOAT:
            # numbers: each lane's call takes NumPy's shortcuts for some exponents (runtime/helpers.py)
            return f"_vz_numpy_power({args[0].text}, {args[1].text})"
        return f"np.{name}({', '.join(pad(a, r) for a in args)})"

    return ArrayRule("elementwise", result, lower)


def where() -> ArrayRule:
    def result(args: list[Val], kw: dict[str, Val]) -> Val:
        if len(args) != 3:
            raise VectorizeTypeError("np.where() needs three arguments here", hint="write np.where(cond, a, b)")
        shape = broadcast_shapes(*map(shape_of, args))
        found = result_val(numpy_promote(elem(args[1].type), elem(args[2].type)), shape, any(a.batched for a in args))
        return found if shape else Val(found.type, found.batched, numpy=True, zero_d=True)  # np.where gives arrays

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


def reduction(name: str, out: str) -> ArrayRule:
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
            return result_val(t, shape, x.batched)
        if axis is None:
            return result_val(t, (), x.batched)
        if not -x.type.rank <= axis < x.type.rank:
            raise VectorizeTypeError(f"axis {axis} is out of bounds for an array of rank {x.type.rank}", hint="check axis=")
        shape = tuple(d for i, d in enumerate(x.type.shape) if i != axis % x.type.rank)
        return result_val(t, shape, x.batched)

    def lower(args: list[Arg], kw: dict[str, Arg], result: Val) -> str:
        x = args[0]
        if x.rank == 0:
            return _of_one_number(name, x)
        axis = _axis({k: a.val for k, a in kw.items()}, [a.val for a in args], name)
        if not x.val.batched:
            return f"np.{name}({x.text}{'' if axis is None else f', axis={axis}'})"
        if axis is None and name in ("argmax", "argmin", "cumsum", "sort") and x.rank > 1:
            flat = f"{atom(x.text)}.reshape(len({x.text}), -1)"
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
    return f"np.{name}({atom(x.text)}[:, None], axis=1)"
