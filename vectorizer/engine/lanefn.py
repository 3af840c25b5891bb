"""The scalar function of the numbers alone (`lane_function`), the specialized values bound: what
the loop over the lanes (engine/loop.py) and a flagged lane's re-run (engine/patch.py) call, one
call a lane. Moved here from engine/statics.py, which re-exports it.

    f(x, method="fast", *, k), {"method": "fast"}   ->   lambda x, k: _vz_f(x, _vz_s[0], k=k)
    f(n, tb=(3, 5)), {"tb": <tb's default itself>}  ->   f
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from functools import lru_cache


def lane_function(scalar: Callable[..., object], statics: dict[str, object]) -> Callable[..., object]:
    """The scalar function of the numbers alone, the specialized values bound: what re-runs a
    flagged lane (engine/patch.py) and runs the loop over the lanes (engine/loop.py). Its
    parameters are the numbers', in the signature's order, so both pass them by position:

        f(x, method="fast", *, k), {"method": "fast"}   ->   lambda x, k: _vz_f(x, _vz_s[0], k=k)

    one call a lane, as a loop's `f(x, "fast", k=k)`, without a dict built per lane. The lambda's
    text is compiled once per function and set of specialized names (`_lane_factory`): a call
    with objects runs this at every call, where compiling it cost more than a thousand lanes.
    Where every specialized value is its parameter's default itself (`f(n, tb=(3, 5))` called
    as `f(n)`), the scalar function is its own lane function: one call a lane, not two."""
    if _defaults_alone(scalar, statics):
        return scalar
    try:
        order, factory = _lane_factory(scalar, frozenset(statics))
    except TypeError:  # an unhashable callable (a bound method of an object without __hash__)
        order, factory = _lane_factory.__wrapped__(scalar, frozenset(statics))
    lane = factory(tuple(statics[name] for name in order))
    lane.__name__, lane.__qualname__ = scalar.__name__, scalar.__qualname__
    return lane


def _defaults_alone(scalar: Callable[..., object], statics: dict[str, object]) -> bool:
    """True where `scalar` (a plain function, no keyword-only or variadic parameter) called with
    the numbers alone, by position, gets exactly the specialized values: each is the default
    object of its parameter, and those parameters are the last positional ones."""
    if type(scalar) is not types.FunctionType:
        return False
    code, defaults = scalar.__code__, scalar.__defaults__ or ()
    if code.co_kwonlyargcount or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) \
            or len(statics) > len(defaults):
        return False
    k, missing = len(statics), object()
    names = code.co_varnames[code.co_argcount - k:code.co_argcount]
    return all(statics.get(n, missing) is d for n, d in zip(names, defaults[len(defaults) - k:]))


@lru_cache(maxsize=256)
def _lane_factory(scalar: Callable[..., object], specialized: frozenset[str]) -> tuple[tuple[str, ...], Callable]:
    """(the specialized names in the signature's order, values -> the lane function)."""
    params = list(inspect.signature(scalar).parameters.values())
    names = {p.name for p in params}
    fn, held = _fresh("_vz_f", names), _fresh("_vz_s", names)
    order = tuple(p.name for p in params if p.name in specialized)
    args, k = [], 0
    for p in params:
        value = p.name
        if p.name in specialized:
            value, k = f"{held}[{k}]", k + 1
        args.append(f"{p.name}={value}" if p.kind is p.KEYWORD_ONLY else value)
    numbers = ", ".join(p.name for p in params if p.name not in specialized)
    text = f"lambda {held}: lambda {numbers}: {fn}({', '.join(args)})"
    return order, eval(text, {fn: scalar})  # noqa: S307 - parameter names


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    return name
