"""What the global names a function reads refer to: `math`, builtins, same-module functions, constants.

Two ways to build it: from a live function (`__globals__`, for the decorator and the import hook)
or statically from a module's source (for the CLI, which never imports user code). Either way the
answer for a name is a `Global`; anything else is unknown and the fence refuses it. A live
namespace also records the object each name was bound to when it was resolved (`seen`, ABSENT
for an unbound name): kernels made from it are valid while the module binds the same objects
(fingerprint.Watch).
"""

from __future__ import annotations

import ast
import builtins
import math
import numbers
import operator
import types
from collections.abc import Callable

from ..core.probe import scalar_of
from ..core.record import Record
from ..core.tables import table_of
from .source import FunctionSource, source_of

# Builtins with an exact batched meaning (see rules.py).
SUPPORTED_BUILTINS = frozenset(
    {"abs", "min", "max", "round", "int", "float", "bool", "pow", "divmod", "range", "len"}
)
# Builtins that are refused with a specific explanation.
SIDE_EFFECT_BUILTINS = {
    "print": "'print' writes output per call; the batched function cannot reproduce its order",
    "input": "'input' reads from the terminal",
    "open": "'open' does file I/O",
    "exec": "'exec' runs dynamic code",
    "eval": "'eval' runs dynamic code",
    "globals": "'globals' exposes mutable module state",
    "setattr": "'setattr' mutates objects",
    "id": "'id' depends on object identity",
    "hash": "'hash' depends on object identity",
    "iter": "iterators are stateful",
    "next": "iterators are stateful",
}
SIDE_EFFECT_MODULES = {
    "random": "random numbers differ per lane and per call",
    "time": "time is a side effect",
    "os": "the operating system is a side effect",
    "sys": "interpreter state is a side effect",
}

Constant = "int | float | bool | tuple"
ABSENT = object()  # `seen` value of a name the module does not bind (a builtin, or nothing)


class Global(Record):
    """What a global name refers to."""

    __slots__ = ("kind", "name", "value")
    kind: str  # 'math' | 'math_func' | 'constant' | 'builtin' | 'function' | 'value' | 'unknown'
    name: str  # canonical name: 'math.sqrt', 'abs', a function's qualname, ...
    value: object  # the constant value, the callee's FunctionSource, or a 'value' (a static object,
    # or another module's str, None, enum member or class: frontend/static_objects.py), which
    # only the specialization reads (passes/specialize.py)

    def __init__(self, kind: str, name: str, value: object = None) -> None:
        self._set(kind=kind, name=name, value=value)


class Namespace:
    """Resolves the global names of one module."""

    def __init__(self, module: str, lookup: Callable[[str], Global], globals_: dict | None = None) -> None:
        self.module = module
        self.lookup = lookup
        self.globals = globals_  # the live module's dict (None: judged from source)
        self.seen: dict[str, object] = {}  # name -> the object it was bound to when resolved
        self.snapshots: dict[str, tuple] = {}  # name -> a module-level list's items when resolved
        self._cache: dict[str, Global] = {}
        # Names linked to what another module's function means by them (frontend/linking.py).
        self.links: dict[str, Global] = {}
        self.linker: object = None
        # (container, name, object) read in other modules for the cache key (engine/fingerprint.py)
        self.watched: list[tuple[object, str, object]] = []
        # The span of `watched` that is what other modules' (and closures') code reached reads
        # (engine/contentkey.py); the rest: the root module's own reads, and lowering's
        self.transitive: tuple[int, int] = (0, 0)
        # (id(container), name) whose values the disk cache's key holds (engine/fingerprint.py):
        # what a call evaluated when the code is generated may read; None: no key (the CLI)
        self.covered: set[tuple[int, object]] | None = None
        # A closure's free variables (name -> its cell): they mean what the cell holds, read when
        # resolved (`cell_reads`: name -> (cell, object), which fingerprint.Watch checks)
        self.cells: dict[str, types.CellType] = {}
        self.cell_reads: dict[str, tuple[types.CellType, object]] = {}
        # Copies of functions specialized on sequence arguments (frontend/sequence_args.py): name ->
        # (its source, parameter -> sequence, key, depth)
        self.sequence_specs: dict[str, tuple] = {}
        # Copies of functions a tuple of values is passed to (frontend/tuple_args.py): name -> (its
        # source, parameter -> its item parameters, the parameters passed, key)
        self.tuple_specs: dict[str, tuple] = {}

    def resolve(self, name: str) -> Global:
        linked = self.links.get(name)
        if linked is not None:
            return linked
        if name not in self._cache:
            found = self.lookup(name)
            if name == "np" and found.kind == "unknown" and found.name == "np":
                # Unbound in the user's module (their code cannot have used it): passes may emit
                # `np.` and generated modules import NumPy under that name.
                found = Global("numpy", "numpy")
            self._cache[name] = found
        return self._cache[name]

    def value_of(self, name: str) -> object:
        """The object a free variable's cell or the module binds `name` to now, ABSENT for none."""
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return cell.cell_contents
            except ValueError:  # an empty cell (bound later by the enclosing function)
                return ABSENT
        return ABSENT if self.globals is None else self.globals.get(name, ABSENT)

    def define(self, name: str, glob: Global) -> None:
        """Bind a name the module does not have (a local table hoisted by frontend/desugar.py)."""
        self._cache[name] = glob

    def define_table(self, base: str, values: tuple, taken: set[str]) -> str:
        """A constant name for `values` (frontend/desugar.py): `base`, or `base_`... where the
        module, `taken` or another table holds that name; the same values reuse their name, so a
        function prepared twice gives the same code."""
        name = base
        while True:
            found = self.resolve(name) if name not in taken and (self.globals is None or name not in self.globals) else None
            if found is not None and found.kind == "unknown" and found.name == name:
                self.define(name, Global("constant", name, values))
                return name
            if found is not None and found.kind == "constant" and _typed(found.value) == _typed(values):
                return name
            name += "_"

    @classmethod
    def of_function(cls, func: types.FunctionType) -> Namespace:
        """Names as the live function sees them (decorator, import hook)."""
        globals_ = func.__globals__
        module = func.__module__
        seen: dict[str, object] = {}
        cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))

        def lookup(name: str) -> Global:
            if name in cells:  # a closure's free variable: what its cell holds now
                value = namespace.value_of(name)
                namespace.cell_reads[name] = (cells[name], value)
                if value is ABSENT:
                    return Global("unknown", name)
                found = _classify_object(name, value, module)
                return Global("value", name, value) if found.kind == "unknown" and _static(value) else found
            value = seen[name] = globals_.get(name, ABSENT)  # read once: what is recorded is what is used
            if isinstance(value, list) and is_constant(items := tuple(value)) and items:
                # A list of numbers reads as a tuple; fingerprint.Watch checks its items stay these.
                namespace.snapshots[name] = items
                return Global("constant", name, normalize_constant(items))
            if value is not ABSENT:
                return _classify_object(name, value, module)
            if name == func.__name__ == func.__qualname__:  # itself, while a decorator runs: recursion
                return Global("function", func.__qualname__, func)
            if hasattr(builtins, name):
                return builtin_global(name)
            return Global("unknown", name)

        namespace = cls(module, lookup, globals_)
        namespace.seen = seen
        namespace.cells = cells
        return namespace

    @classmethod
    def of_module_source(cls, text: str, filename: str, module: str = "") -> Namespace:
        """Names as a module's source binds them, without importing it (CLI): what a name holds
        once the module's top level has run, where the source alone decides it (a binding under
        control flow, by `del`, or by anything not evaluated here makes it unknown)."""
        from .module_bindings import static_bindings

        tree = ast.parse(text, filename)
        bindings: dict[str, list[Global]] = {}
        lines = text.splitlines(keepends=True)
        for node in tree.body:
            for name, glob in static_bindings(node, lines, filename, module, bindings):
                bindings.setdefault(name, []).append(glob)

        def lookup(name: str) -> Global:
            found = bindings.get(name)
            if found:  # the top level runs in order: a call after the import sees the last binding
                return found[-1]
            if hasattr(builtins, name):
                return builtin_global(name)
            return Global("unknown", name)

        return cls(module, lookup)


def is_constant(value: object) -> bool:
    """A number (not complex) or a tuple of them: the module-level values a function may read."""
    if isinstance(value, tuple):
        return all(is_constant(v) and not isinstance(v, tuple) for v in value)
    return isinstance(value, (bool, int, float)) or (
        isinstance(value, numbers.Real) and type(value).__module__ == "numpy"
    )


def normalize_constant(value: object) -> object:
    """NumPy scalars become the Python scalars a lane would see."""
    if isinstance(value, tuple):
        return tuple(normalize_constant(v) for v in value)
    if isinstance(value, (bool, int, float)):
        return value
    table = table_of(value)  # an array another module gives (frontend/linking.py)
    if table is not None:
        return table
    return value.item()  # type: ignore[attr-defined]


def _typed(value: object) -> object:
    """A value with its types (1, 1.0 and True differ, and so do 0.0 and -0.0)."""
    return tuple(_typed(v) for v in value) if isinstance(value, tuple) else (type(value), repr(value))


def _static(value: object) -> bool:
    from .static_objects import is_static, static_callable

    return is_static(value) or static_callable(value)


def builtin_global(name: str) -> Global:
    """What a name the builtins bind resolves to: a builtin the rules support, else unknown."""
    if name in SUPPORTED_BUILTINS:
        return Global("builtin", name)
    return Global("unknown", name)


def _classify_object(name: str, value: object, module: str) -> Global:
    if value is math:
        return Global("math", "math")
    if isinstance(value, types.ModuleType) and getattr(value, "__name__", None) == "numpy":
        return Global("numpy", "numpy")
    if isinstance(value, types.ModuleType):
        return Global("unknown", value.__name__)
    if isinstance(value, types.BuiltinFunctionType) and getattr(math, value.__name__, None) is value:
        return Global("math_func", f"math.{value.__name__}")
    if value is operator.index:  # `from operator import index as _index` (pure-Python datetime)
        return Global("builtin", "operator.index")
    if isinstance(value, types.BuiltinFunctionType | type) and getattr(builtins, value.__name__, None) is value:
        return builtin_global(value.__name__)  # (also `from six.moves import range`: the builtin itself)
    scalar = scalar_of(value)  # a @vectorize-decorated function
    if isinstance(scalar, types.FunctionType):
        value = scalar
    if isinstance(value, types.FunctionType) and hasattr(value, "__wrapped__"):
        from .callables import unwrap

        inner = unwrap(value)  # the source inspect reads is the wrapped function's: only a pure
        if inner is None:  # pass-through wrapper may be read as it (frontend/callables.py)
            return Global("unknown", f"{value.__module__}.{value.__qualname__}")
        value = inner
    if isinstance(value, types.FunctionType):
        if value.__module__ == module and value.__name__ != "<lambda>":
            # A nested function (a closure a factory made) is named by the name it is bound to:
            # two closures of one factory share a qualname, not their cells.
            return Global("function", value.__qualname__ if "<locals>" not in value.__qualname__ else name, value)
        return Global("unknown", f"{value.__module__}.{value.__qualname__}")
    if is_constant(value):
        return Global("constant", name, normalize_constant(value))
    table = table_of(value)  # a 1-D float64/int64/bool array: a uniform table (core/tables.py)
    if table is not None:
        return Global("constant", name, table)
    from .static_objects import is_static_object, keyable, static_callable

    if is_static_object(value) and keyable(value) or static_callable(value):  # a module-level instance, a
        return Global("value", name, value)  # bound method or partial: specialized on (static_methods.py)
    return Global("unknown", name)


def function_source(glob: Global) -> FunctionSource:
    """The source of a same-module function a `Global` names."""
    if isinstance(glob.value, FunctionSource):
        return glob.value
    return source_of(glob.value)
