"""`@vectorize`: the decorator, its specializations, backends, the disk cache and the fallback.

A `VectorizedFunction` specializes the scalar function on each call's argument kinds (bool / int /
float) and on which arguments are uniform (one value for every lane). Each specialization's module
is looked up in the on-disk cache by a content hash (the function's source, the sources of every
same-module function it reaches, the module constants it reads, the options, the versions); only a
miss imports the compiler (libcst and the passes), so a warm process pays neither transformation
nor, with Numba's own `cache=True`, compilation.

Module globals are read at each call, as the scalar function reads them: the specializations
belong to a `fingerprint.Generation`, valid while the module binds the names the function reads
(its helpers' too) to the same objects. A call that sees another binding makes a new generation:
new values, new content hash, code generated again or found in the cache.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import types
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .core import cache
from .engine import fastpath, scaleout
from .engine.fingerprint import Generation, Generations, Watch, engine_fingerprint
from .errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
    user_stacklevel,
)
from .frontend.namespace import Namespace
from .frontend.source import source_of
from .options import Options, disabled
from .runtime import harness as runtime

if TYPE_CHECKING:
    from .engine.autotrial import Trial

Key = tuple[tuple, ...]  # per parameter: (dtype kind, uniform?, per-example shape)


def _jit():  # the Numba glue, loaded on first use: a process on the NumPy backend never needs it
    from .backends.numba import jit

    return jit


class Kernel:  # a plain class: a NamedTuple costs ~0.2 ms of every start-up, a frozen dataclass ~0.8
    __slots__ = ("fn", "source", "backend", "result_types", "returns_tuple")

    def __init__(self, fn: Callable[..., Any], source: str, backend: str, result_types: tuple[str, ...],
                 returns_tuple: bool) -> None:
        self.fn, self.source, self.backend = fn, source, backend
        self.result_types, self.returns_tuple = result_types, returns_tuple

    def with_fn(self, fn: Callable[..., Any]) -> Kernel:
        return Kernel(fn, self.source, self.backend, self.result_types, self.returns_tuple)


class VectorizedFunction:
    """A scalar function that also takes arrays. Call it like the original."""

    # numpy.vectorize's attributes, as np.vectorize(f) has them: vectorize(f) stands in for it
    otypes: str | list | None = None
    signature: str | None = None
    cache: bool = False  # an attribute: the module `cache` (the disk cache) is unaffected

    def __init__(self, func: types.FunctionType, options: Options) -> None:
        self.scalar = func
        self.options = options
        functools.update_wrapper(self, func)
        self.__signature__ = inspect.signature(func)
        self._names = list(self.__signature__.parameters)
        self._positional = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                               for p in self.__signature__.parameters.values())
        self._variadic = [f"{'**' if p.kind is p.VAR_KEYWORD else '*'}{p.name}" for p in self.__signature__.parameters.values()
                          if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        # Per generation (the globals as one call read them): kernels: dict[Key, Kernel |
        # VectorizeError]; races: dict[Key, Race | None] (auto on Numba: None until its first large
        # call); numpy_kernels: dict[Key, Kernel | None] (what races it; None: nothing can).
        self._generations = Generations(func)
        self._last_backend: str | None = None
        self._last: Key | None = None
        self._fast: fastpath.Plan | None = None  # the short path for calls like the last one
        if options.fallback == "error" and not disabled():
            self._prepare(self._generations.current())  # refuse unsupported syntax now, at decoration

    def watch(self) -> Watch:
        """The module globals the current specializations were made from (fingerprint.Watch)."""
        return self._generations.current().watch

    @property
    def _kernels(self) -> dict[Key, Kernel | VectorizeError]:
        """The specializations of the current generation."""
        return self._generations.current().kernels

    @property
    def pyfunc(self) -> Callable[..., Any]:
        return self.scalar

    @property
    def excluded(self) -> set[int | str]:
        return set()

    @property
    def backend(self) -> str:
        """The backend of the last specialization used: "numpy" or "numba", or "python" when it
        runs the scalar function element by element (a fallback, or VECTORIZER_DISABLE=1)."""
        if disabled():
            return "python"
        kernel = self._generations.current().kernels.get(self._last) if self._last is not None else None
        if isinstance(kernel, VectorizeError):
            return "python"
        if isinstance(kernel, Kernel):
            return self._last_backend or kernel.backend
        return self._resolve_backend(None)

    @property
    def source(self) -> str:
        """The generated module of the last specialization used (or of the annotations)."""
        key = self._last if self._last is not None else self._annotated_key()
        kernel = self._kernel(self._generations.current(), key)
        if isinstance(kernel, VectorizeError):
            raise kernel
        return kernel.source

    def __repr__(self) -> str:
        return f"<vectorized {self.scalar.__module__}.{self.scalar.__qualname__}>"

    def __reduce__(self):  # to dask workers: by source and options, never code objects (engine/scaleout)
        return scaleout.reduce(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == len(self._names) and self._positional:
            fast = self._fast
            if fast is not None and not disabled():
                result = fastpath.run(fast, args)
                if result is not fastpath.MISS:
                    return result
            return self.call_lanes(list(args))  # no binding needed
        bound = self.__signature__.bind(*args, **kwargs)
        bound.apply_defaults()
        return self.call_lanes([bound.arguments[n] for n in self._names])

    def call_lanes(self, values: list[Any], example_ndims: list[int] | None = None) -> Any:
        """Run over lanes: each value's leading dimensions are lanes (broadcast together), its
        last `example_ndims` dimensions are one lane's own array (vmap, signature=)."""
        if self._variadic:  # a lane is one value per parameter: *args would be spread over lanes
            raise VectorizeError(f"{self.scalar.__qualname__} takes {' and '.join(self._variadic)}: a batched call "
                                 "needs one value (or array) per named parameter",
                                 hint="give each argument its own parameter")
        if scaleout.foreign(values):  # a dask array or an xarray object: a lazy graph (engine/scaleout)
            return scaleout.call(self, values, example_ndims)
        try:
            arrays = [runtime.canonical(n, v) for n, v in zip(self._names, values)]
            batch = runtime.Batch(self._names, arrays, example_ndims)
        except runtime.InputError as exc:
            raise VectorizeInputError(str(exc)) from None
        except ValueError as exc:
            raise VectorizeValueError(str(exc)) from None
        if disabled():
            return self._per_element(batch)
        key: Key = tuple((a.dtype.kind, batch.uniform(i), batch.example_shape(i)) for i, a in enumerate(arrays))
        gen = self._generations.current()  # the module globals as this call reads them
        kernel = self._kernel(gen, key)
        self._last, self._last_backend = key, None
        if isinstance(kernel, VectorizeError):
            self._warn(gen, kernel.message + (f" at {kernel.location}" if kernel.location else ""))
            return self._per_element(batch)
        used = kernel.backend
        try:
            if batch.size >= runtime.EXPLORE_LANES and key in gen.races:
                result, used = self._race(gen, key, kernel, batch)
            else:
                result = self._run(kernel, batch)
        except _jit().compile_errors() as exc:  # Numba could not type the lane code: use NumPy's
            gen.races.pop(key, None)
            gen.kernels[key] = kernel = self._build(gen, key, "numpy")  # type: ignore[assignment]
            if self.options.backend == "numba":
                _jit().warn_once(f"compile:{self.__qualname__}", f"vectorizer: Numba could not compile "
                              f"{self.__qualname__} ({type(exc).__name__}); using the NumPy backend")
            return self._run(kernel, batch)  # type: ignore[arg-type]
        except _jit().cache_load_errors():  # a damaged Numba cache file: a miss, never a crash
            fn = _jit().reload_after_damage(kernel.fn, kernel.source, self.scalar.__name__)
            gen.kernels[key] = kernel = kernel.with_fn(fn)
            return self._run(kernel, batch)
        except Exception as exc:
            if not runtime.kernel_failed(exc):
                raise  # the scalar function's own exception, from the first failing lane
            gen.kernels[key] = error = _engine_bug("running the code generated for", self.scalar, exc)
            if self.options.fallback == "error":
                raise error from exc
            self._warn(gen, error.message)
            return self._per_element(batch)
        # The next call like this one (same dtypes, 1-D, one length) may take the short path.
        # Calls of a specialization auto still races, or runs on NumPy at their size, take the
        # general path.
        self._last_backend = used
        numpy_backend = kernel.backend == "numpy"
        self._fast = None
        if not example_ndims and self._last_backend == kernel.backend:
            limit, window = (runtime.parallel_min_lanes(kernel.fn) - 1, (1, 0)) if numpy_backend \
                else self._numba_short_path(gen, key, batch.size)  # NumPy: larger calls run chunks on threads
            self._fast = fastpath.plan(kernel.fn, values, kernel.result_types, kernel.returns_tuple, numpy_backend,
                                       limit, window, gen.watch, scalar=self.scalar)  # valid while the globals are these
        return result

    def _race(self, gen: Generation, key: Key, kernel: Kernel, batch: runtime.Batch) -> tuple[Any, str]:
        """backend="auto" chose Numba without seeing data: time both backends on calls like this one
        until one wins at their size (autotrial.py)."""
        race = gen.races[key]
        if race is None:
            from .engine.autotrial import Race

            race = gen.races[key] = Race()
        return race.call(batch, kernel, lambda: self._racing_numpy(gen, key, kernel), self._run, kernel.returns_tuple)

    def _racing_numpy(self, gen: Generation, key: Key, kernel: Kernel) -> Kernel | None:
        """The NumPy kernel that races the Numba `kernel`, built once; None where there is none."""
        if key not in gen.numpy_kernels:
            try:
                found: Kernel | VectorizeError = self._build(gen, key, "numpy")
            except VectorizeError as exc:  # fallback="error": only the NumPy backend refuses it
                found = exc
            same = isinstance(found, Kernel) and found.result_types == kernel.result_types \
                and found.returns_tuple == kernel.returns_tuple
            gen.numpy_kernels[key] = found if same else None
            if not same:
                gen.races.pop(key, None)
        return gen.numpy_kernels[key]

    def _numba_short_path(self, gen: Generation, key: Key, size: int) -> tuple[int, tuple[int, int]]:
        """The lanes the short path may run on Numba for `key` after a call of `size` lanes: up to a
        limit, and a window beyond it (autotrial.Race: the size classes auto decided for Numba)."""
        if key not in gen.races:
            return sys.maxsize, (1, 0)
        race = gen.races[key]
        if race is None:
            return runtime.EXPLORE_LANES - 1, (1, 0)
        return race.fast_limit(), race.numba_window(size)

    @property
    def auto_trial(self) -> Trial | None:
        """backend="auto": what calls of at least `runtime.EXPLORE_LANES` lanes measured for the
        last specialization used, at the size of its last such call (time a lane on each backend,
        and the backend chosen there, None while still measuring), else None."""
        race = self._generations.current().races.get(self._last) if self._last is not None else None
        return race.last if race is not None else None

    def _run(self, kernel: Kernel, batch: runtime.Batch) -> Any:
        try:
            return runtime.run(kernel.fn, self.scalar, batch, kernel.result_types, kernel.returns_tuple,
                               self.scalar.__qualname__,
                               chunked=kernel.backend == "numpy")  # Numba's prange splits the batch itself
        except runtime.LaneOverflowError as exc:
            raise VectorizeOverflowError(str(exc)) from None
        except runtime.LaneValueError as exc:
            raise VectorizeValueError(str(exc)) from None

    def _per_element(self, batch: runtime.Batch) -> Any:
        """The scalar function lane by lane (the fallback, or VECTORIZER_DISABLE=1)."""
        structure = self._result_structure() if batch.size == 0 else None
        try:
            return runtime.per_element(self.scalar, batch, structure)
        except runtime.LaneOverflowError as exc:
            raise VectorizeOverflowError(str(exc)) from None
        except (runtime.LaneValueError, runtime.UnknownResultError) as exc:
            raise VectorizeValueError(str(exc)) from None

    def _result_structure(self) -> tuple[bool, tuple[str, ...]] | None:
        """(returns a tuple?, result kinds) without running a lane: from a specialization that
        compiled, else from the source's `return`s (None when neither says)."""
        gen = self._generations.current()
        for kernel in list(gen.kernels.values()):
            if isinstance(kernel, Kernel):
                return kernel.returns_tuple, tuple(t.partition(":")[0] for t in kernel.result_types)
        from .frontend.arity import static_structure

        return static_structure(self.scalar, gen.namespace)

    # -- specializations ---------------------------------------------------------------------
    def _kernel(self, gen: Generation, key: Key) -> Kernel | VectorizeError:
        found = gen.kernels.get(key)
        if found is None:
            backend = self._resolve_backend(key, gen)
            found = self._build(gen, key, backend)
            gen.kernels[key] = found
            if self.options.backend == "auto" and backend == "numba" and isinstance(found, Kernel):
                gen.races[key] = None  # measured from the first large call
            gen.rewatch()
        return found

    def _resolve_backend(self, key: Key | None, gen: Generation | None = None) -> str:
        backend = self.options.backend
        if backend == "numba" and not _jit().available():
            raise VectorizeError("backend='numba' needs Numba: pip install 'vectorizer[numba]'")
        if backend == "auto":
            if not _jit().available():
                return "numpy"
            if key is None:
                return "auto"
            if any(shape for _, _, shape in key):
                return "numpy"  # functions of per-example arrays: the NumPy backend
            return self._auto_choice(gen or self._generations.current(), key)
        return backend

    def _auto_choice(self, gen: Generation, key: Key) -> str:
        """The cost model's pick, remembered in the disk cache: a warm start must not import libcst
        to parse the function again just to decide."""
        store = cache.default_cache()
        choice_key = cache.cache_key(gen.content, "auto-choice", self.options.key(), repr(key),
                                     engine_fingerprint())
        remembered = store.load(choice_key)
        for backend in ("numpy", "numba"):
            if remembered == f"BACKEND = {backend!r}\n":
                return backend
        from .engine.costmodel import choose

        prepared = self._prepare_or_none(gen)
        backend = choose(prepared[0], prepared[1]) if prepared else "numpy"
        store.store(choice_key, f"BACKEND = {backend!r}\n")
        return backend

    def _build(self, gen: Generation, key: Key, backend: str) -> Kernel | VectorizeError:
        """The kernel for `key` from this generation's globals (its namespace decides the code, its
        content hash the cache entry: both read the same values)."""
        content = gen.content
        cache_key = cache.cache_key(content, backend, self.options.key(), repr(key), engine_fingerprint())
        store = cache.default_cache()
        # VECTORIZER_DUMP_AFTER prints the passes, so they run even when the cache has the result.
        dumped = self._lower(gen, key, backend) if os.environ.get("VECTORIZER_DUMP_AFTER") else None
        if backend == "numba":
            source = store.load(cache_key)
            if source is None:
                generated = dumped or self._lower(gen, key, backend)
                if isinstance(generated, VectorizeError):
                    return generated
                source = generated.source
            fn = _jit().load(source, cache_key, self.scalar.__name__)
            return _kernel_from(fn, source, backend)
        entry = store.load_entry(cache_key)
        if entry is None:
            generated = dumped or self._lower(gen, key, backend)
            if isinstance(generated, VectorizeError):
                return generated
            path = store.store(cache_key, generated.source)
            code = store.load_code(cache_key) if path else compile(generated.source, f"<vectorizer {self.__qualname__}>", "exec")
            source = generated.source
        else:
            source, code = entry
        namespace: dict[str, Any] = {"__name__": f"vz_{cache_key[:16]}"}
        exec(code, namespace)  # noqa: S102 - our own generated module, checked by the cache
        if "_vz_exact" in namespace:  # in process: CPython's math values from compiled loops (exactmath.py)
            from .runtime.exactmath import fast_exact

            namespace["_vz_exact"] = fast_exact
        return _kernel_from(namespace[self.scalar.__name__], source, backend, namespace)

    def _lower(self, gen: Generation, key: Key, backend: str):
        from .core.types import ArrayType, Val, type_of_dtype
        from .pipeline import lower, lower_lanes

        try:
            parsed, namespace = self._prepare(gen)
            params = {n: Val(ArrayType(type_of_dtype(kind), shape) if shape else type_of_dtype(kind), not uniform)
                      for n, (kind, uniform, shape) in zip(self._names, key)}
            return (lower_lanes if backend == "numba" else lower)(parsed, namespace, params, self.options)
        except VectorizeError as exc:
            if self.options.fallback == "error":
                raise
            return exc
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - an engine bug: refused visibly, never the user's call crashing
            error = _engine_bug("transforming", self.scalar, exc)
            if self.options.fallback == "error":
                raise error from exc
            return error

    def _prepare(self, gen: Generation):
        if gen.prepared is None:
            gen.prepared = prepare(self.scalar, gen.namespace)
            gen.rewatch()
        return gen.prepared

    def _prepare_or_none(self, gen: Generation):
        try:
            return self._prepare(gen)
        except VectorizeError:
            return None

    def _annotated_key(self) -> Key:
        kinds = {int: "i", float: "f", bool: "b", "int": "i", "float": "f", "bool": "b"}
        params = self.__signature__.parameters.values()
        return tuple((kinds.get(p.annotation, "f"), False, ()) for p in params)

    def _warn(self, gen: Generation, message: str) -> None:
        if not gen.warned:  # once per function and values of its globals
            gen.warned.append(message)
            warnings.warn(FallbackWarning(f"{self.scalar.__qualname__} runs element by element (slow, exact): {message}"),
                          stacklevel=user_stacklevel())


def _kernel_from(fn: Callable[..., Any], source: str, backend: str, namespace: dict | None = None) -> Kernel:
    module = namespace if namespace is not None else fn.__globals__
    return Kernel(fn, source, backend, tuple(module["VECTORIZER_RESULT"]), bool(module["VECTORIZER_RETURNS_TUPLE"]))


def _engine_bug(doing: str, func: Callable, exc: Exception) -> VectorizeError:
    """An internal error, as a refusal: the caller falls back to the scalar function (with a
    warning) or, with fallback="error", raises this."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    at = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return VectorizeError(f"a vectorizer bug while {doing} {func.__qualname__}: {type(exc).__name__}{at}: {exc}",
                          hint="the function runs element by element meanwhile; please report it with its source",
                          code="VEC-BUG")


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
              reassociate: bool = False, vector_math: bool = False):
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
        vector_math: exp, log, pow, sin, erfc... through glibc's 4-lane AVX2 vector math
            (libmvec): 2-10x faster a call, within the same ulp bound, but not always the same
            last bits as CPython. The NumPy backend calls it from loops compiled with Numba
            (imported on the first call); the Numba backend's kernels call it four lanes at a
            time where the function has no loop (elsewhere they keep the C library's). Needs
            Numba, Linux with glibc 2.35+ and an AVX2 CPU; elsewhere NumPy's or the C library's
            functions run, after one `JitWarning`.
    """
    options = Options(backend=backend, fallback=fallback, reassociate=reassociate, vector_math=vector_math)

    def wrap(f: Callable[..., Any]):
        if isinstance(f, VectorizedFunction):
            f = f.scalar
        if not isinstance(f, types.FunctionType):
            raise VectorizeError(f"vectorize() needs a Python function, got {type(f).__name__}")
        vf = VectorizedFunction(f, options)
        if otypes is None and doc is None and excluded is None and not cache and signature is None:
            return vf  # numpy.vectorize's parameters unused: npcompat (and `re`) stay unimported
        from .faces.npcompat import NumpyVectorized

        return NumpyVectorized(vf, otypes, doc, excluded, cache, signature)

    return wrap if pyfunc is None else wrap(pyfunc)
