"""`@vectorize`: the decorator, its specializations, and the per-element fallback.

A `VectorizedFunction` specializes the scalar function on each call's argument kinds (bool /
int / float) and on which arguments are uniform (one value for every lane), transforms it once
per specialization, and runs the generated kernel through `runtime.run` (flag and patch).
"""

from __future__ import annotations

import functools
import inspect
import linecache
import os
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import runtime
from .analysis.types import Val, type_of_dtype
from .errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
)
from .frontend import fence
from .frontend.namespace import Namespace
from .frontend.parse import ParsedFunction, parse_function
from .frontend.source import source_of
from .options import Options
from .pipeline import Generated, lower

Key = tuple[tuple[str, bool], ...]  # per parameter: dtype kind, uniform?


@dataclass(frozen=True)
class Kernel:
    generated: Generated
    fn: Callable[..., Any]
    result_types: tuple[str, ...]


def disabled() -> bool:
    return os.environ.get("VECTORIZER_DISABLE", "") not in ("", "0")


class VectorizedFunction:
    """A scalar function that also takes arrays. Call it like the original."""

    def __init__(self, func: types.FunctionType, options: Options) -> None:
        self.scalar = func
        self.options = options
        functools.update_wrapper(self, func)
        self.__signature__ = inspect.signature(func)
        self._names = list(self.__signature__.parameters)
        self._kernels: dict[Key, Kernel | VectorizeError] = {}
        self._last: Key | None = None
        self._warned = False
        self._parsed: ParsedFunction | None = None
        self._namespace: Namespace | None = None
        self._refused: VectorizeError | None = None
        try:
            self._parsed, self._namespace = prepare(func)
        except VectorizeError as exc:
            if options.fallback == "error":
                raise
            self._refused = exc

    @property
    def backend(self) -> str:
        return "numpy"

    @property
    def source(self) -> str:
        """The generated NumPy module of the last specialization used (or of the annotations)."""
        key = self._last if self._last is not None else self._annotated_key()
        kernel = self._kernel(key)
        if isinstance(kernel, VectorizeError):
            raise kernel
        return kernel.generated.source

    def __repr__(self) -> str:
        return f"<vectorized {self.scalar.__module__}.{self.scalar.__qualname__}>"

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.__signature__.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [bound.arguments[n] for n in self._names]
        try:
            arrays = [runtime.canonical(n, v) for n, v in zip(self._names, values)]
            shape = runtime.broadcast(self._names, arrays)
        except runtime.InputError as exc:
            raise VectorizeInputError(str(exc)) from None
        except ValueError as exc:
            raise VectorizeValueError(str(exc)) from None
        if disabled() or self._refused is not None:
            if self._refused is not None:
                self._warn(self._refused)
            return runtime.per_element(self.scalar, self._names, arrays, shape)
        key: Key = tuple((a.dtype.kind, runtime.is_uniform(a, shape)) for a in arrays)
        kernel = self._kernel(key)
        self._last = key
        if isinstance(kernel, VectorizeError):
            self._warn(kernel)
            return runtime.per_element(self.scalar, self._names, arrays, shape)
        try:
            return runtime.run(kernel.fn, self.scalar, self._names, arrays, shape, kernel.result_types,
                               kernel.generated.returns_tuple, self.scalar.__qualname__)
        except runtime.LaneOverflowError as exc:
            raise VectorizeOverflowError(str(exc)) from None
        except runtime.LaneValueError as exc:
            raise VectorizeValueError(str(exc)) from None

    # -- specializations ---------------------------------------------------------------------
    def _kernel(self, key: Key) -> Kernel | VectorizeError:
        found = self._kernels.get(key)
        if found is None:
            found = self._build(key)
            self._kernels[key] = found
        return found

    def _build(self, key: Key) -> Kernel | VectorizeError:
        assert self._parsed is not None and self._namespace is not None
        params = {n: Val(type_of_dtype(kind), not uniform) for n, (kind, uniform) in zip(self._names, key)}
        try:
            generated = lower(self._parsed, self._namespace, params, self.options)
        except VectorizeError as exc:
            if self.options.fallback == "error":
                raise
            return exc
        fn = load(generated, self.scalar.__qualname__)
        return Kernel(generated, fn, tuple(t.value for t in generated.result))

    def _annotated_key(self) -> Key:
        kinds = {int: "i", float: "f", bool: "b", "int": "i", "float": "f", "bool": "b"}
        params = self.__signature__.parameters.values()
        return tuple((kinds.get(p.annotation, "f"), False) for p in params)

    def _warn(self, error: VectorizeError) -> None:
        if self._warned:
            return
        self._warned = True
        warnings.warn(FallbackWarning(
            f"{self.scalar.__qualname__} runs element by element (slow, exact): {error.message}"
            + (f" at {error.location}" if error.location else "")), stacklevel=3)


def prepare(func: types.FunctionType) -> tuple[ParsedFunction, Namespace]:
    """Read, parse and fence a function (the checks that need no argument types)."""
    parsed = parse_function(source_of(func))
    namespace = Namespace.of_function(func)
    fence.check(parsed, namespace)
    return parsed, namespace


_loaded = 0


def load(generated: Generated, qualname: str) -> Callable[..., Any]:
    """Execute a generated module; its source is registered so tracebacks show the code."""
    global _loaded
    _loaded += 1
    filename = f"<vectorizer {qualname} #{_loaded}>"
    linecache.cache[filename] = (len(generated.source), None, generated.source.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": f"vectorizer_generated_{_loaded}"}
    exec(compile(generated.source, filename, "exec"), namespace)  # noqa: S102 - our own output
    return namespace[generated.name]


def vectorize(func: Callable[..., Any] | None = None, *, backend: str = "numpy", fallback: str = "warn"):
    """Make a scalar function accept arrays: `@vectorize` or `@vectorize(fallback="error")`.

    Args:
        func: a function of numbers, defined with `def` in a source file.
        backend: "numpy" (the generated array code).
        fallback: "warn" runs an unsupported function element by element with a
            `FallbackWarning` (once); "error" raises the `VectorizeError` instead.
    """
    options = Options(backend=backend, fallback=fallback)

    def wrap(f: Callable[..., Any]) -> VectorizedFunction:
        if isinstance(f, VectorizedFunction):
            f = f.scalar
        if not isinstance(f, types.FunctionType):
            raise VectorizeError(f"vectorize() needs a Python function, got {type(f).__name__}")
        return VectorizedFunction(f, options)

    return wrap if func is None else wrap(func)
