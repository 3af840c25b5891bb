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
import types
from collections.abc import Callable

from ..core.record import Record
from ..core.tables import table_of
from .source import FunctionSource, source_from_text, source_of

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
    kind: str  # 'math' | 'math_func' | 'constant' | 'builtin' | 'function' | 'unknown'
    name: str  # canonical name: 'math.sqrt', 'abs', a function's qualname, ...
    value: object  # the constant value, or the callee's FunctionSource

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
        # (id(container), name) whose values the disk cache's key holds (engine/fingerprint.py):
        # what a call evaluated when the code is generated may read; None: no key (the CLI)
        self.covered: set[tuple[int, object]] | None = None

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

        def lookup(name: str) -> Global:
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
                return _builtin(name)
            return Global("unknown", name)

        namespace = cls(module, lookup, globals_)
        namespace.seen = seen
        return namespace

    @classmethod
    def of_module_source(cls, text: str, filename: str, module: str = "") -> Namespace:
        """Names as a module's source binds them, without importing it (CLI): what a name holds
        once the module's top level has run, where the source alone decides it (a binding under
        control flow, by `del`, or by anything not evaluated here makes it unknown)."""
        tree = ast.parse(text, filename)
        bindings: dict[str, list[Global]] = {}
        lines = text.splitlines(keepends=True)
        for node in tree.body:
            for name, glob in _static_bindings(node, lines, filename, module, bindings):
                bindings.setdefault(name, []).append(glob)

        def lookup(name: str) -> Global:
            found = bindings.get(name)
            if found:  # the top level runs in order: a call after the import sees the last binding
                return found[-1]
            if hasattr(builtins, name):
                return _builtin(name)
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
    """A value with its types (1, 1.0 and True differ)."""
    return tuple(_typed(v) for v in value) if isinstance(value, tuple) else (type(value), value)


def _builtin(name: str) -> Global:
    if name in SUPPORTED_BUILTINS:
        return Global("builtin", name)
    return Global("unknown", name)


def _classify_object(name: str, value: object, module: str) -> Global:
    if value is math:
        return Global("math", "math")
    if getattr(value, "__name__", None) == "numpy" and isinstance(value, types.ModuleType):
        return Global("numpy", "numpy")
    if isinstance(value, types.ModuleType):
        return Global("unknown", value.__name__)
    if isinstance(value, types.BuiltinFunctionType) and getattr(math, value.__name__, None) is value:
        return Global("math_func", f"math.{value.__name__}")
    if isinstance(value, types.BuiltinFunctionType) and getattr(builtins, value.__name__, None) is value:
        return _builtin(value.__name__)
    scalar = getattr(value, "scalar", None)  # a @vectorize-decorated function
    if isinstance(scalar, types.FunctionType):
        value = scalar
    if isinstance(value, types.FunctionType):
        if value.__module__ == module and value.__name__ != "<lambda>":
            return Global("function", value.__qualname__, value)
        return Global("unknown", f"{value.__module__}.{value.__qualname__}")
    if is_constant(value):
        return Global("constant", name, normalize_constant(value))
    table = table_of(value)  # a 1-D float64/int64/bool array: a uniform table (core/tables.py)
    if table is not None:
        return Global("constant", name, table)
    return Global("unknown", name)


def function_source(glob: Global) -> FunctionSource:
    """The source of a same-module function a `Global` names."""
    if isinstance(glob.value, FunctionSource):
        return glob.value
    return source_of(glob.value)


def _static_bindings(node: ast.stmt, lines: list[str], filename: str, module: str, seen: dict):
    """(name, Global) pairs a top-level statement binds, judged from source alone."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            kind = {"math": "math", "numpy": "numpy"}.get(alias.name, "unknown")
            yield bound, Global(kind, alias.name)
    elif isinstance(node, ast.ImportFrom):
        for alias in node.names:
            bound = alias.asname or alias.name
            if node.module == "math" and not node.level:
                attr = getattr(math, alias.name, None)
                if callable(attr):
                    yield bound, Global("math_func", f"math.{alias.name}")
                elif isinstance(attr, float):
                    yield bound, Global("constant", bound, attr)
                else:
                    yield bound, Global("unknown", alias.name)
            else:
                yield bound, Global("unknown", alias.name)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        text = "".join(lines[start - 1 : node.end_lineno])
        src = source_from_text(text, node.name, filename, start)
        yield node.name, Global("function", node.name, src)
    elif isinstance(node, ast.ClassDef):
        yield node.name, Global("unknown", node.name)
    elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        bound = [pair for target in targets for pair in _unpacked(target, node.value, seen)]
        yield from bound  # every value is computed before any name is bound (`a, b = b, a`)
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        name, op = node.target.id, _SAFE_BINOPS.get(type(node.op))
        before = _static_value(node.target, seen)
        value = _static_value(node.value, seen)
        if op is None or before is None or value is None or isinstance(before, tuple) or isinstance(value, tuple):
            yield name, Global("unknown", name)
        else:
            yield from _constant(name, _safely(op, before, value))
    elif not isinstance(node, ast.AnnAssign | ast.Pass):  # an annotation alone binds nothing
        # Anything else (control flow, `del`, `x := ...`, `match`, an attribute or item assigned)
        # may bind or unbind a name in a way the source alone does not decide.
        for name in _touched(node):
            yield name, Global("unknown", name)


def _unpacked(target: ast.expr, value: ast.expr | None, seen: dict, known: object = None):
    """(name, Global) for an assignment target: a tuple or list target takes the items of a display
    of the same length, or of a constant tuple; anything else makes its names unknown."""
    if isinstance(target, ast.Name):
        computed = _static_value(value, seen) if value is not None else known
        yield from _constant(target.id, computed)
    elif isinstance(target, ast.Tuple | ast.List) and not any(isinstance(e, ast.Starred) for e in target.elts):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in value.elts):
            pairs = [list(_unpacked(t, v, seen)) for t, v in zip(target.elts, value.elts)]
            yield from (pair for group in pairs for pair in group)
            return
        computed = _static_value(value, seen) if value is not None else known
        if isinstance(computed, tuple) and len(computed) == len(target.elts):
            for t, item in zip(target.elts, computed):
                yield from _unpacked(t, None, seen, item)
            return
        yield from ((name, Global("unknown", name)) for name in _touched(target))
    else:
        yield from ((name, Global("unknown", name)) for name in _touched(target))


def _constant(name: str, value: object):
    yield name, Global("constant", name, value) if value is not None and is_constant(value) else Global("unknown", name)


def _safely(op: Callable, a: object, b: object) -> object | None:
    try:
        return op(a, b)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _touched(node: ast.AST):
    """Every name a statement or target may bind, rebind or delete (also the object named by an
    attribute or item assignment: `obj.x = 1`, `TABLE[0] = 1`)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            yield sub.id
        elif isinstance(sub, ast.Attribute | ast.Subscript) and isinstance(sub.ctx, ast.Store | ast.Del):
            base = sub.value
            while isinstance(base, ast.Attribute | ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                yield base.id
        elif isinstance(sub, ast.alias):
            yield sub.asname or sub.name.split(".")[0]
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node:
            yield sub.name
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            yield sub.name
        elif isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
            yield sub.name
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            yield sub.rest


_SAFE_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Pow: lambda a, b: a**b,
}


def _static_value(node: ast.expr, seen: dict) -> object | None:
    """Evaluate a constant expression of literals, earlier constants and math constants."""
    try:
        if isinstance(node, ast.Constant) and is_constant(node.value):
            return node.value
        if isinstance(node, ast.Tuple):
            items = [_static_value(e, seen) for e in node.elts]
            return tuple(items) if all(i is not None and not isinstance(i, tuple) for i in items) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = _static_value(node.operand, seen)
            return None if v is None or isinstance(v, tuple) else (-v if isinstance(node.op, ast.USub) else +v)
        if isinstance(node, ast.BinOp) and type(node.op) in _SAFE_BINOPS:
            a, b = _static_value(node.left, seen), _static_value(node.right, seen)
            if a is None or b is None or isinstance(a, tuple) or isinstance(b, tuple):
                return None
            if isinstance(node.op, ast.Pow) and abs(b) > 64:
                return None
            return _SAFE_BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.Name):
            found = seen.get(node.id)
            if found and found[-1].kind == "constant":  # the binding the top level holds here
                return found[-1].value
        if isinstance(node, ast.Subscript):  # an item of a constant tuple: TABLE[0], TABLE[-1]
            table, index = _static_value(node.value, seen), _static_value(node.slice, seen)
            if isinstance(table, tuple) and type(index) is int and -len(table) <= index < len(table):
                return table[index]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in ("pi", "e", "tau", "inf", "nan")
        ):
            found = seen.get(node.value.id)
            if found and found[-1].kind == "math":
                return getattr(math, node.attr)
    except (ArithmeticError, ValueError, TypeError):
        return None
    return None
