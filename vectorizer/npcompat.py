"""`vectorize(pyfunc, otypes, doc, excluded, cache, signature)`: numpy.vectorize's parameters.

`np.vectorize(f, ...)` -> `vectorizer.vectorize(f, ...)` is a drop-in change: the same calls
(positional and keyword arguments), excluded arguments passed through whole, `otypes` casting,
gufunc-style `signature="(n),(n)->()"` with core dimensions (their sizes checked as NumPy does),
the same values and errors. Where the engine cannot compile the function, or an excluded
argument is not numeric, the call goes to `numpy.vectorize` itself, with a `FallbackWarning`
(or raises, with fallback="error").

Two deliberate differences, both from the vectorizer contract: a call on scalars returns a NumPy
scalar (numpy.vectorize returns a 0-d array), and without `otypes` the result dtype comes from
the function's code, not from its result on the first element (numpy.vectorize truncates every
element to the first element's type when a function returns ints for some and floats for others).
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .api import VectorizedFunction
from .errors import FallbackWarning, VectorizeError

_DIMS = re.compile(r"\(([^()]*)\)")


def parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(n),(n)->()' -> ([('n',), ('n',)], [()]), as numpy.vectorize parses it."""
    if "->" not in signature:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.replace(" ", "").split("->")
    parse = lambda part: [tuple(d for d in group.split(",") if d) for group in _DIMS.findall(part)]  # noqa: E731
    return parse(ins), parse(outs)


class NumpyVectorized:
    """The numpy.vectorize-compatible front of a `VectorizedFunction`."""

    def __init__(self, vf: VectorizedFunction, otypes: Iterable[Any] | str | None, doc: str | None,
                 excluded: Iterable[int | str] | None, cache: bool, signature: str | None) -> None:
        self._vf = vf
        self.pyfunc = vf.scalar
        self.otypes = None if otypes is None else ([np.dtype(t).char for t in otypes] if not isinstance(otypes, str) else list(otypes))
        self.excluded = set(excluded or ())
        self.cache = cache  # accepted for compatibility: compiled code is cached per argument kinds anyway
        self.signature = signature
        self._core = parse_signature(signature) if signature else None
        self.__doc__ = doc if doc is not None else vf.scalar.__doc__
        self.__name__ = vf.__name__
        self.__wrapped__ = vf.scalar
        self._numpy = np.vectorize(vf.scalar, otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
        self._params = list(inspect.signature(vf.scalar).parameters)

    @property
    def source(self) -> str:
        return self._vf.source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        positions = {self._params[i]: i for i in range(len(args))}
        bound = inspect.signature(self.pyfunc).bind(*args, **kwargs)
        bound.apply_defaults()
        values, ndims = [], []
        core_in = iter(self._core[0]) if self._core else None
        for name in self._params:
            value = bound.arguments[name]
            excluded = positions.get(name) in self.excluded or name in self.excluded
            if excluded and not _numeric(value):
                return self._fallback("an excluded argument is not a number or an array of numbers", *args, **kwargs)
            array = np.asarray(value)
            values.append(value)
            if excluded:
                ndims.append(array.ndim)
            elif core_in is not None and name in positions:
                dims = next(core_in, ())
                if array.ndim < len(dims):
                    raise ValueError(f"{name} has {array.ndim} dimension(s), the signature needs {len(dims)}")
                ndims.append(len(dims))
            else:
                ndims.append(0)
        if self._core:
            self._check_core(self._core[0], [np.shape(v) for v, n in zip(values, self._params) if n in positions and not (
                positions[n] in self.excluded or n in self.excluded)])
        try:
            result = self._vf.call_lanes(values, ndims)
        except VectorizeError:
            raise
        if self._vf._last is not None and isinstance(self._vf._kernels.get(self._vf._last), VectorizeError):
            pass  # the engine ran it element by element (with its own warning): results are exact
        return self._cast(result)

    def _check_core(self, ins: list[tuple[str, ...]], shapes: list[tuple[int, ...]]) -> None:
        sizes: dict[str, int] = {}
        for dims, shape in zip(ins, shapes):
            for name, size in zip(dims, shape[len(shape) - len(dims):]):
                if sizes.setdefault(name, size) != size:
                    raise ValueError(f"inconsistent size for core dimension {name!r}: {size} vs {sizes[name]}")

    def _cast(self, result: Any) -> Any:
        if self.otypes is None:
            return result
        outs = list(result) if isinstance(result, tuple) else [result]
        cast = [np.asarray(o).astype(t)[()] if np.ndim(o) == 0 else np.asarray(o).astype(t) for o, t in zip(outs, self.otypes)]
        return tuple(cast) if isinstance(result, tuple) else cast[0]

    def _fallback(self, why: str, *args: Any, **kwargs: Any) -> Any:
        if self._vf.options.fallback == "error":
            raise VectorizeError(f"{self.__name__}: {why}", hint="use numpy.vectorize for this call")
        warnings.warn(FallbackWarning(f"{self.__name__} runs through numpy.vectorize (slow): {why}"), stacklevel=3)
        return self._numpy(*args, **kwargs)


def _numeric(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False


def compat(vf: VectorizedFunction, otypes, doc, excluded, cache, signature) -> Callable[..., Any]:
    if otypes is None and doc is None and excluded is None and not cache and signature is None:
        return vf
    return NumpyVectorized(vf, otypes, doc, excluded, cache, signature)
