"""A specialization's compiled code, a `Kernel`: which backend makes it, how it is loaded from the
disk cache (or from the generated module on a miss), and how it runs over a batch.

`VectorizedFunction` (api.py) decides when a kernel is needed and lowers the function on a miss;
this module does the rest without importing the compiler, so a warm start (every kernel in the
cache) loads neither libcst nor the passes.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

from ..core import cache
from ..errors import (
    InexactWarning,
    VectorizeError,
    VectorizeOverflowError,
    VectorizeValueError,
    internal_error,
    user_stacklevel,
)
from ..options import Options
from . import execute
from .batch import Batch, UnknownResultError
from .fingerprint import engine_fingerprint
from .loop import per_element as run_per_element
from .none_lines import refusal_text
from .patch import LaneOverflowError, LaneValueError

Key = tuple[tuple, ...]  # per parameter: (dtype kind, uniform?, per-example shape)


def jit():  # the Numba glue, loaded on first use: a process on the NumPy backend never needs it
    from ..backends.numba import jit

    return jit


def numba_installed() -> bool:
    """`jit().available()`, without importing the glue where it is not loaded yet (a warm start on
    the NumPy route needs neither it nor Numba)."""
    glue = sys.modules.get(f"{__package__.rpartition('.')[0]}.backends.numba.jit")
    if glue is not None:
        return glue.available()
    import importlib.util

    return importlib.util.find_spec("numba") is not None


class Route(str):
    """A backend's name ("numpy", "numba") with why it runs a specialization (`why`): what
    `.backend` answers. It compares, hashes and prints as the name."""

    why: str

    def __new__(cls, backend: str, why: str = "") -> Route:
        route = super().__new__(cls, backend)
        route.why = why
        return route

    def __reduce__(self):
        return Route, (str(self), self.why)


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
    return internal_error(doing, func.__qualname__, exc)


def resolve_backend(backend: str, key: Key | None, auto_choice: Callable[[Key], Route]) -> Route:
    """The route that builds the kernel for `key` ("auto" while no key says, for `.backend`)."""
    if backend == "numba" and not numba_installed():
        raise VectorizeError("backend='numba' needs Numba, which is not installed for this Python: pip install numba")
    if backend == "jax":
        from ..backends.jax import available

        if not available():
            raise VectorizeError("backend='jax' needs JAX: pip install 'vectorizer[jax]'")
    if backend == "auto":
        if not numba_installed():
            return Route("numpy", "Numba is not installed: the NumPy route")
        if key is None:
            return Route("auto", "no call yet: the route is chosen per argument kinds and shapes")
        if any(shape for _, _, shape in key):
            return Route("numpy", "per-example arrays: the NumPy route")
        return auto_choice(key)
    return Route(backend, f"backend={backend!r}")


def remembered_choice(content: str, options: Options, key: Key, prepared: Callable[[], Any]) -> Route:
    """The cost model's pick (costmodel.py), remembered in the disk cache: a warm start must not
    import libcst to parse the function again just to decide. `prepared()` gives (parsed,
    namespace) or None. The machine's thread count is part of the key: the pick depends on it."""
    from .chunks import simd_math, threads

    store = cache.default_cache()
    machine = f"threads={threads()},simd_math={simd_math()}"
    choice_key = cache.cache_key(content, "auto-route", options.key(), repr(key), machine, engine_fingerprint())
    remembered = store.load(choice_key)
    if remembered is not None:
        lines = remembered.splitlines()
        if len(lines) == 2 and lines[0] in ("numpy", "numba"):
            return Route(lines[0], lines[1])
    found = prepared()  # first: a function without source must not import the compiler (libcst)
    if found:
        from .costmodel import choose

        route = choose(found[0], found[1], exact=options.exact)
    else:
        route = Route("numpy", "the function does not parse for the cost model: the NumPy route reports why")
    store.store(choice_key, f"{route}\n{route.why}\n")
    return route


def lowering_options(options: Options, backend: str) -> Options:
    """The options a kernel is generated with. The exact NumPy route computes its transcendental
    calls in loops Numba compiles over the C library; where Numba is not installed, NumPy's
    functions run instead (within the ulp bound): `warn_if_inexact` says so once."""
    if options.exact and backend == "numpy" and not numba_installed():
        return options.replace(exact=False, vector_math=False)
    return options


def machine_key(options: Options) -> str:
    """What of this machine the generated code depends on, for its cache key: with exact=False,
    whether NumPy's exp/log/power are AVX-512 kernels (kept) or not (vector math's instead:
    passes/vector_math.py); nothing with exact=True, whose code is the same everywhere."""
    if options.exact:
        return ""
    from .chunks import (
        simd_math,  # the same reading as vecmath.numpy_simd, without the Numba glue
    )

    return f"numpy_simd={simd_math()}"


def warn_if_inexact(options: Options, backend: str, kernel: Kernel | VectorizeError) -> None:
    """One InexactWarning a process, at the first kernel that exact=True would have computed with
    CPython's math but that runs NumPy's functions because Numba is not installed."""
    if _inexact_warned or not options.exact or backend != "numpy" or not isinstance(kernel, Kernel) \
            or numba_installed():
        return
    from ..runtime.exactmath import approximate_calls

    found = approximate_calls(kernel.source)
    if found:
        _inexact_warned.append(True)
        warnings.warn(InexactWarning(
            f"vectorizer: Numba is not installed for this Python, so {', '.join(found)}... are NumPy's functions: "
            "their results may differ from CPython's in the last bits (within the bound of docs/contract.md); ints, "
            "bools, branches, trip counts and exceptions stay exact. pip install numba gives CPython's bits"),
            stacklevel=user_stacklevel())


_inexact_warned: list[bool] = []


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
    return _numpy_kernel(code or compile(source, f"<vectorizer {scalar.__qualname__}>", "exec"), source, cache_key, name,
                         backend)


def _stored(store: cache.CodeCache, cache_key: str, backend: str, name: str) -> Kernel | None:
    """The kernel from the entry on disk if there is one of the right shape, else None."""
    if backend == "numba":
        source = store.load(cache_key)  # None: missing, damaged or unsafe
        if source is None:
            return None
        fn = jit().load(source, cache_key, name)  # raises for a source that is not Python
        return kernel_from(fn, source, backend) if _shaped(fn, fn.__globals__) else None
    entry = store.load_entry(cache_key)  # None: missing, damaged, unsafe, or not Python
    return None if entry is None else _numpy_kernel(entry[1], entry[0], cache_key, name, backend, check=True)


def _shaped(fn: Any, module: dict) -> bool:
    """Whether a loaded module is a generated one: `fn` callable, result types and shape given."""
    result = module.get("VECTORIZER_RESULT")
    return callable(fn) and isinstance(result, (tuple, list)) and all(isinstance(r, str) for r in result) \
        and isinstance(module.get("VECTORIZER_RETURNS_TUPLE"), bool)


def _numpy_kernel(code: Any, source: str, cache_key: str, function: str, backend: str,
                  check: bool = False) -> Kernel | None:
    """The NumPy backend's kernel from its module's code (None if `check` finds it misshapen)."""
    namespace: dict[str, Any] = {"__name__": f"vz_{cache_key[:16]}"}
    exec(code, namespace)  # noqa: S102 - our own generated module, checked by the cache
    if check and not _shaped(namespace.get(function), namespace):
        return None
    if "_vz_exact" in namespace:  # in process: CPython's math values from compiled loops (exactcalls.py)
        from .exactcalls import exact_math

        namespace["_vz_exact"] = exact_math()
    for name in ("erf", "erfc"):  # and libm's erf/erfc in one compiled pass, not NumPy's ~10
        if f"_vz_{name}" in namespace:
            from .exactcalls import exact_math

            namespace[f"_vz_{name}"] = exact_math().function(name, namespace[f"_vz_{name}"])
    return kernel_from(namespace[function], source, backend, namespace)  # backend: the Route, with its why


def run(kernel: Kernel, scalar: Callable[..., Any], batch: Batch) -> Any:
    """The kernel over the batch; a lane's overflow or bad value as the user-facing error."""
    try:
        return execute.run(kernel.fn, scalar, batch, kernel.result_types, kernel.returns_tuple, scalar.__qualname__,
                           chunked=kernel.backend == "numpy")  # Numba's prange splits the batch itself
    except LaneOverflowError as exc:
        raise VectorizeOverflowError(str(exc)) from None
    except LaneValueError as exc:
        raise VectorizeValueError(refusal_text(scalar, batch, exc)) from None


def per_element(scalar: Callable[..., Any], batch: Batch, structure: tuple[bool, tuple[str, ...]] | None) -> Any:
    """The scalar function lane by lane (the fallback, or VECTORIZER_DISABLE=1)."""
    try:
        return run_per_element(scalar, batch, structure)
    except LaneOverflowError as exc:
        raise VectorizeOverflowError(str(exc)) from None
    except (LaneValueError, UnknownResultError) as exc:
        raise VectorizeValueError(str(exc)) from None
