"""The import hook: the functions of chosen packages become dual-mode when imported.

    install_import_hook(["mypkg"])   # then mypkg.k.f(0.5) runs the original code and
    import mypkg.k                   # mypkg.k.f(np.array([...])) runs batched code

A meta-path finder claims the modules of the named packages. Its `SourceFileLoader` selects
functions statically (`ast`: annotations, decorators) and APPENDS one line to the source, so every
original line keeps its number: `...._install_dual(globals(), {"f": 3}, {"g": 9}, False)`. That
wraps each selected function at import; the batched code is made on the first array call. The
result is cached as a pyc under a private tag (`k.cpython-311.opt-vz<hash>.pyc`).

Which functions: selection.py; the dual-mode wrapper: dual.py; pyproject.toml: pyproject.py.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import marshal
import sys
import types
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec, SourceFileLoader
from pathlib import Path
from typing import Any

from .. import __version__
from ..backends.numba import jit
from ..core.cache import sha256  # not hashlib: OpenSSL costs ~4 ms of a hooked start
from ..options import BACKENDS, disabled
from .dual import dual
from .pyproject import ConfigError, discovered_table
from .selection import SELECT_MODES, select_functions

TRANSFORM_SCHEMA = 2  # bump when the appended code or the selection rule changes
_NEVER = frozenset({"vectorizer", "numpy", "numba", "llvmlite", "libcst", *sys.stdlib_module_names})
_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {  # [tool.vectorizer.import-hook] keys
    "packages": (lambda v: isinstance(v, list) and all(isinstance(p, str) for p in v), 'a list of names, e.g. ["mypkg"]'),
    "select": (lambda v: v in SELECT_MODES, f"one of {SELECT_MODES}"),
    "strict": (lambda v: isinstance(v, bool), "true or false"),
    "backend": (lambda v: v in BACKENDS, f"one of {BACKENDS}"),
    "exact": (lambda v: isinstance(v, bool), "true or false"),
    "vector-math": (lambda v: isinstance(v, bool), "true or false"),  # deprecated: true means exact = false
}
transformed: list[str] = []  # paths transformed in this process (a warm import adds none)


class ImportHookWarning(UserWarning):
    """The import hook could not transform a module; it was imported unchanged."""


@dataclass(frozen=True)
class HookConfig:
    """What the hook transforms and how. Everything that changes the bytecode is in `tag`."""

    packages: tuple[str, ...]
    select: str = "annotated"
    strict: bool = False
    backend: str = "auto"  # the options of the functions the hook vectorizes (not of @vectorize ones)
    exact: bool = True
    vector_math: bool = False  # deprecated: True means exact=False

    def __post_init__(self) -> None:
        if self.select not in SELECT_MODES:
            raise ValueError(f"select must be one of {SELECT_MODES}, got {self.select!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        for pkg in self.packages:
            if not all(part.isidentifier() for part in pkg.split(".")):
                raise ValueError(f"not a package name: {pkg!r}")
            if pkg.split(".")[0] in _NEVER:
                raise ValueError(f"refusing to hook {pkg!r}: vectorizer, its dependencies and the "
                                 "standard library are never transformed")

    def claims(self, fullname: str) -> bool:
        return any(fullname == p or fullname.startswith(p + ".") for p in self.packages)

    @functools.cached_property
    def tag(self) -> str:
        """The pyc optimization tag: a stable hash (never `hash()`, which is salted per process).

        The package list is not in it: a module's transformed bytecode does not depend on it."""
        key = "\0".join(map(str, (__version__, TRANSFORM_SCHEMA, self.select, self.strict, sys.flags.optimize,
                                  *self.options().items())))
        return "vz" + sha256(key.encode()).hexdigest()[:16]

    def options(self) -> dict[str, Any]:
        """`vectorize` options of the selected functions that differ from its defaults."""
        exact = self.exact and not self.vector_math
        return {k: v for k, v in (("backend", self.backend), ("exact", exact))
                if v != HookConfig.__dataclass_fields__[k].default}


# -- the appended line (runs on a cold import only; the result is in the pyc) ---------------------
def transform_source(text: str, tree: ast.Module, config: HookConfig) -> str | None:
    """The module source with the dual-mode line appended, or None when nothing is selected."""
    eligible, marked = select_functions(tree, config.select)
    if not eligible and not marked:
        return None
    options = config.options()
    line = (f'__import__("vectorizer.faces.importhook", fromlist=["_"])._install_dual('
            f"globals(), {eligible!r}, {marked!r}, {config.strict!r}{f', {options!r}' if options else ''})")
    return text + ("" if text.endswith("\n") else "\n") + line + "  # added by vectorizer's import hook\n"


# -- finder and loader ---------------------------------------------------------------------------
class VectorizerLoader(SourceFileLoader):
    """A source loader that appends the dual-mode line and caches under a private pyc tag."""

    def __init__(self, fullname: str, path: str, config: HookConfig) -> None:
        super().__init__(fullname, path)
        self.config = config
        self._cacheable = True

    def cache_path(self, source_path: str) -> str | None:
        try:
            return importlib.util.cache_from_source(source_path, optimization=self.config.tag)
        except NotImplementedError:  # no sys.implementation.cache_tag
            return None

    def get_code(self, fullname: str) -> types.CodeType:
        """SourceLoader.get_code with our pyc path: timestamp-validated, written atomically."""
        source_path = self.get_filename(fullname)
        pyc = self.cache_path(source_path)
        try:
            st = self.path_stats(source_path)
        except OSError:
            pyc = None
        else:
            header = importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + b"".join(
                (int(v) & 0xFFFFFFFF).to_bytes(4, "little") for v in (st["mtime"], st["size"]))
        if pyc is not None:
            try:
                data = self.get_data(pyc)
                if data[:16] == header:
                    return marshal.loads(memoryview(data)[16:])
            except (OSError, EOFError, ValueError, TypeError):
                pass  # missing or corrupt: a miss
        code = self.source_to_code(self.get_data(source_path), source_path)
        if pyc is not None and self._cacheable and not sys.dont_write_bytecode:
            self.set_data(pyc, header + marshal.dumps(code))  # atomic; failures are ignored
        return code

    def source_to_code(self, data: Any, path: Any, *args: Any, **kwargs: Any) -> types.CodeType:
        text = importlib.util.decode_source(data) if isinstance(data, bytes) else data
        try:
            tree = ast.parse(text, path)
        except SyntaxError:  # the user's error: let the normal compile report it
            return super().source_to_code(data, path, *args, **kwargs)
        try:
            new = transform_source(text, tree, self.config)
            code = super().source_to_code(text if new is None else new, path, *args, **kwargs)
        except Exception as exc:
            if self.config.strict:
                raise ImportError(f"vectorizer import hook failed on {path}: {exc!r}") from exc
            self._cacheable = False  # warn again next time rather than cache the unchanged module
            warnings.warn_explicit(
                f"vectorizer import hook failed on this module ({exc!r}); imported it unchanged. "
                "Please report this as a bug.", ImportHookWarning, str(path), 1)
            return super().source_to_code(data, path, *args, **kwargs)
        transformed.append(str(path))
        import logging  # here: importing it costs ~3 ms of a hooked start-up, and only a cold import logs

        summary = "nothing selected" if new is None else new.rsplit("\n", 2)[-2]
        logging.getLogger("vectorizer.importhook").debug("transformed %s: %s", path, summary)
        return code


class VectorizerFinder(MetaPathFinder):
    """Claims the modules of the configured packages and asks the finders after it for them.

    Only a plain `SourceFileLoader` is replaced: a module another hook loads (pytest's assertion
    rewriter, for the test modules it rewrites) keeps that hook's loader; extension modules,
    namespace packages and zip imports pass through."""

    def __init__(self, config: HookConfig) -> None:
        self.config = config

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> ModuleSpec | None:
        if not self.config.claims(fullname) or self not in sys.meta_path:
            return None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1:]:
            find = getattr(finder, "find_spec", None)
            spec = None if find is None or isinstance(finder, VectorizerFinder) else find(fullname, path, target)
            if spec is not None:
                if type(spec.loader) is SourceFileLoader and spec.origin:  # plain .py files only
                    spec.loader = VectorizerLoader(fullname, spec.origin, self.config)
                    spec.cached = spec.loader.cache_path(spec.origin)
                return spec
        return None


class ImportHookManager:
    """Returned by `install_import_hook`: `.uninstall()`, or use it as a context manager."""

    def __init__(self, finder: VectorizerFinder | None) -> None:
        self.finder = finder

    def uninstall(self) -> None:
        if self.finder is not None and self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)

    def __enter__(self) -> ImportHookManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.uninstall()


def install_import_hook(packages: str | Iterable[str] | None = None, *, select: str | None = None,
                        strict: bool | None = None, backend: str | None = None, exact: bool | None = None,
                        vector_math: bool | None = None) -> ImportHookManager:
    """Make the selected functions of `packages` (and their subpackages) dual-mode when imported.

    Affects later imports only. Arguments left as None come from `[tool.vectorizer.import-hook]`
    in the pyproject.toml found from the current directory by `read_config`'s rule (defaults: select="annotated",
    strict=False, backend="auto", exact=True). `backend` and `exact` are passed to `vectorize`
    for the functions the hook selects; an `@vectorize` function keeps its own. `vector_math`
    (`vector-math`) is deprecated: True means exact=False.
    With VECTORIZER_DISABLE=1 nothing is installed.
    """
    return _install(packages, dict(select=select, strict=strict, backend=backend, exact=exact,
                                   vector_math=vector_math), Path.cwd())


def vectorize_this_package(*, select: str | None = None, strict: bool | None = None, backend: str | None = None,
                           exact: bool | None = None, vector_math: bool | None = None) -> ImportHookManager:
    """Call first thing in a package's `__init__.py`: hooks its submodules imported after the call
    (pyproject.toml is looked for from the package's directory up, by `read_config`'s rule)."""
    caller = sys._getframe(1).f_globals
    package, file = caller.get("__package__") or caller.get("__name__"), caller.get("__file__")
    if not package or package == "__main__":
        raise RuntimeError("vectorize_this_package() must be called from a package's __init__.py")
    return _install(package, dict(select=select, strict=strict, backend=backend, exact=exact, vector_math=vector_math),
                    Path(file).parent if file else Path.cwd())


def _install(packages: str | Iterable[str] | None, given: dict[str, Any], where: Path) -> ImportHookManager:
    if disabled():
        return ImportHookManager(None)
    table = read_config(where) if packages is None or None in given.values() else {}
    packages = table.get("packages", ()) if packages is None else packages
    names = (packages,) if isinstance(packages, str) else tuple(packages)
    if not names:
        raise ValueError("install_import_hook() needs packages (or [tool.vectorizer.import-hook] packages)")
    settings = {key: table.get(key.replace("_", "-"), HookConfig.__dataclass_fields__[key].default)
                if value is None else value for key, value in given.items()}
    config = HookConfig(names, **settings)
    if config.vector_math:
        warnings.warn("install_import_hook(vector_math=True) (vector-math = true) is deprecated: use exact=False "
                      "(exact = false)", DeprecationWarning, stacklevel=3)
    if config.backend == "numba" and not jit.available():  # else every array call would quietly run the original
        raise ValueError("install_import_hook(backend='numba') needs Numba, which is not installed for this Python: pip install numba")
    for finder in sys.meta_path:  # installing the same configuration twice is a no-op
        if isinstance(finder, VectorizerFinder) and finder.config == config:
            return ImportHookManager(finder)
    finder = VectorizerFinder(config)
    sys.meta_path.insert(0, finder)
    return ImportHookManager(finder)


def read_config(start: Path) -> dict[str, Any]:
    """`[tool.vectorizer.import-hook]` of the pyproject.toml that `faces/pyproject.py`'s discovery
    rule finds from `start` (the nearest with a [tool.vectorizer] table, not above the repository
    root), validated; {} for none. Raises ValueError (a ConfigError) naming the file and the key."""
    path, table = discovered_table(start)
    table = table.get("import-hook", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.vectorizer.import-hook] must be a table")
    for key, value in table.items():
        if key not in _CHECKS:
            raise ConfigError(f"{path}: [tool.vectorizer.import-hook]: unknown key {key!r} (known: {', '.join(_CHECKS)})")
        valid, what = _CHECKS[key]
        if not valid(value):
            raise ConfigError(f"{path}: [tool.vectorizer.import-hook]: {key} must be {what}, got {value!r}")
    return table


# -- run time: the appended line calls this --------------------------------------------------------
def _install_dual(namespace: dict[str, Any], eligible: dict[str, int], marked: dict[str, int],
                  strict: bool, options: dict[str, Any] | None = None) -> None:
    """Replace the selected functions of a module being imported by their dual-mode versions."""
    if disabled():
        return
    try:
        from ..api import VectorizedFunction

        for name, line in eligible.items():
            obj = namespace.get(name)
            if isinstance(obj, types.FunctionType) and obj.__code__.co_firstlineno == line:
                namespace[name] = dual(obj, None, options)
        for name, line in marked.items():
            obj = namespace.get(name)
            if isinstance(obj, VectorizedFunction) and obj.scalar.__code__.co_firstlineno == line:
                namespace[name] = dual(obj.scalar, obj)
    except Exception as exc:
        if strict:
            raise
        warnings.warn(f"vectorizer import hook: {namespace.get('__name__')} left unchanged ({exc!r})",
                      ImportHookWarning, stacklevel=2)
