"""numpy.vectorize's `otypes=` conversion, on whole arrays where it is exact.

numpy.vectorize converts each element's result, a Python number, to its otype one at a time
(`asanyarray(object_results, dtype=otype)`): `int(x)` for an int type, so a NaN raises
ValueError and an infinity or a number outside the type's range (-1.0 or 300 for uint8, 2.0**63
for int64) raises OverflowError; a Python int goes to float32 or float16 through a Python float
(two roundings). A plain `astype` would wrap, or round once, silently. `cast_like_numpy` does
numpy's conversion on the arrays vectorizer computed when every element has its exact value in
the otype, and otherwise says why not (also for a count of otypes that is not the function's
count of results, which zipping would hide): the caller then lets numpy.vectorize itself run the
call, so the error, or the value, is numpy's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def cast_like_numpy(result: Any, otypes: Sequence[Any] | str) -> tuple[Any, str | None]:
    """(the results cast to `otypes`, None), or (None, why numpy.vectorize must convert them)."""
    outs = list(result) if isinstance(result, tuple) else [result]
    if len(outs) != len(otypes):
        return None, (f"otypes {otypes!r} name {len(otypes)} result(s) and the function returns {len(outs)}: "
                      "numpy.vectorize decides what that gives")
    cast = []
    for out, otype in zip(outs, otypes):
        target = np.dtype(otype)
        values = exact_cast(np.asarray(out), target)
        if values is None:
            return None, (f"otypes {otypes!r}: a result has no {target} value (NaN, an infinity or out of its "
                          "range), and numpy.vectorize's own conversion decides what that gives")
        cast.append(values[()] if np.ndim(out) == 0 else values)
    return (tuple(cast) if isinstance(result, tuple) else cast[0]), None


def exact_cast(values: np.ndarray, target: np.dtype) -> np.ndarray | None:
    """`values` converted to `target` element by element as numpy converts a Python number, or
    None where some element has no value in `target` (numpy raises there, or wraps)."""
    source = values.dtype
    if source.kind not in "biuf":
        return None
    if target.kind == "b" or source.kind == "b":  # truth values, and 0/1: never out of range
        return values.astype(target)
    if target.kind == "f":
        if source.kind in "iu" and target.itemsize < 8:  # a Python int becomes a Python float first
            return values.astype(np.float64).astype(target)
        return values.astype(target)
    if target.kind not in "iu":
        return None
    info = np.iinfo(target)
    if source.kind in "iu":
        fits = (values >= info.min) & (values <= info.max)
        return values.astype(target) if bool(np.all(fits)) else None
    # a float: int(x) truncates toward zero, then must lie in [min, max]; NaN and inf never fit.
    # Both bounds are powers of two, exact as floats: min itself and max + 1 (excluded).
    with np.errstate(invalid="ignore"):
        whole = np.trunc(values)
        fits = (whole >= float(info.min)) & (whole < float(info.max + 1))
    return whole.astype(target) if bool(np.all(fits)) else None
