"""Inputs canonicalised to what a lane of the scalar function sees.

bool, int64 (signed and unsigned ints; values that need more bits are refused) or float64;
complex, more-than-double precision, datetimes, strings, objects and None are refused with an
`InputError` naming the argument; a `RefusedNumber` (an int beyond int64, a datetime) is refused
under every fallback setting, where the others may run element by element through numpy.vectorize. A NumPy scalar is read by its dtype, exactly as an array of it.
Standalone modules carry a copy (codegen/carry.py): NumPy only.
"""

from __future__ import annotations

import numpy as np

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
_KINDS = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64}
_CANONICAL = frozenset({np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.float64)})  # native byte order


class InputError(TypeError):
    """An argument a batched function cannot take (raised as `VectorizeInputError` by vectorizer)."""


class RefusedNumber(InputError):
    """A number no lane can be given exactly, an int beyond int64 (a Python int, in a list or an
    object array, a uint64), or a NumPy datetime or timedelta: refused whatever the fallback.
    numpy.vectorize's element-by-element run, which takes objects (None, strings), would compute
    with other values here (a uint64 2**64 - 1 plus 1 wraps to 0; 3 + 2**64 becomes a float),
    raise a raw OverflowError (a list) or pass `datetime.date` objects."""


def canonical(name: str, value: object) -> np.ndarray:
    """The argument as a bool/int64/float64 array, or an `InputError` naming it."""
    if type(value) is np.ndarray and value.dtype in _CANONICAL:  # (the common case, at once)
        return value
    if isinstance(value, np.ndarray | np.generic):  # NumPy arrays and scalars: by their dtype
        return _from_array(name, np.asarray(value))
    if isinstance(value, bool):
        return np.asarray(value, dtype=np.bool_)
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise RefusedNumber(f"argument {name!r}: {value} does not fit in int64")
        return np.asarray(value, dtype=np.int64)
    if isinstance(value, float):
        return np.asarray(value, dtype=np.float64)
    if value is None:
        raise InputError(f"argument {name!r}: expected a number or a numeric array, got None")
    if isinstance(value, complex):
        raise InputError(f"argument {name!r}: complex numbers are not supported (the scalar function works on real numbers)")
    if isinstance(value, str | bytes):
        raise InputError(f"argument {name!r}: expected a number or a numeric array, got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(f"argument {name!r}: cannot make an array of it ({exc})") from None
    return _from_array(name, arr)


def _from_array(name: str, arr: np.ndarray) -> np.ndarray:
    """A NumPy array (or 0-d array of a NumPy scalar) as bool/int64/float64: unsigned ints that
    fit are ints; complex, datetimes, strings and more-than-double precision are refused."""
    kind = arr.dtype.kind
    if kind == "O":
        return _from_objects(name, arr)
    if kind == "c":
        raise InputError(f"argument {name!r}: complex numbers are not supported (the scalar function works on real numbers)")
    if kind in "mM":
        raise RefusedNumber(f"argument {name!r}: expected numbers, got {arr.dtype} values (dates and durations are "
                            "not numbers a lane can take: pass e.g. `a.astype('int64')` for their counts of units)")
    if kind not in "biuf":
        raise InputError(f"argument {name!r}: expected numbers, got {arr.dtype} values")
    if arr.dtype.itemsize > 8:
        raise InputError(f"argument {name!r}: dtype {arr.dtype} has more precision than float64; convert it first")
    if kind == "u" and arr.dtype.itemsize == 8:
        _check_uint64(name, arr)
    dtype = _KINDS[kind]
    return arr if arr.dtype == dtype else arr.astype(dtype)


def _check_uint64(name: str, arr: np.ndarray) -> None:
    """Refuse a uint64 value that int64 cannot hold, naming its element."""
    too_big = (arr > np.uint64(INT64_MAX)).ravel()
    if too_big.any():
        i = int(np.argmax(too_big))
        element = f", element {lane_index(i, arr.shape)}" if arr.ndim else ""
        raise RefusedNumber(f"argument {name!r}{element}: {int(arr.ravel()[i])} does not fit in int64")


def _element_kind(v: object) -> str | None:
    """'b', 'i' or 'f' for a number an object array may hold (a Python or NumPy bool, int or
    float of at most double precision), None for anything else."""
    if isinstance(v, np.generic):
        kind = "i" if v.dtype.kind == "u" else v.dtype.kind
        return kind if kind in "bif" and v.dtype.itemsize <= 8 else None
    if isinstance(v, bool):
        return "b"
    return "i" if isinstance(v, int) else "f" if isinstance(v, float) else None


def _from_objects(name: str, arr: np.ndarray) -> np.ndarray:
    """Object arrays of Python numbers (e.g. ints beyond 2**63 made NumPy choose object)."""
    flat = arr.ravel()
    kinds = set()
    for i, v in enumerate(flat):
        kind = _element_kind(v)
        if kind is None:
            raise InputError(f"argument {name!r}, element {lane_index(i, arr.shape)}: expected a number, got {type(v).__name__} {v!r}")
        if kind == "i" and not INT64_MIN <= int(v) <= INT64_MAX:
            raise RefusedNumber(f"argument {name!r}, element {lane_index(i, arr.shape)}: {int(v)} does not fit in int64")
        kinds.add(kind)
    if len(kinds) > 1:
        raise InputError(f"argument {name!r}: mixes {' and '.join(sorted(kinds))} elements; give it one numeric dtype")
    kind = kinds.pop() if kinds else "f"
    return np.array(flat.tolist(), dtype=_KINDS[kind]).reshape(arr.shape)


def as_kind(name: str, a: np.ndarray, kind: str) -> np.ndarray:
    """An argument as the kind its annotation names (generated modules are typed): bool widens,
    ints become floats when float64 holds them exactly; anything else is refused."""
    if a.dtype.kind == kind:
        return a
    if a.dtype.kind == "b" and kind in "if":
        return a.astype(_KINDS[kind])
    if a.dtype.kind == "i" and kind == "f":
        if a.size and np.max(np.abs(a)) > 2**53:
            raise InputError(f"argument {name!r}: ints beyond 2**53 cannot become float64 exactly")
        return a.astype(np.float64)
    want = {"b": "bool", "i": "int", "f": "float"}[kind]
    raise InputError(f"argument {name!r}: expected {want} values (its annotation), got {a.dtype} values")


def lane_index(i: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(k) for k in np.unravel_index(i, shape)) if shape else ()
