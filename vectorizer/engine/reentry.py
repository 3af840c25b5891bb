"""A decorated recursive function calls itself through its module global, which is the
vectorized function: `gcd.scalar(a, b)` reaches `gcd(b, a % b)`, the wrapper, with Python numbers.
Run through the batched path, each level of recursion would cost a whole batched call, give a
NumPy scalar (an int64 that wraps instead of a Python int) and take several Python frames (a
`RecursionError` far earlier than the plain function's). So a call with Python numbers from the
scalar code of a function in the same recursion (one the wrapped function reaches through module
globals) runs the scalar function directly: the recursion is the plain function's.
"""

from __future__ import annotations

import dis
import sys
import types

from ..core.probe import scalar_of

SCALARS = (int, float, bool)


def _names(code: types.CodeType) -> set[str]:
    """Global names a function's code (and the code nested in it) may load."""
    names = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def cycle_codes(func: types.FunctionType) -> frozenset[types.CodeType]:
    """The code of every same-module function `func` reaches through globals, when one of them
    (or `func` itself) calls `func` back; empty when `func` is not recursive."""
    globals_ = func.__globals__
    codes: dict[types.CodeType, None] = {}
    todo, recursive = [func], False
    while todo:
        f = todo.pop()
        if f.__code__ in codes:
            continue
        codes[f.__code__] = None
        for name in _names(f.__code__):
            value = globals_.get(name)
            value = scalar_of(value, value)  # a decorated function: its scalar code
            if name == func.__name__ and (value is None or value is func):
                recursive = True
            if isinstance(value, types.FunctionType) and value.__module__ == func.__module__:
                todo.append(value)
    return frozenset(codes) if recursive else frozenset()


def reentrant(codes: frozenset[types.CodeType], args: tuple, kwargs: dict, depth: int = 2) -> bool:
    """The caller `depth` frames up is the scalar code of the recursion, passing Python numbers."""
    return (sys._getframe(depth).f_code in codes
            and all(type(a) in SCALARS for a in args) and all(type(a) in SCALARS for a in kwargs.values()))
