"""Dual-mode functions: one callable that runs the original function on Python values and the
batched code when an argument is an ndarray (what the import hook puts in a module's namespace)."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from ..errors import (
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
)


def dual(scalar: types.FunctionType, vectorized: Any, options: dict[str, Any] | None = None) -> Callable[..., Any]:
    """One callable: the original for Python values, the batched code when an argument is an ndarray.

    `vectorized` is the user's `@vectorize` object for a marked function; None for an eligible one,
    whose `VectorizedFunction` is made on the first array call, with `options` (backend...). If
    the engine refuses an eligible function (or a call's dtypes), that call runs the original: the
    function is left as it was, while the module globals it reads keep the objects they had then
    (a refusal may be about their values): after a change the engine tries again.
    """
    from numpy import ndarray

    from ..engine.fingerprint import Generations

    refused = Refusals()  # None (the function) or a call's dtypes -> the globals then

    def batched(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        vf = wrapper.vectorized
        if vf is None or (vf is False and not refused.hold(None)):
            try:
                from ..api import vectorize

                vf = wrapper.vectorized = vectorize(scalar, fallback="error", **(options or {}))
            except VectorizeError:
                refused[None] = Generations(scalar).current().watch
                vf = wrapper.vectorized = False
        if vf is False or (refused and refused.hold(kinds(args, kwargs))):
            return scalar(*args, **kwargs)
        if vectorized is not None:
            return vf(*args, **kwargs)  # a marked function: the user's options, warnings and errors
        try:
            return vf(*args, **kwargs)
        except VectorizeOverflowError:
            raise  # the original would wrap around silently
        except (VectorizeInputError, VectorizeValueError):
            return scalar(*args, **kwargs)  # inputs the engine does not take
        except VectorizeError:
            refused[kinds(args, kwargs)] = vf.watch()  # cannot be vectorized for these dtypes: stay original
            return scalar(*args, **kwargs)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for a in args:
            if isinstance(a, ndarray):
                return batched(args, kwargs)
        if not kwargs:
            return scalar(*args)
        for a in kwargs.values():
            if isinstance(a, ndarray):
                return batched(args, kwargs)
        return scalar(*args, **kwargs)

    functools.update_wrapper(wrapper, scalar)
    wrapper.scalar = scalar  # type: ignore[attr-defined]
    wrapper.vectorized = vectorized  # type: ignore[attr-defined]
    return wrapper


def kinds(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, ...]:
    kind = lambda a: getattr(getattr(a, "dtype", None), "kind", None) or type(a).__name__
    return tuple(map(kind, args)) + tuple(f"{k}={kind(v)}" for k, v in sorted(kwargs.items()))


class Refusals(dict):
    """Refusals (key -> the Watch of the globals when refused) that hold while those globals keep
    their objects: a refusal may be about their values (the import hook's)."""

    def hold(self, key: object) -> bool:
        watch = self.get(key)
        if watch is not None and not watch.fresh():
            self.pop(key, None)  # refused with other values of its globals: try again
            return False
        return watch is not None
