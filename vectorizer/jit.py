"""The only module that imports Numba, lazily: availability, loading a generated Numba module
from the on-disk cache (a real file, so Numba's `cache=True` works), and its warnings."""

from __future__ import annotations

import importlib.util
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any

from . import cache
from .errors import user_stacklevel

_warned: set[str] = set()


class JitWarning(UserWarning):
    """Numba could not be used as asked (not installed, cannot compile, cannot cache)."""


def available() -> bool:
    """Is Numba installed? (Does not import it.)"""
    return importlib.util.find_spec("numba") is not None


def cpu_has(feature: str) -> bool:
    """Whether LLVM finds `feature` ("avx2") on this CPU (imports llvmlite, not Numba)."""
    import llvmlite.binding as llvm

    return bool(llvm.get_host_cpu_features().get(feature, False))


def warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(message, JitWarning, stacklevel=user_stacklevel())


def load(source: str, key: str, name: str) -> Callable[..., Any]:
    """Execute a generated Numba module from the cache (or from memory when the cache is unusable)."""
    import numba  # noqa: F401 - fail here, clearly, if it is missing

    store = cache.default_cache()
    path = store.store(key, source) if store.load(key) is None else store.path_for(key)
    code = store.load_code(key) if path is not None else None
    namespace: dict[str, Any] = {"__name__": f"vz_{key[:16]}"}
    if code is None:
        warn_once("nocache", "vectorizer: running Numba kernels without the on-disk cache "
                  "(the cache directory is unusable); every process compiles them again")
        exec(compile(source.replace("NUMBA_CACHE = True", "NUMBA_CACHE = False"), f"<vectorizer numba {name}>", "exec"), namespace)  # noqa: S102
        return namespace[name]
    if not cache.numba_cache_writable(path):
        warn_once("numbacache", f"vectorizer: Numba cannot write its cache beside {path}; compiling without cache=True")
        source = source.replace("NUMBA_CACHE = True", "NUMBA_CACHE = False")
        code = compile("\n" + source, str(path), "exec")
    # A real, registered module: Numba's cache finds the functions' module by name on reload.
    module = sys.modules.get(path.stem)
    if module is None:
        module = types.ModuleType(path.stem)
        module.__file__ = str(path)
        exec(code, module.__dict__)  # noqa: S102 - our own generated module, checked by the cache
        sys.modules[path.stem] = module
    return getattr(module, name)


def cache_load_errors() -> tuple[type[BaseException], ...]:
    """What Numba raises when one of its cache files is damaged (a truncated index or data pickle)."""
    import pickle

    return (pickle.UnpicklingError, EOFError)


def reload_after_damage(fn: Callable[..., Any], source: str, name: str) -> Callable[..., Any]:
    """After a damaged Numba cache file: delete the Numba cache files of `fn`'s module and load
    the module again, so Numba compiles it and writes good files."""
    key = fn.__globals__["__name__"].removeprefix("vz_")
    path = cache.default_cache().path_for(key)
    for stale in (path.parent / "__pycache__").glob(f"{path.stem}.*.nb[ic]"):
        stale.unlink(missing_ok=True)
    sys.modules.pop(path.stem, None)
    warn_once(f"damaged:{key}", f"vectorizer: a damaged Numba cache file for {name} was removed; compiling it again")
    return load(source, key, name)


def compile_errors() -> tuple[type[BaseException], ...]:
    """Numba's compilation errors (nothing to catch when Numba was never imported)."""
    numba = sys.modules.get("numba")
    if numba is None:
        return ()
    from numba.core.errors import NumbaError

    return (NumbaError,)
