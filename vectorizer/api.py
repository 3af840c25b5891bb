"""`@vectorize`: the decorator, its specializations, backends, the disk cache and the fallback.

A `VectorizedFunction` specializes the scalar function on each call's argument kinds (bool / int /
float) and on which arguments are uniform (one value for every lane). Each specialization's module
is looked up in the on-disk cache by a content hash (the function's source, the sources of every
same-module function it reaches, the module constants it reads, the options, the versions); only a
miss imports the compiler (libcst and the passes), so a warm process pays neither transformation
nor, with Numba's own `cache=True`, compilation.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import cache, jit, runtime
from .errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
)
from .fingerprint import content_key, engine_fingerprint
from .frontend.namespace import Namespace
from .frontend.source import source_of
from .options import Options

Key = tuple[tuple, ...]  # per parameter: (dtype kind, uniform?, per-example shape)


@dataclass(frozen=True)
class Kernel:
    fn: Callable[..., Any]
    source: str
    backend: str
    result_types: tuple[str, ...]
    returns_tuple: bool


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
        self._namespace = Namespace.of_function(func)
        self._prepared: Any = None
        self._content: str | None = None
        if options.fallback == "error":
            self._prepare()  # refuse unsupported syntax now, at decoration

    @property
    def backend(self) -> str:
        """The backend of the last specialization used ("numpy" or "numba")."""
        kernel = self._kernels.get(self._last) if self._last is not None else None
        return kernel.backend if isinstance(kernel, Kernel) else self._resolve_backend(None)

    @property
    def source(self) -> str:
        """The generated module of the last specialization used (or of the annotations)."""
        key = self._last if self._last is not None else self._annotated_key()
        kernel = self._kernel(key)
        if isinstance(kernel, VectorizeError):
            raise kernel
        return kernel.source

    def __repr__(self) -> str:
        return f"<vectorized {self.scalar.__module__}.{self.scalar.__qualname__}>"

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.__signature__.bind(*args, **kwargs)
        bound.apply_defaults()
        return self.call_lanes([bound.arguments[n] for n in self._names])

    def call_lanes(self, values: list[Any], example_ndims: list[int] | None = None) -> Any:
        """Run over lanes: each value's leading dimensions are lanes (broadcast together), its
        last `example_ndims` dimensions are one lane's own array (vmap, signature=)."""
        try:
            arrays = [runtime.canonical(n, v) for n, v in zip(self._names, values)]
            batch = runtime.Batch(self._names, arrays, example_ndims)
        except runtime.InputError as exc:
            raise VectorizeInputError(str(exc)) from None
        except ValueError as exc:
            raise VectorizeValueError(str(exc)) from None
        if disabled():
            return runtime.per_element(self.scalar, batch)
        key: Key = tuple((a.dtype.kind, batch.uniform(i), batch.example_shape(i)) for i, a in enumerate(arrays))
        kernel = self._kernel(key)
        self._last = key
        if isinstance(kernel, VectorizeError):
            self._warn(kernel.message + (f" at {kernel.location}" if kernel.location else ""))
            return runtime.per_element(self.scalar, batch)
        try:
            return self._run(kernel, batch)
        except jit.compile_errors() as exc:  # Numba could not type the lane code: use NumPy's
            self._kernels[key] = kernel = self._build(key, "numpy")  # type: ignore[assignment]
            if self.options.backend == "numba":
                jit.warn_once(f"compile:{self.__qualname__}", f"vectorizer: Numba could not compile "
                              f"{self.__qualname__} ({type(exc).__name__}); using the NumPy backend")
            return self._run(kernel, batch)  # type: ignore[arg-type]

    def _run(self, kernel: Kernel, batch: runtime.Batch) -> Any:
        try:
            return runtime.run(kernel.fn, self.scalar, batch, kernel.result_types, kernel.returns_tuple,
                               self.scalar.__qualname__,
                               chunked=kernel.backend == "numpy")  # Numba's prange splits the batch itself
        except runtime.LaneOverflowError as exc:
            raise VectorizeOverflowError(str(exc)) from None
        except runtime.LaneValueError as exc:
            raise VectorizeValueError(str(exc)) from None

    # -- specializations ---------------------------------------------------------------------
    def _kernel(self, key: Key) -> Kernel | VectorizeError:
        found = self._kernels.get(key)
        if found is None:
            found = self._build(key, self._resolve_backend(key))
            self._kernels[key] = found
        return found

    def _resolve_backend(self, key: Key | None) -> str:
        backend = self.options.backend
        if backend == "numba" and not jit.available():
            raise VectorizeError("backend='numba' needs Numba: pip install 'vectorizer[numba]'")
        if backend == "auto":
            if not jit.available():
                return "numpy"
            if key is None:
                return "auto"
            if any(shape for _, _, shape in key):
                return "numpy"  # functions of per-example arrays: the NumPy backend
            return self._auto_choice(key)
        return backend

    def _auto_choice(self, key: Key) -> str:
        """The cost model's pick, remembered in the disk cache: a warm start must not import libcst
        to parse the function again just to decide."""
        store = cache.default_cache()
        choice_key = cache.cache_key(self._content_key(), "auto-choice", self.options.key(), repr(key),
                                     engine_fingerprint())
        remembered = store.load(choice_key)
        for backend in ("numpy", "numba"):
            if remembered == f"BACKEND = {backend!r}\n":
                return backend
        from .costmodel import choose

        prepared = self._prepare_or_none()
        backend = choose(prepared[0], prepared[1]) if prepared else "numpy"
        store.store(choice_key, f"BACKEND = {backend!r}\n")
        return backend

    def _build(self, key: Key, backend: str) -> Kernel | VectorizeError:
        content = self._content_key()
        cache_key = cache.cache_key(content, backend, self.options.key(), repr(key), engine_fingerprint())
        store = cache.default_cache()
        if backend == "numba":
            source = store.load(cache_key)
            if source is None:
                generated = self._lower(key, backend)
                if isinstance(generated, VectorizeError):
                    return generated
                source = generated.source
            fn = jit.load(source, cache_key, self.scalar.__name__)
            return _kernel_from(fn, source, backend)
        code = store.load_code(cache_key)
        if code is None:
            generated = self._lower(key, backend)
            if isinstance(generated, VectorizeError):
                return generated
            path = store.store(cache_key, generated.source)
            code = store.load_code(cache_key) if path else compile(generated.source, f"<vectorizer {self.__qualname__}>", "exec")
            source = generated.source
        else:
            source = store.load(cache_key) or ""
        namespace: dict[str, Any] = {"__name__": f"vz_{cache_key[:16]}"}
        exec(code, namespace)  # noqa: S102 - our own generated module, checked by the cache
        return _kernel_from(namespace[self.scalar.__name__], source, backend, namespace)

    def _lower(self, key: Key, backend: str):
        from .analysis.types import ArrayType, Val, type_of_dtype
        from .pipeline import lower, lower_lanes

        try:
            parsed, namespace = self._prepare()
            params = {n: Val(ArrayType(type_of_dtype(kind), shape) if shape else type_of_dtype(kind), not uniform)
                      for n, (kind, uniform, shape) in zip(self._names, key)}
            return (lower_lanes if backend == "numba" else lower)(parsed, namespace, params, self.options)
        except VectorizeError as exc:
            if self.options.fallback == "error":
                raise
            return exc

    def _prepare(self):
        if self._prepared is None:
            self._prepared = prepare(self.scalar, self._namespace)
        return self._prepared

    def _prepare_or_none(self):
        try:
            return self._prepare()
        except VectorizeError:
            return None

    def _content_key(self) -> str:
        if self._content is None:
            self._content = content_key(self.scalar, self._namespace)
        return self._content

    def _annotated_key(self) -> Key:
        kinds = {int: "i", float: "f", bool: "b", "int": "i", "float": "f", "bool": "b"}
        params = self.__signature__.parameters.values()
        return tuple((kinds.get(p.annotation, "f"), False, ()) for p in params)

    def _warn(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(FallbackWarning(f"{self.scalar.__qualname__} runs element by element (slow, exact): {message}"),
                          stacklevel=3)


def _kernel_from(fn: Callable[..., Any], source: str, backend: str, namespace: dict | None = None) -> Kernel:
    module = namespace if namespace is not None else fn.__globals__
    return Kernel(fn, source, backend, tuple(module["VECTORIZER_RESULT"]), bool(module["VECTORIZER_RETURNS_TUPLE"]))


def prepare(func: types.FunctionType, namespace: Namespace | None = None):
    """Read, parse and fence a function (the checks that need no argument types)."""
    from .frontend import fence
    from .frontend.parse import parse_function

    parsed = parse_function(source_of(func))
    namespace = namespace or Namespace.of_function(func)
    fence.check(parsed, namespace)
    return parsed, namespace


def vectorize(pyfunc: Callable[..., Any] | None = None, otypes=None, doc: str | None = None, excluded=None,
              cache: bool = False, signature: str | None = None, *, backend: str = "numpy", fallback: str = "warn",
              reassociate: bool = False):
    """Make a scalar function accept arrays: `@vectorize`, `@vectorize(backend="auto")`, or
    `vectorize(f, otypes=..., excluded=..., signature=...)` as a drop-in for `numpy.vectorize`.

    Args:
        pyfunc: a function of numbers (or of per-example arrays, with `signature`), defined
            with `def` in a source file.
        otypes, doc, excluded, cache, signature: as for numpy.vectorize (see vectorizer.npcompat).
        backend: "numpy" (generated array code), "numba" (per-lane compiled kernels, parallel over
            the batch), or "auto" (Numba where it is installed and expected to be faster).
        fallback: "warn" runs an unsupported function element by element with a
            `FallbackWarning` (once); "error" raises the `VectorizeError` instead.
        reassociate: allow loops that sum floats over array elements to become np.sum (a
            different summation order: results may differ in the last bits).
    """
    options = Options(backend=backend, fallback=fallback, reassociate=reassociate)

    def wrap(f: Callable[..., Any]):
        from .npcompat import compat

        if isinstance(f, VectorizedFunction):
            f = f.scalar
        if not isinstance(f, types.FunctionType):
            raise VectorizeError(f"vectorize() needs a Python function, got {type(f).__name__}")
        return compat(VectorizedFunction(f, options), otypes, doc, excluded, cache, signature)

    return wrap if pyfunc is None else wrap(pyfunc)
