"""Typing of per-example arrays and NumPy scalars (for `vmap` and array-valued parameters).

The analyzer (batched.py) delegates here whenever an operand is an array, a NumPy scalar (an
element read out of an array), a NumPy call, an array method or attribute, or an indexing
expression on an array. What the scalar function does with such values is NumPy's business:
integers wrap, float division by zero gives inf, `x < y` on arrays is elementwise. What Python
itself refuses (`if array:`, `a and b` on arrays) is refused here, with a location.
"""

from __future__ import annotations

import libcst as cst

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
from ..rules import arrays as array_rules
from . import one_d

SIZE_ATTRS = ("shape", "ndim", "size")


def is_numpy(v: Val) -> bool:
    return isinstance(v.type, ArrayType) or v.numpy


def binary(op: str, a: Val, b: Val) -> Val:
    """Arithmetic with an array or a NumPy scalar: NumPy semantics and promotion, elementwise."""
    if op == "@":
        return matmul(a, b)
    ta, tb = elem(a.type), elem(b.type)
    if op in ("&", "|", "^", "<<", ">>") and (ta.is_floatlike or tb.is_floatlike):
        raise VectorizeTypeError(f"'{op}' needs int or bool arrays", hint="NumPy raises TypeError for bitwise ops on floats")
    if op == "/":
        t = FLOAT
    elif op in ("+", "-", "*", "//", "%", "**") and ta is BOOL and tb is BOOL and op != "+" and op != "*":
        t = INT if op in ("//", "%", "**") else BOOL
    else:
        t = numpy_promote(ta, tb)
    shape = array_rules.broadcast_shapes(_shape(a), _shape(b))
    return one_d.derive(_make(t, shape, a.batched or b.batched), (a, b))


def zero_d_power(a: Val, b: Val) -> None:
    """`a ** b` of numbers where one may be a 0-d array (np.asarray of a number): NumPy's array
    `**` (np.power's kernel; np.square, np.sqrt or np.reciprocal for an exponent of 2, 0.5 or
    -1), unlike a NumPy scalar's (the C library's pow). Lowered for a float base."""
    if rank(a.type) or rank(b.type) or not (a.zero_d or b.zero_d or a.zero_d is None or b.zero_d is None):
        return
    if a.zero_d is None or b.zero_d is None:
        raise VectorizeTypeError("'**' of a value that is a 0-d array (np.asarray of a number) on some paths and a "
                                 "number on others: NumPy computes the two with different kernels",
                                 hint="convert it the same way on every path")
    if elem(a.type) is not FLOAT:
        raise VectorizeTypeError("'**' of an int or bool with a 0-d array (np.asarray of a number) is not supported",
                                 hint="make the base a float: np.asarray(x, dtype=float) or float(x)")


def matmul(a: Val, b: Val) -> Val:
    """`a @ b` is np.matmul(a, b), for arrays only: on numbers Python raises TypeError (and NumPy
    ValueError for a NumPy scalar), on every lane."""
    if rank(a.type) == 0 or rank(b.type) == 0:
        raise VectorizeTypeError("the '@' operator is not supported on numbers (it multiplies arrays: on numbers "
                                 "Python raises TypeError, NumPy ValueError)", hint="use '*' to multiply numbers")
    return array_rules.ARRAY_CALLS["np.matmul"].result([a, b], {})


def unary(op: str, a: Val) -> Val:
    if op == "not":
        if isinstance(a.type, ArrayType):
            raise VectorizeTypeError("'not' on an array is ambiguous (Python raises ValueError)",
                                     hint="use np.logical_not(x) or test np.any(x) / np.all(x)")
        one_d.usable(a, "'not'")
        return Val(BOOL, a.batched, numpy=True)
    return one_d.derive(_make(elem(a.type) if op != "~" or elem(a.type) is not BOOL else BOOL, _shape(a), a.batched), (a,))


def compare(vals: list[Val]) -> Val:
    if len(vals) > 2 and any(isinstance(v.type, ArrayType) for v in vals):
        raise VectorizeTypeError("a chained comparison of arrays is ambiguous (Python raises ValueError)",
                                 hint="combine elementwise comparisons with &")
    shape = array_rules.broadcast_shapes(*map(_shape, vals))
    return one_d.derive(_make(BOOL, shape, any(v.batched for v in vals)), vals)


def truth(v: Val, what: str) -> None:
    """`if x:` / `while x:` / `a and b` on an array: Python raises ValueError for size > 1."""
    if isinstance(v.type, ArrayType):
        raise VectorizeTypeError(f"the truth value of an array is ambiguous in {what} (Python raises ValueError)",
                                 hint="use np.any(...) or np.all(...)")


def attribute(base: Val, attr: str) -> Val:
    t = base.type
    if base.one_d is not False and not isinstance(t, ArrayType):
        return one_d.attribute(base, attr)
    if not isinstance(t, ArrayType):
        raise VectorizeTypeError(f"'.{attr}' is only supported on arrays here", hint="read it outside and pass it in")
    if attr == "ndim":
        return Val(INT, False, t.rank)
    if attr == "size":
        known = None not in t.shape
        size = 1
        for d in t.shape:
            size *= d or 1
        return Val(INT, False, size if known else None)
    if attr == "shape":
        const = t.shape if None not in t.shape else None
        return Val(TupleType(tuple(INT for _ in t.shape)), False, const)
    if attr == "T":
        return _make(t.elem, tuple(reversed(t.shape)), base.batched, fresh=False)
    raise VectorizeTypeError(f"array attribute '.{attr}' is not supported", hint="supported: .shape .ndim .size .T")


def length(v: Val) -> Val:
    if v.one_d is not False and not isinstance(v.type, ArrayType):
        one_d.usable(v, "len()")
        return Val(INT, False, 1)
    if not isinstance(v.type, ArrayType):
        raise VectorizeTypeError("len() is only supported on arrays and module-level tuples", hint="use the length directly")
    if v.type.rank == 0:
        raise VectorizeTypeError("len() of a 0-d array", hint="Python raises TypeError here")
    return Val(INT, False, v.type.shape[0])


def call(name: str, args: list[Val], keywords: dict[str, Val]) -> Val:
    rule = array_rules.ARRAY_CALLS.get(name)
    if rule is None:
        raise VectorizeTypeError(f"{name}() has no batching rule",
                                 hint="supported: " + ", ".join(sorted(array_rules.ARRAY_CALLS)))
    unknown = sorted(set(keywords) - rule.keywords)
    if unknown:  # never ignored: np.sum(x, keepdims=True) is not np.sum(x)
        raise VectorizeTypeError(f"{name}() does not take the keyword argument {unknown[0]}= here",
                                 hint="accepted: " + (", ".join(f"{k}=" for k in sorted(rule.keywords)) or "none"))
    return one_d.call(rule.family, name, args, rule.result(args, keywords))


def subscript(base: Val, index: list[Val | slice], node: cst.CSTNode) -> Val:
    """x[i], x[i, j], x[a:b]: `index` holds a Val per integer index and a slice(start, stop, step)
    of constants-or-None per slice."""
    t = base.type
    if base.one_d is not False and not isinstance(t, ArrayType):
        raise VectorizeTypeError("indexing a one-element array (np.atleast_1d of a number) is not supported yet",
                                 hint="use x.item() for its number")
    if not isinstance(t, ArrayType):
        raise VectorizeTypeError("only arrays and module-level tuples can be indexed here", hint="index an array")
    if len(index) > t.rank:
        raise VectorizeTypeError(f"too many indices for an array of rank {t.rank} (Python raises IndexError)",
                                 hint="check the number of indices")
    shape: list[int | None] = []
    batched = base.batched
    for axis, part in enumerate(index):
        size = t.shape[axis]
        if isinstance(part, slice):
            if size is not None and all(v is None or isinstance(v, int) for v in (part.start, part.stop, part.step)):
                shape.append(len(range(*part.indices(size))))
            else:
                shape.append(None)
            continue
        if part.one_d is not False:  # x[array([2])] is fancy indexing: an array
            raise VectorizeTypeError("an index that is a one-element array (np.atleast_1d of a number) is not supported",
                                     hint="index with x.item() or int(x)")
        if not (isinstance(part.type, Type) and part.type.is_intlike) or part.type is BOOL:
            raise VectorizeTypeError("array indices must be ints here", hint="NumPy raises IndexError for float indices")
        batched = batched or part.batched
    shape += list(t.shape[len(index):])
    return _make(t.elem, tuple(shape), batched, fresh=False)


def join(a: Val, b: Val) -> Val:
    if not (isinstance(a.type, ArrayType) and isinstance(b.type, ArrayType)) or a.type.rank != b.type.rank:
        raise VectorizeTypeError("a name holds an array on one path and something else on another",
                                 hint="give arrays the same shape on every path")
    shape = tuple(x if x == y else None for x, y in zip(a.type.shape, b.type.shape))
    t = numpy_promote(a.type.elem, b.type.elem) if a.type.elem is not b.type.elem else a.type.elem
    return Val(ArrayType(t, shape), a.batched or b.batched, fresh=a.fresh and b.fresh)


def _shape(v: Val) -> tuple[int | None, ...]:
    return v.type.shape if isinstance(v.type, ArrayType) else ()


def _make(t: Type, shape: tuple[int | None, ...], batched: bool, fresh: bool = True) -> Val:
    if shape:
        return Val(ArrayType(t, shape), batched, fresh=fresh)
    return Val(t, batched, numpy=True)


__all__ = ["FLOAT", "SIZE_ATTRS", "attribute", "binary", "call", "compare", "is_numpy", "join", "length", "rank",
           "subscript", "truth", "unary"]
