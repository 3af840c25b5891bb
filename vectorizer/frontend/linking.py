"""Calls across modules: give every global a function reads the meaning it has in ITS OWN module.

A vectorized function may call functions imported from other modules (`from .units import
to_radians`), read module attributes (`units.SCALE`, `stime.get_julian_century(jd)`), call static
methods through their class (`Math.remainder(x, 360)`) and NumPy functions imported by name (`from
numpy import radians`). The passes resolve every name through ONE namespace, the vectorized
function's (`Namespace.resolve`), and inline callees into it. So before the fence runs, each tree is
rewritten ("linked"):

* a name or attribute chain that reaches a Python function, a number or a tuple of numbers (read
  now, from the live module: the cache key covers it, engine/fingerprint.py) becomes a name of the
  vectorized function's namespace: its own spelling when that already means the same object there,
  else a fresh link name (`units_SCALE`) registered in `Namespace.links`;
* a NumPy function imported by name becomes `np.<name>`, which the NumPy rules know;
* everything else keeps its spelling and, where the vectorized function's module would read the
  name differently, a link to what it means in its own module (unknown names stay unknown, and
  the fence refuses them).

Linked nodes keep the positions of the nodes they replace, so errors point at the real source
(the rewriting of one tree: frontend/link_rewrite.py).
The module of each linked function is recorded (`Linker.home`): a callee's own globals resolve in
its own module. Only live namespaces link (the CLI reads modules without importing them).
"""

from __future__ import annotations

import builtins
import math
import operator
import types

import libcst as cst

from ..core.probe import scalar_of
from ..core.tree import target_names, walk
from ..rules.arrays import ARRAY_CALLS
from .callables import unwrap
from .link_rewrite import LinkRewriter, relocated
from .namespace import Global, Namespace, builtin_global, normalize_constant
from .parse import ParsedFunction
from .reach import plain_constant
from .refusals import RESERVED_GLOBALS, RESERVED_LOCALS, RESERVED_PREFIXES, local_names
from .static_objects import is_static_object, keyable, static_callable


def linker_of(namespace: Namespace) -> Linker | None:
    """The linker of a live namespace (made on first use), None for one judged from source."""
    if namespace.globals is None:
        return None
    found = namespace.linker
    return found if isinstance(found, Linker) else Linker(namespace)


def link_root(parsed: ParsedFunction, namespace: Namespace) -> ParsedFunction:
    """The vectorized function's tree, linked (unchanged for a namespace judged from source)."""
    # Imports inside the function first, so the linker sees their names (lazy: it imports this module).
    from .local_imports import hoist

    parsed = hoist(parsed, namespace)
    linker = linker_of(namespace)
    if linker is None:
        return parsed
    linker.root_file = parsed.source.filename  # origin comments name other files (annotate_origins)
    return linker.link(parsed, namespace)


class Linker:
    """The links of one vectorized function's namespace (`root`) and the modules they lead to."""

    def __init__(self, root: Namespace) -> None:
        self.root = root
        root.linker = self
        self.homes: dict[str, Namespace] = {}  # a function Global's name -> its own module's namespace
        self.modules: dict[object, Namespace] = {id(root.globals): root}
        self.targets: dict[tuple, str] = {}  # what a link means -> its name (one name per meaning)
        self.reads: list[tuple[object, str, object]] = []  # (module dict or object, name, what it gave)
        self.avoid: set[str] = set()  # the locals of every function linked: link names avoid them
        self.root_file: str | None = None  # the vectorized function's file

    # -- what a live object means ----------------------------------------------------------------
    def namespace_of(self, func: types.FunctionType) -> Namespace:
        """The names `func` reads, as its module binds them; a closure's with its cells (one
        namespace per closure: two closures of one factory hold different values)."""
        key: object = id(func.__globals__) if not func.__closure__ else ("closure", id(func))
        if key not in self.modules:
            found = Namespace.of_function(func)
            if func.__closure__:
                found.home_function = func  # type: ignore[attr-defined] - keeps its id its own
            self.modules[key] = found
        return self.modules[key]

    def home(self, glob: Global) -> Namespace:
        found = self.homes.get(glob.name)
        if found is not None:
            return found
        if glob.kind == "function" and isinstance(glob.value, types.FunctionType) and glob.value.__closure__:
            return self.namespace_of(glob.value)  # a closure of the module: its cells are its names
        return self.root

    def meaning(self, obj: object, spelled: str) -> Global | tuple | None:
        """The Global a live object gives a linked name, `("np", name)` for a NumPy function, or
        None when it has no meaning here (the name is left for the fence)."""
        scalar = scalar_of(obj)  # a @vectorize-decorated function
        if isinstance(scalar, types.FunctionType):
            obj = scalar
        if isinstance(obj, types.FunctionType):
            # A functools.wraps wrapper runs other code than the source inspect shows (the wrapped
            # function's): linked as the wrapped function only when it passes its arguments
            # through (frontend/callables.py). A closure's names are its cells (namespace_of).
            obj = unwrap(obj)
            if obj is None or obj.__name__ == "<lambda>":
                return None
            return Global("function", spelled, obj)
        if isinstance(obj, types.BuiltinFunctionType) and getattr(math, obj.__name__, None) is obj:
            return Global("math_func", f"math.{obj.__name__}")
        if obj is operator.index:
            return Global("builtin", "operator.index")
        if isinstance(obj, types.BuiltinFunctionType) and getattr(builtins, obj.__name__, None) is obj:
            return None  # builtins keep their spelling (the namespaces agree on them)
        if _numpy_callable(obj):
            return ("np", obj.__name__)  # type: ignore[attr-defined]
        if plain_constant(obj):
            return Global("constant", spelled, normalize_constant(obj))
        if is_static_object(obj) and keyable(obj) or static_callable(obj):  # a module-level instance, a bound
            return Global("value", spelled, obj)  # method...: the specialization reads it (static_methods.py)
        return None

    # -- linking one tree ----------------------------------------------------------------------------
    def link(self, parsed: ParsedFunction, own: Namespace) -> ParsedFunction:
        """`parsed` (a function of the module `own` resolves) with its globals linked."""
        locals_ = local_names(parsed.func)
        for node in walk(parsed.func):  # comprehension variables are local too (not in local_names)
            if isinstance(node, cst.CompFor):
                locals_ |= set(target_names(node.target))
        self.avoid |= locals_
        linker = LinkRewriter(self, own, locals_ | {"True", "False", "None"})
        func = parsed.func.visit(linker)
        if not linker.pairs or func is parsed.func:
            return parsed
        return relocated(parsed, func, linker.pairs)  # type: ignore[arg-type]

    def name_for(self, glob: Global, own: Namespace, spelled: str, locals_: set[str]) -> str:
        """The root's name for `glob` as `own` reads `spelled`: the spelling itself where the root
        reads it the same, else a link name."""
        home = self.namespace_of(glob.value) if glob.kind == "function" else None  # type: ignore[arg-type]
        if "." not in spelled and spelled in self.root.globals:  # type: ignore[operator]
            # (a name the root does not bind is not resolved there: it would be watched for nothing)
            current = self.root.resolve(spelled)
            if _key(current) == _key(glob):
                return spelled  # already what the root's own resolution gives
            if own is self.root and current.kind == "unknown":  # e.g. an imported function
                self.root.links[spelled] = _renamed(glob, spelled)
                if home is not None:
                    self.homes[spelled] = home
                return spelled
        key = _key(glob)
        name = self.targets.get(key)
        if name is None or name in locals_:
            name = self._fresh(spelled, locals_, own)
            self.targets[key] = name
            self.root.links[name] = _renamed(glob, name)
            if home is not None:
                self.homes[name] = home
        return name

    def _fresh(self, spelled: str, avoid: set[str], own: Namespace | None = None) -> str:
        """A new link name: the spelling's parts joined by `_`; if the root has that name, with
        the other module's name in front (`other_SCALE`), then numbered."""
        base = "_".join(part for part in spelled.split(".") if part).lstrip("_") or "linked"
        if base[0].isdigit():
            base = "v" + base
        taken = set(self.root.globals or ()) | set(self.root.links) | avoid | self.avoid | RESERVED_LOCALS | RESERVED_GLOBALS

        def free(name: str) -> bool:
            return name not in taken and not name.startswith(RESERVED_PREFIXES) and not hasattr(builtins, name)

        if not free(base) and own is not None and own is not self.root and "." not in spelled:
            prefixed = f"{own.module.rsplit('.', 1)[-1].lstrip('_')}_{base}"
            base = prefixed if prefixed.isidentifier() else base
        name, n = base, 1
        while not free(name):
            n += 1
            name = f"{base}_{n}"
        return name

    def root_reads(self, name: str) -> Global:
        """What the root reads `name` as; a name it does not bind is not resolved there (it
        would be watched for nothing), but judged as Namespace.resolve would."""
        if name in self.root.globals or name in self.root.links:  # type: ignore[operator]
            return self.root.resolve(name)
        if name == "np":
            return Global("numpy", "numpy")
        return builtin_global(name) if hasattr(builtins, name) else Global("unknown", name)

    def numpy_base(self, avoid: set[str]) -> str:
        """A name the root reads as the numpy module (`np` unless the root binds `np` otherwise)."""
        if self.root.resolve("np").kind == "numpy":
            return "np"
        glob = Global("numpy", "numpy")
        key = _key(glob)
        if key not in self.targets:
            self.targets[key] = name = self._fresh("numpy", avoid)
            self.root.links[name] = glob  # type: ignore[attr-defined]
        return self.targets[key]


def _numpy_callable(obj: object) -> bool:
    try:
        name = getattr(obj, "__name__", None)
    except Exception:  # noqa: BLE001 - a user object's __getattr__ (a lazy proxy) raised: not NumPy's
        return False
    if not isinstance(name, str) or f"np.{name}" not in ARRAY_CALLS:
        return False
    import sys

    numpy = sys.modules.get("numpy")
    return numpy is not None and getattr(numpy, name, None) is obj


def _renamed(glob: Global, name: str) -> Global:
    return Global(glob.kind, name if glob.kind in ("function", "constant", "value") else glob.name, glob.value)


def _key(glob: Global) -> tuple:
    if glob.kind in ("function", "value"):
        return (glob.kind, id(glob.value))
    if glob.kind == "constant":
        return ("constant", _typed(glob.value))
    return (glob.kind, glob.name)


def _typed(value: object) -> object:
    """A constant as a key: 1, 1.0 and True differ, and so do 0.0 and -0.0 and NaNs match."""
    if isinstance(value, tuple):
        return tuple(_typed(v) for v in value)
    return (type(value).__name__, repr(value))
