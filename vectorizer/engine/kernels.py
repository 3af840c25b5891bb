"""A specialization's compiled code, a `Kernel`: which backend makes it, how it is loaded from the
disk cache (or from the generated module on a miss), and how it runs over a batch.

`VectorizedFunction` (api.py) decides when a kernel is needed and lowers the function on a miss;
this module does the rest without importing the compiler, so a warm start (every kernel in the
cache) loads neither libcst nor the passes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from ..core import cache
from ..errors import VectorizeError, VectorizeOverflowError, VectorizeValueError
from ..options import Options
from . import execute
from .batch import Batch, UnknownResultError
from .chunks import EXPLORE_LANES
from .fingerprint import Generation, engine_fingerprint
from .loop import per_element as run_per_element
from .patch import LaneOverflowError, LaneValueError

Key = tuple[tuple, ...]  # per parameter: (dtype kind, uniform?, per-example shape)


def jit():  # the Numba glue, loaded on first use: a process on the NumPy backend never needs it
    from ..backends.numba import jit

    return jit


class Kernel:  # a plain class: a NamedTuple costs ~0.2 ms of every start-up, a frozen dataclass ~0.8
    __slots__ = ("fn", "source", "backend", "result_types", "returns_tuple")

    def __init__(self, fn: Callable[..., Any], source: str, backend: str, result_types: tuple[str, ...],
                 returns_tuple: bool) -> None:
        self.fn, self.source, self.backend = fn, source, backend
        self.result_types, self.returns_tuple = result_types, returns_tuple

    def with_fn(self, fn: Callable[..., Any]) -> Kernel:
        return Kernel(fn, self.source, self.backend, self.result_types, self.returns_tuple)


def kernel_from(fn: Callable[..., Any], source: str, backend: str, namespace: dict | None = None) -> Kernel:
    module = namespace if namespace is not None else fn.__globals__
    return Kernel(fn, source, backend, tuple(module["VECTORIZER_RESULT"]), bool(module["VECTORIZER_RETURNS_TUPLE"]))


def engine_bug(doing: str, func: Callable, exc: Exception) -> VectorizeError:
    """An internal error, as a refusal: the caller falls back to the scalar function (with a
    warning) or, with fallback="error", raises this."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    at = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return VectorizeError(f"a vectorizer bug while {doing} {func.__qualname__}: {type(exc).__name__}{at}: {exc}",
                          hint="the function runs element by element meanwhile; please report it with its source",
                          code="VEC-BUG")


def resolve_backend(backend: str, key: Key | None, auto_choice: Callable[[Key], str]) -> str:
    """The backend that builds the kernel for `key` ("auto" while no key says, for `.backend`)."""
    if backend == "numba" and not jit().available():
        raise VectorizeError("backend='numba' needs Numba: pip install 'vectorizer[numba]'")
    if backend == "auto":
        if not jit().available():
            return "numpy"
        if key is None:
            return "auto"
        if any(shape for _, _, shape in key):
            return "numpy"  # functions of per-example arrays: the NumPy backend
        return auto_choice(key)
    return backend


def remembered_choice(content: str, options: Options, key: Key, prepared: Callable[[], Any]) -> str:
    """The cost model's pick, remembered in the disk cache: a warm start must not import libcst
    to parse the function again just to decide. `prepared()` gives (parsed, namespace) or None."""
    store = cache.default_cache()
    choice_key = cache.cache_key(content, "auto-choice", options.key(), repr(key), engine_fingerprint())
    remembered = store.load(choice_key)
    for backend in ("numpy", "numba"):
        if remembered == f"BACKEND = {backend!r}\n":
            return backend
    from .costmodel import choose

    found = prepared()
    backend = choose(found[0], found[1]) if found else "numpy"
    store.store(choice_key, f"BACKEND = {backend!r}\n")
    return backend


def load(cache_key: str, backend: str, scalar: Callable[..., Any], generate: Callable[[], Any]) -> Kernel | VectorizeError:
    """The kernel stored under `cache_key`, or, on a miss, from `generate()` (the generated module,
    or the VectorizeError that refuses the function), stored for the next process. A stored entry
    that does not load as the generated module of this function (it raises when run, or lacks the
    function or its result types: a forged entry with a valid checksum) is a miss too."""
    store = cache.default_cache()
    name = scalar.__name__
    try:
        found = _stored(store, cache_key, backend, name)
    except (MemoryError, Warning):  # a warning the user made an error is theirs to see
        raise
    except Exception:  # noqa: BLE001 - the entry on disk, not the engine: a fresh one replaces it
        found = None
    if found is not None:
        return found
    generated = generate()
    if isinstance(generated, VectorizeError):
        return generated
    source = generated.source
    if backend == "numba":
        return kernel_from(jit().load(source, cache_key, name), source, backend)
    path = store.store(cache_key, source)  # replaces an entry that was not usable
    code = store.load_code(cache_key) if path else None
    return _numpy_kernel(code or compile(source, f"<vectorizer {scalar.__qualname__}>", "exec"), source, cache_key, name)


def _stored(store: cache.CodeCache, cache_key: str, backend: str, name: str) -> Kernel | None:
    """The kernel from the entry on disk if there is one of the right shape, else None."""
    if backend == "numba":
        source = store.load(cache_key)  # None: missing, damaged or unsafe
        if source is None:
            return None
        fn = jit().load(source, cache_key, name)  # raises for a source that is not Python
        return kernel_from(fn, source, backend) if _shaped(fn, fn.__globals__) else None
    entry = store.load_entry(cache_key)  # None: missing, damaged, unsafe, or not Python
    return None if entry is None else _numpy_kernel(entry[1], entry[0], cache_key, name, check=True)


def _shaped(fn: Any, module: dict) -> bool:
    """Whether a loaded module is a generated one: `fn` callable, result types and shape given."""
    result = module.get("VECTORIZER_RESULT")
    return callable(fn) and isinstance(result, (tuple, list)) and all(isinstance(r, str) for r in result) \
        and isinstance(module.get("VECTORIZER_RETURNS_TUPLE"), bool)


def _numpy_kernel(code: Any, source: str, cache_key: str, function: str, check: bool = False) -> Kernel | None:
    """The NumPy backend's kernel from its module's code (None if `check` finds it misshapen)."""
    namespace: dict[str, Any] = {"__name__": f"vz_{cache_key[:16]}"}
    exec(code, namespace)  # noqa: S102 - our own generated module, checked by the cache
    if check and not _shaped(namespace.get(function), namespace):
        return None
    if "_vz_exact" in namespace:  # in process: CPython's math values from compiled loops (exactmath.py)
        from ..backends.numba.exactloops import fast_exact

        namespace["_vz_exact"] = fast_exact
    for name in ("erf", "erfc"):  # and libm's erf/erfc in one compiled pass, not NumPy's ~10
        if f"_vz_{name}" in namespace:
            from ..backends.numba.exactloops import fast_function

            namespace[f"_vz_{name}"] = fast_function(name, namespace[f"_vz_{name}"])
    return kernel_from(namespace[function], source, "numpy", namespace)


def run(kernel: Kernel, scalar: Callable[..., Any], batch: Batch) -> Any:
    """The kernel over the batch; a lane's overflow or bad value as the user-facing error."""
    try:
        return execute.run(kernel.fn, scalar, batch, kernel.result_types, kernel.returns_tuple, scalar.__qualname__,
                           chunked=kernel.backend == "numpy")  # Numba's prange splits the batch itself
    except LaneOverflowError as exc:
        raise VectorizeOverflowError(str(exc)) from None
    except LaneValueError as exc:
        raise VectorizeValueError(str(exc)) from None


def per_element(scalar: Callable[..., Any], batch: Batch, structure: tuple[bool, tuple[str, ...]] | None) -> Any:
    """The scalar function lane by lane (the fallback, or VECTORIZER_DISABLE=1)."""
    try:
        return run_per_element(scalar, batch, structure)
    except LaneOverflowError as exc:
        raise VectorizeOverflowError(str(exc)) from None
    except (LaneValueError, UnknownResultError) as exc:
        raise VectorizeValueError(str(exc)) from None


# -- backend="auto" on Numba: races against the NumPy kernel (autotrial.py) -----------------------
def race(gen: Generation, key: Key, kernel: Kernel, batch: Batch,
         build_numpy: Callable[[], Kernel | VectorizeError], run_kernel: Callable[[Kernel, Batch], Any]
         ) -> tuple[Any, str]:
    """A call of the Numba `kernel` that auto chose without seeing data, timed against the NumPy
    kernel until one wins at its size: (the result, the backend that ran it)."""
    found = gen.races[key]
    if found is None:
        from .autotrial import Race

        found = gen.races[key] = Race()
    return found.call(batch, kernel, lambda: racing_numpy(gen, key, kernel, build_numpy), run_kernel,
                      kernel.returns_tuple)


def racing_numpy(gen: Generation, key: Key, kernel: Kernel, build_numpy: Callable[[], Kernel | VectorizeError]
                 ) -> Kernel | None:
    """The NumPy kernel that races the Numba `kernel`, built once; None where there is none."""
    if key not in gen.numpy_kernels:
        try:
            found: Kernel | VectorizeError = build_numpy()
        except VectorizeError as exc:  # fallback="error": only the NumPy backend refuses it
            found = exc
        same = isinstance(found, Kernel) and found.result_types == kernel.result_types \
            and found.returns_tuple == kernel.returns_tuple
        gen.numpy_kernels[key] = found if same else None
        if not same:
            gen.races.pop(key, None)
    return gen.numpy_kernels[key]


def numba_short_path(races: dict, key: Key, size: int) -> tuple[int, tuple[int, int]]:
    """The lanes the short path may run on Numba for `key` after a call of `size` lanes: up to a
    limit, and a window beyond it (autotrial.Race: the size classes auto decided for Numba)."""
    if key not in races:
        return sys.maxsize, (1, 0)
    found = races[key]
    if found is None:
        return EXPLORE_LANES - 1, (1, 0)
    return found.fast_limit(), found.numba_window(size)
