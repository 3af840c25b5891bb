"""One-element arrays: `x = np.atleast_1d(x)` in code written for scalars and arrays alike.

On a lane, `np.atleast_1d` of a number is a 1-d array holding that number: NumPy's semantics from
then on (an int64 wraps, float division by zero gives inf), `**` NumPy's array power, and what
element-wise arithmetic derives from it is again a one-element array. A `Val` with `one_d` set
stands for one (`zero_d` is set too, for `**`: analysis/arrays.py). What it is understood in:

    arithmetic, comparisons, abs(), np.<ufunc>(x)    a one-element array again
    np.sum(x), np.any(x) (reductions), bool(x), x.item()    a number
    len(x), x.size, x.ndim                           1
    np.isscalar(x)                                   False (of a number, a NumPy scalar: True)
    x.astype(np.int64)                               a one-element array of the new type

Anything else (`x[0]`, `x.shape`, min(x, y), float(x), math.sin(x): NumPy 2 raises TypeError
for those three, returning it...) is refused with the
reason, never taken for a number: a one-element array is not one where it matters (np.isscalar,
len, the result a caller gets). A name that holds one on some paths only (`one_d` None) is refused
where that matters. A callee's kind checks are decided per call from its arguments' `kind`.
"""

from __future__ import annotations

from ..core.types import BOOL, FLOAT, INT, ArrayType, TupleType, Val
from ..errors import SourceLocation, VectorizeTypeError

# Python builtins of a one-element array that give what they give of its number: its truth.
TO_NUMBER = frozenset({"bool"})


def one(t, batched: bool) -> Val:
    """A one-element array of element type `t`."""
    return Val(t, batched, numpy=True, zero_d=True, one_d=True)


def flag(vals: list[Val] | tuple[Val, ...]) -> bool | None:
    """Whether a value derived element-wise from `vals` is a one-element array: True if one of
    them is and none is one on some paths only (then None)."""
    if any(v.one_d is None for v in vals):
        return None
    return True if any(v.one_d for v in vals) else False


def derive(result: Val, operands: list[Val] | tuple[Val, ...]) -> Val:
    """`result` of an element-wise operation of `operands`: a one-element array when one is."""
    found = flag(operands)
    if found is False or isinstance(result.type, ArrayType | TupleType):
        return result
    return Val(result.type, result.batched, None, True, zero_d=True if found else None, one_d=found)


def merged(a: Val, b: Val) -> bool | None:
    """Where two paths meet (or `a or b`, `a if c else b`): one-element on both, neither, or None."""
    return a.one_d if a.one_d == b.one_d else None


def with_flags(result: Val, a: Val, b: Val) -> Val:
    """`result` (of `a or b`, `a if c else b`) marked as one-element where both are."""
    found = merged(a, b)
    if found is False:
        return result
    return Val(result.type, result.batched, result.const, True, zero_d=True if found else None, one_d=found)


def builtin(name: str, args: list[Val], result: Val) -> Val:
    """A Python builtin or math function `name` of values one of which may be a one-element array."""
    if flag(args) is False:
        return result
    allowed(name, args)
    return derive(result, args) if name == "abs" else result  # abs() of an array is np.absolute: an array


def allowed(name: str, args: list[Val]) -> None:
    """Refuse a builtin or math function of a one-element array unless it gives what it gives of
    the number: abs() is np.absolute, bool() its truth. NumPy 2 converts only 0-d arrays to Python
    numbers: float(), int(), math.sin() of one raise TypeError, round() too."""
    if name in TO_NUMBER or name == "abs":
        return
    raise VectorizeTypeError(f"{name}() of a one-element array (np.atleast_1d of a number): Python raises TypeError "
                             "here (NumPy converts only 0-d arrays to numbers)", hint=f"take the number first: {name}(x.item())")


def usable(v: Val, what: str) -> None:
    """Refuse `what` of a value that is a one-element array on some paths only."""
    if v.one_d is None:
        raise VectorizeTypeError(f"{what} of a value that is a one-element array (np.atleast_1d of a number) on some "
                                 "paths and a number on others", hint="convert it the same way on every path")


def attribute(base: Val, attr: str) -> Val:
    usable(base, f"'.{attr}'")
    if attr in ("size", "ndim"):
        return Val(INT, False, 1)
    raise VectorizeTypeError(f"'.{attr}' of a one-element array (np.atleast_1d of a number) is not supported here",
                             hint="supported: .size, .ndim, .item(), .astype(...), len(x)")


def refuse_result(result: tuple[Val, ...], where: SourceLocation | None) -> None:
    """The vectorized function's own result: a one-element array is not a number."""
    for v in result:
        if v.one_d is not False:
            raise VectorizeTypeError("the function returns a one-element array (np.atleast_1d of a number) on some "
                                     "path, not a number: the scalar function's result is an array there",
                                     where, hint="return x.item() to return the number")


def kind_of(v: Val) -> str | None:
    """The kind a callee's kind checks are decided from, per call (frontend/static_checks.py): an
    array, a one-element one, or a number. Only "a number" is said of numbers, not which: the
    analysis does not always know a NumPy scalar from a Python number (abs() of one is typed as
    a number), and isinstance(x, int) differs for them; np.isscalar does not. A float is "real":
    np.float64 subclasses float, so isinstance is decided for it as for a float."""
    if isinstance(v.type, TupleType):
        return None
    if isinstance(v.type, ArrayType):
        return "array"
    if v.one_d is None or v.zero_d is None:
        return None
    if v.one_d:
        return "array1"
    if v.zero_d:
        return "array"
    if v.type is FLOAT:
        return "real"  # np.float64 is a float: isinstance(x, int) is False of either (static_checks.REAL)
    return "number" if v.type in (INT, BOOL) else None


def call(family: str, name: str, args: list[Val], result: Val) -> Val:
    """`result` of np.<name>(...) (a rule of `family`: rules/arrays.py) of values one of which may
    be a one-element array."""
    found = flag(args)
    if family == "one_d" or found is False:
        return result  # np.atleast_1d, np.isscalar, .item(), .astype(): their rules know (rules/array_one_d.py)
    if family in ("elementwise", "convert"):
        return derive(result, args)  # np.sqrt(array([x])), np.asarray(array([x])): arrays again
    if family == "reduction" and found:
        return result
    if family == "constructor" and found and result.one_d:
        return result  # np.ones_like(array([x])): a one-element array of its dtype (rules/array_constructors.py)  # np.sum(array([x])), np.any(array([x])): NumPy scalars
    raise VectorizeTypeError(f"{name}() of a one-element array (np.atleast_1d of a number) is not supported here"
                             if found else f"{name}() of a value that is a one-element array (np.atleast_1d of a "
                             "number) on some paths and a number on others", hint="take its number first: x.item()")


def returned(v: Val, batched: bool) -> Val:
    """What a caller knows of a callee's result `v`: its type, and that it is a one-element array."""
    if v.one_d is False:
        return Val(v.type, batched)
    return Val(v.type, batched, None, True, zero_d=v.zero_d, one_d=v.one_d)
