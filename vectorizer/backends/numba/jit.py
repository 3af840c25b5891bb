"""The only module that imports Numba, lazily: availability, loading a generated Numba module
from the on-disk cache (a real file, so Numba's `cache=True` works), its warnings, and the
intrinsics that let LLVM vectorize lane code's libm calls to glibc's vector math (lanemath.py).

Numba's cache of a generated module holds pickles, which run code when loaded: they are kept only
in the ``__pycache__`` of the cache directory in use (our locator, first in Numba's list, claims
every entry), and only after that directory and the module's files in it pass the cache's checks;
else the module compiles with ``cache=False``. Each file carries vectorizer's checksum, verified
before Numba reads it (numbafiles.py). docs/security.md has the threat model."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import tempfile
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...core import cache
from ...errors import user_stacklevel
from . import numbafiles

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
    """Execute a generated Numba module from the cache (or from memory when the cache is unusable),
    with Numba's `cache=True` only where its files are safe to load (`_cache_allowed`)."""
    import numba  # noqa: F401 - fail here, clearly, if it is missing

    store = cache.default_cache()
    path = store.store(key, source) if store.load(key) != source else store.path_for(key)  # ours, not another
    code = store.load_code(key) if path is not None else None
    if code is None:
        namespace: dict[str, Any] = {"__name__": f"vz_{key[:16]}"}
        exec(compile(_uncached(source), f"<vectorizer numba {name}>", "exec"), namespace)  # noqa: S102
        if not cache.warned_unusable():  # a CacheWarning has said why already
            warn_once("nocache", "vectorizer: running Numba kernels without the on-disk cache "
                      "(the cache directory is unusable); every process compiles them again")
        return namespace[name]
    allowed = _cache_allowed(path)
    if not allowed:
        code = compile("\n" + _uncached(source), str(path), "exec")
    # A real, registered module: Numba's cache finds the functions' module by name on reload.
    # One loaded from another directory, or caching where that is no longer allowed, is replaced.
    module = sys.modules.get(path.stem)
    if module is None or getattr(module, "__file__", None) != str(path) or getattr(module, "NUMBA_CACHE", allowed) != allowed \
            or getattr(module, "__vz_source__", None) != source:
        try:
            module = _execute(code, path, source)
        except CacheRefused as exc:  # only if the checks above were bypassed: never cache it
            cache.warn_once("unsafe-numba", f"{exc}; Numba compiles vectorizer's kernels without its cache")
            module = _execute(compile("\n" + _uncached(source), str(path), "exec"), path, source)
    return getattr(module, name)


def _uncached(source: str) -> str:
    return source.replace("NUMBA_CACHE = True", "NUMBA_CACHE = False")


def _execute(code: types.CodeType, path: Path, source: str) -> types.ModuleType:
    module = types.ModuleType(path.stem)
    module.__file__ = str(path)
    module.__vz_source__ = source  # type: ignore[attr-defined]  # reused only for this source
    exec(code, module.__dict__)  # noqa: S102 - our own generated module, checked by the cache
    sys.modules[path.stem] = module
    return module


# -- where Numba keeps the cache of a generated module, and how its files are read: numbafiles.py
LOCATOR = numbafiles.LOCATOR
CacheRefused = numbafiles.CacheRefused
numba_cache_problem = numbafiles.numba_cache_problem
_install_locator = numbafiles.install


def _cache_allowed(path: Path) -> bool:
    """Whether Numba may use its cache for entry `path`: our locator and checked files are in
    place, and the ``__pycache__`` beside the entry and the entry's files in it pass the checks."""
    numbafiles.checked.discard(str(path))
    override = numbafiles.locator_override()
    if override:
        warn_once("locators", f"vectorizer: NUMBA_CACHE_LOCATOR_CLASSES={override!r} does not start with "
                  f"{LOCATOR}; vectorizer's Numba kernels are compiled without Numba's cache")
        return False
    numbafiles.install()
    problem = numba_cache_problem(path)
    if problem is None:
        numbafiles.checked.add(str(path))
        return True
    if not problem[0]:  # unusable, not unsafe (that gave a CacheWarning)
        warn_once("numbacache", f"vectorizer: Numba cannot write its cache beside {path}; compiling without cache=True")
    return False


def __getattr__(name: str) -> Any:  # NUMBA_CACHE_LOCATOR_CLASSES may name LOCATOR
    if name == "NumbaCacheLocator":
        return numbafiles.locator_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cache_load_errors() -> tuple[type[BaseException], ...]:
    """What Numba raises when one of its cache files is damaged (a truncated index or data pickle)."""
    import pickle

    return (pickle.UnpicklingError, EOFError)


def reload_after_damage(fn: Callable[..., Any], source: str, name: str) -> Callable[..., Any]:
    """After a damaged Numba cache file: delete the Numba cache files of `fn`'s module that we own
    and load the module again, so Numba compiles it and writes good files."""
    key = fn.__globals__["__name__"].removeprefix("vz_")
    path = cache.default_cache().path_for(key)
    for stale in (path.parent / "__pycache__").glob(f"{path.stem}.*.nb[ic]"):
        with contextlib.suppress(OSError):
            if not hasattr(os, "getuid") or os.lstat(stale).st_uid == os.getuid():
                stale.unlink()
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


# -- vector math in compiled lane code (lanemath.py) -----------------------------------------
# LLVM's loop vectorizer turns four calls of a scalar function into one call of a vector function
# when the scalar one carries the `vector-function-abi-variant` attribute naming it
# (`_ZGV_LLVM_N4v_vz_exp(_ZGVdN4v_exp)`), and the module declares that vector function.

def vector_call_intrinsics(library: str, functions: dict[str, int]) -> dict[str, Any]:
    """A Numba intrinsic per libmvec function name (its arity in `functions`): a float64 call of
    `vz_<name>`, which runs the library's 4-lane AVX2 `_ZGVdN4v_<name>` on four copies of its
    arguments and returns the first lane, and which LLVM may vectorize to that function."""
    import llvmlite.binding as llvm
    from numba.core import types as nb_types
    from numba.extending import intrinsic

    llvm.load_library_permanently(library)

    def make(name: str, arity: int):
        def codegen(context, builder, signature, args):
            doubles = [context.cast(builder, a, t, nb_types.float64) for a, t in zip(args, signature.args)]
            return builder.call(_vector_mapped(builder.module, name, arity), doubles)

        def typed(*args):
            if not all(isinstance(a, nb_types.Float | nb_types.Integer | nb_types.Boolean) for a in args):
                return None
            return nb_types.float64(*args), codegen

        if arity == 1:  # Numba's intrinsics take named parameters, not *args
            def typer(typingctx, x):
                return typed(x)
        else:
            def typer(typingctx, x, y):
                return typed(x, y)
        typer.__name__ = name
        return intrinsic(typer)

    return {name: make(name, arity) for name, arity in functions.items()}


def _vector_mapped(module, name: str, arity: int):
    """`vz_<name>` in the LLVM module: one lane through the 4-lane function, with its mapping."""
    from llvmlite import ir
    from numba.core import cgutils

    double, four = ir.DoubleType(), ir.VectorType(ir.DoubleType(), 4)
    symbol, vector = f"vz_{name}", f"_ZGVdN4{'v' * arity}_{name}"
    fn = cgutils.get_or_insert_function(module, ir.FunctionType(double, [double] * arity), symbol)
    if not fn.is_declaration:
        return fn
    vfn = cgutils.get_or_insert_function(module, ir.FunctionType(four, [four] * arity), vector)
    fn.linkage = "linkonce_odr"
    builder = ir.IRBuilder(fn.append_basic_block())
    splats = []
    for arg in fn.args:
        lanes = ir.Constant(four, ir.Undefined)
        for lane in range(4):
            lanes = builder.insert_element(lanes, arg, ir.Constant(ir.IntType(32), lane))
        splats.append(lanes)
    builder.ret(builder.extract_element(builder.call(vfn, splats), ir.Constant(ir.IntType(32), 0)))
    for attribute in ("nounwind", "noinline", "readnone"):
        fn.attributes.add(attribute)
    # A string attribute, which llvmlite's attribute set does not list: added as the text it prints.
    set.add(fn.attributes, f'"vector-function-abi-variant"="_ZGV_LLVM_N4{"v" * arity}_{symbol}({vector})"')
    _keep_declared(module, vfn)
    return fn


def _keep_declared(module, fn) -> None:
    """List `fn` in llvm.compiler.used: the vectorizer maps calls only to functions the module
    declares, and an unused declaration would be dropped before it runs."""
    from llvmlite import ir

    used_name = "llvm.compiler.used"
    ptr = ir.IntType(8).as_pointer()
    old = module.globals.get(used_name)
    items = list(old.initializer.constant) if old is not None else []
    if old is not None:
        del module.globals[used_name]
        module.scope._useset.discard(used_name)  # llvmlite has no API to replace a global
    array = ir.ArrayType(ptr, len(items) + 1)
    used = ir.GlobalVariable(module, array, used_name)
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(array, [*items, fn.bitcast(ptr)])


_LLVM_REMARK = r"remark: .*(loop not vectorized|the cost-model indicates|vectorized loop)"
_width_forced_for: set[tuple[str, str]] = set()  # a listener each, however often asked


def force_vector_width(global_name: str, module_name: str) -> None:
    """While Numba compiles a function whose global `global_name` is the module `module_name`
    (generated code's `_vz_lm`): LLVM vectorizes loops by 4 (its cost model does not know that a
    vector call is cheaper, and keeps haversine_km scalar). The option is global to the process;
    Numba compiles one function at a time under its lock, and the option is reset after.

    Under a forced width LLVM reports every loop it cannot vectorize on the process's stderr,
    whatever remarks were asked for. Those lines are dropped: file descriptor 2 goes to a
    temporary file during the compilation, and everything else written there is copied back."""
    if (global_name, module_name) in _width_forced_for:
        return
    _width_forced_for.add((global_name, module_name))
    import re

    import llvmlite.binding as llvm
    from numba.core import event

    remark = re.compile(_LLVM_REMARK)

    class ForceFour(event.Listener):
        def __init__(self) -> None:
            self.depth, self.saved_fd, self.captured = 0, -1, None

        def ours(self, ev) -> bool:
            dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
            found = getattr(getattr(dispatcher, "py_func", None), "__globals__", {}).get(global_name)
            return getattr(found, "__name__", None) == module_name

        def on_start(self, ev) -> None:
            if self.depth == 0 and not self.ours(ev):
                return
            self.depth += 1
            if self.depth == 1:
                sys.stderr.flush()
                self.captured = tempfile.TemporaryFile()
                self.saved_fd = os.dup(2)
                os.dup2(self.captured.fileno(), 2)
                llvm.set_option("", "-force-vector-width=4")

        def on_end(self, ev) -> None:
            if self.depth == 0:
                return
            self.depth -= 1
            if self.depth == 0:
                llvm.set_option("", "-force-vector-width=0")  # 0: LLVM's own choice again
                sys.stderr.flush()
                os.dup2(self.saved_fd, 2)
                os.close(self.saved_fd)
                self.captured.seek(0)
                text = self.captured.read().decode(errors="replace")
                self.captured.close()
                kept = [line for line in text.splitlines(keepends=True) if not remark.match(line)]
                if kept:
                    sys.stderr.write("".join(kept))

    event.register("numba:compile", ForceFour())
