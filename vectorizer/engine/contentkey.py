"""What a cached kernel's code depends on, as deterministic text: `content_key` (the disk
cache's key part for a function, engine/fingerprint.py's generations).

`content_key` describes a function by its compiled code objects, not its source text (see
fingerprint.py), and everything it reaches: same-module functions and constants, functions of
other modules (with THEIR module's globals), module and class attributes (`units.SCALE`,
`Geo.wrap`), a closure's cells (issue 51: what its free variables hold, and the functions they
hold, with THEIR cells), and module-level instances (issue 51: their attributes, and the code
of their classes and of the functions they store: calls of their methods are inlined,
frontend/static_methods.py). What other modules, cells and classes gave is put in
`namespace.watched` for the Watch: first what the root module's functions read, then (the span
`namespace.transitive`) what the functions of other modules and closures they reach read.
"""

from __future__ import annotations

import enum
import types

from ..core.codeident import constant_text as _const
from ..core.codeident import describe
from ..frontend.callables import resolve
from ..frontend.namespace import ABSENT, Namespace
from ..frontend.operator_functions import operator_function
from ..frontend.pure_builtins import SNAPSHOT, items
from ..frontend.reach import CELL, reached
from ..frontend.static_objects import (
    fields,
    is_static_object,
    math_function,
    object_key,
    static_callable,
    value_key,
)
from .statics import static_key


def content_key(func: types.FunctionType, namespace: Namespace) -> str:
    """The code of `func` and of everything it reaches (see the module docstring), as text."""
    parts: list[str] = []
    todo, seen = [(func, namespace)], set()
    namespaces: dict[object, Namespace] = {_home_key(func): namespace}
    own: list[tuple[object, str, object]] = []  # what the root module's functions read
    others: list[tuple[object, str, object]] = []  # what other modules' (and closures') functions read
    covered: set[tuple[int, object]] = set()  # (id(container), name) whose value the key holds
    namespace.covered = covered

    def home_of(obj: types.FunctionType) -> Namespace:
        key = _home_key(obj)
        home = namespace if key == _home_key(func) else namespaces.get(key) or Namespace.of_function(obj)
        namespaces[key] = home
        return home

    walked: dict[int, object] = {}

    def walk_class(owner: str, cls: type) -> None:
        """A class's code and plain attributes (what a method call or a folded check runs)."""
        parts.append(f"{owner}:{class_text(cls)}\n{_class_text(cls)}")
        for method, attrs in _class_parts(cls):
            if method is not None:
                todo.append((method, home_of(method)))
            covered.update(attrs)

    def walk_value(owner: str, value: object) -> None:
        """What a value the code is specialized on holds: a function's code, a class's, a static
        object's attributes and its class's code, a bound method's or partial's function and
        arguments (frontend/static_methods.py)."""
        parts.append(f"{owner}={_value_text(value)}")
        if id(value) in walked:  # (an object that holds itself, or one reached twice)
            return
        walked[id(value)] = value
        if isinstance(value, types.FunctionType):
            todo.append((value, home_of(value)))
        elif isinstance(value, type) and value.__module__ != "builtins":  # (super()'s __class__ cell too)
            walk_class(owner, value)
        elif is_static_object(value):
            walk_class(owner, type(value))
            for item in fields(value).values():
                if isinstance(item, types.FunctionType | type) or is_static_object(item) or static_callable(item):
                    walk_value(f"{owner}.", item)
        elif static_callable(value):
            bound = resolve(value)
            for item in (bound.function, *bound.args, *bound.kwargs.values()):  # type: ignore[union-attr]
                walk_value(f"{owner}()", item)

    while todo:
        f, ns = todo.pop()
        watched = own if ns is namespace else others  # (the root module's functions, or not)
        key = f"{f.__module__}.{f.__qualname__}"
        if (key if not f.__closure__ else id(f)) in seen:  # two closures of one factory: both
            continue
        seen.add(key if not f.__closure__ else id(f))
        text, names = _code_text(f.__code__)
        parts.append(f"{key} defaults={_const(f.__defaults__)}"
                     f" kwdefaults={_const(f.__kwdefaults__)}\n" + text)
        if ns.globals is not None:
            covered.update((id(ns.globals), name) for name in names)
        for attr, value in sorted(vars(f).items()):  # attributes set on the function (read by pure_eval)
            if attr != "__wrapped__":
                walk_value(f"{key}.{attr}", value)
                covered.add((id(vars(f)), attr))
                watched.append((vars(f), attr, value))
        for name in f.__code__.co_freevars:  # a closure's cells: their values now
            value = ns.value_of(name)
            walk_value(f"{key}:<cell {name}>:{ns.resolve(name).kind}", value)
            if ns is not namespace and name in ns.cells:
                watched.append((ns.cells[name], CELL, value))
        for name in names:
            glob = ns.resolve(name)
            if glob.kind == "function" and isinstance(glob.value, types.FunctionType):
                todo.append((glob.value, home_of(glob.value)))
                reads = _wrapper_reads(ns.value_of(name))  # a pass-through wrapper linked as what it wraps
                watched += reads
                parts += [f"{key}:{name}=wraps:{_value_text(target)}" for _, _, target in reads]
            elif glob.kind in ("constant", "math_func", "math", "builtin"):
                parts.append(f"{key}:{name}={glob.kind}:{glob.name}:{_const(glob.value)}")
            elif glob.kind == "value":  # a module-level instance, a bound method...: what it holds
                walk_value(f"{key}:{name}=value", glob.value)
            else:  # numpy, unknown: what the name is decides what the fence says, so it is in the key
                data = _data_value(ns, name)
                parts.append(f"{key}:{name}={glob.kind}:{glob.name}{opaque_value(ns, name)}{data}")
                if data and type(ns.globals[name]) not in (frozenset, tuple):  # type: ignore[index]
                    # Its items, as the key holds them: one assigned since (`SCALE["km"] = 999.0`)
                    # is a new generation, also where the kernel came from the disk cache.
                    table = ns.globals[name]  # type: ignore[index]
                    watched.append((table, SNAPSHOT, items(table)))
                for path, obj, container, attr in reached(ns, name, names):
                    if container is not ns.globals or ns is not namespace:  # the root's: Namespace.seen
                        watched.append((container, attr, obj))
                    covered.add((id(vars(container) if isinstance(container, types.ModuleType) else container), attr))
                    if isinstance(obj, types.FunctionType):
                        todo.append((obj, home_of(obj)))
                        parts.append(f"{key}:{path}=function:{obj.__module__}.{obj.__qualname__}")
                    elif isinstance(obj, type):  # isinstance folds (static_checks) and calls evaluated when
                        # the code is generated (frontend/pure_eval.py) depend on what it is: its methods'
                        # code, the globals they read and its plain attributes are in the key
                        parts.append(f"{key}:{path}={class_text(obj)}\n{_class_text(obj)}")
                        for method, attrs in _class_parts(obj):
                            if method is not None:
                                todo.append((method, home_of(method)))
                            covered.update(attrs)
                    elif not isinstance(obj, types.ModuleType):  # a number, a str, an object...: what it holds
                        parts.append(f"{key}:{path}=value:{_value_text(obj)}")
    for ns in namespaces.values():  # what other modules' names were bound to: Watch checks them
        if ns is not namespace:
            others += [(ns.globals, n, o) for n, o in ns.seen.items()]
    # The root module's own reads first, then what the code of other modules (and closures) it
    # reaches reads: a refusal's cheap check (fingerprint.Generation.narrow) leaves those out.
    namespace.watched = own + others
    namespace.transitive = (len(own), len(own) + len(others))
    # The root first: functions that reach each other (mutual recursion) have the same parts.
    return f"root {func.__module__}.{func.__qualname__}\n" + "\n".join(sorted(parts))


def _wrapper_reads(func: object) -> list[tuple[object, object, object]]:
    """What a chain of pass-through wrappers (frontend/callables.py `unwrap`) reads to find the
    function it calls, its cell or its global, as Watch reads: the code links the wrapped function
    in its place, so a wrapper whose global is bound to another function since makes new code."""
    reads: list[tuple[object, object, object]] = []
    while isinstance(func, types.FunctionType) and hasattr(func, "__wrapped__") and len(reads) < 17:
        code = func.__code__
        if code.co_freevars and func.__closure__:
            cell = func.__closure__[0]
            try:
                reads.append((cell, CELL, cell.cell_contents))
            except ValueError:  # an empty cell: unwrap refused it
                return reads
        elif code.co_names:
            reads.append((func.__globals__, code.co_names[0], func.__globals__.get(code.co_names[0], ABSENT)))
        func = func.__wrapped__
    return reads


def _home_key(func: types.FunctionType) -> object:
    """Functions of one module share its namespace; a closure has its own (its cells)."""
    return id(func.__globals__) if not func.__closure__ else ("closure", id(func))


def _value_text(value: object, within: frozenset[int] = frozenset()) -> str:
    """A value a closure's cell or a module global holds, as key text (a static object: its class
    and attributes, functions and classes named: their code is walked; modules named). `within`:
    the callables whose bound values are being written, so that one holding itself (a callable
    instance: its `__call__` is bound to it) ends as a reference, never an endless recursion."""
    if id(value) in within:
        return f"cycle:{_named(type(value))}"
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}"
    if operator_function(value) is not None or math_function(value) is not None:
        return value_key(value)  # `operator:mul`, `math:sin`: builtins, named by what they compute
    if isinstance(value, type | types.FunctionType):  # named: its code is walked (content_key)
        return f"{'class' if isinstance(value, type) else 'function'}:{_named(value)}"
    if static_callable(value):
        bound = resolve(value)
        inner = within | {id(value)}
        items = [*(_value_text(v, inner) for v in bound.args),  # type: ignore[union-attr]
                 *(f"{k}={_value_text(v, inner)}" for k, v in sorted(bound.kwargs.items()))]  # type: ignore[union-attr]
        return f"callable:{_named(bound.function)}({','.join(items)})"  # type: ignore[union-attr]
    try:
        return static_key(value) if not is_static_object(value) else object_key(value, code=_named)
    except Exception:  # noqa: BLE001 - no deterministic text: its type (the code using it is refused)
        return f"opaque:{type(value).__module__}.{type(value).__qualname__}" if value is not ABSENT else "unbound"


def _named(obj: object) -> str:
    return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"


def _data_value(namespace: Namespace, name: str) -> str:
    """A global that is data of built-in types only (a dict of tables, a list...), as key text: a
    call evaluated when the code is generated may read it (frontend/pure_eval.py)."""
    from ..frontend.pure_builtins import plain

    value = (namespace.globals or {}).get(name, ABSENT)
    return f"=data:{_const(value)}" if type(value) in (dict, list, set, frozenset, tuple) and plain(value) else ""


def _class_parts(cls: type):  # noqa: ANN202 - (function or None, covered attributes) pairs
    """The Python functions of a class (methods, classmethods, staticmethods, property getters)
    and the plain attributes `_class_text` puts in the key, per class of its MRO."""
    for base in cls.__mro__:
        if base is object or base.__module__ == "builtins":
            continue
        attrs = {(id(base), n) for n, v in vars(base).items()
                 if type(v) in (dict, list, tuple, str, bytes, int, float, bool, type(None))}
        yield None, attrs
        for value in vars(base).values():
            fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if isinstance(fn, types.FunctionType):
                yield fn, set()


def opaque_value(namespace: Namespace, name: str) -> str:
    """The value of a global that is no number but that a specialization may compare with (None,
    a str, an enum member or class: passes/specialize.py), as key text; '' for anything else."""
    if namespace.globals is None or name not in namespace.globals:
        return ""
    value = namespace.globals[name]
    if isinstance(value, enum.EnumMeta):
        return f"={value.__module__}.{value.__qualname__}{[(m.name, repr(m.value)) for m in value]}"
    if value is None or isinstance(value, str | bytes | enum.Enum):
        return f"={static_key(value)}"
    if isinstance(value, type):
        return f"={class_text(value)}"
    return ""


def class_text(cls: type) -> str:
    """A class as key text: its name and the lane kinds that are instances of it (what an
    `isinstance(lane, cls)` folded by frontend/static_checks.py depends on)."""
    try:
        kinds = ",".join(k.__name__ for k in (bool, int, float) if issubclass(k, cls))
    except TypeError:  # a class that refuses isinstance checks (a TypedDict, a non-runtime Protocol)
        kinds = "no-isinstance"
    return f"class:{cls.__module__}.{cls.__qualname__}:{kinds}"



_TEXTS: dict[int, tuple[types.CodeType, str, list[str]]] = {}  # id -> (the code, kept alive: ids stay its)


def _class_text(cls: type) -> str:
    """A class as the specialization may run it (`Ellipsoid.from_name("wgs84")`, issue 30): the
    code of its methods and its plain class attributes (`models`), over its Python bases."""
    lines = [f"{cls.__module__}.{cls.__qualname__}"]
    for base in cls.__mro__:
        if base is object or base.__module__ == "builtins":
            continue
        for name, value in sorted(vars(base).items(), key=lambda item: item[0]):
            func = getattr(value, "__func__", value)
            if isinstance(func, types.FunctionType):
                lines.append(f"{base.__qualname__}.{name}=" + _code_text(func.__code__)[0])
            elif type(value) in (dict, list, tuple, str, bytes, int, float, bool, type(None)):
                lines.append(f"{base.__qualname__}.{name}={value!r}")
    return "\n".join(lines)


def _code_text(code: types.CodeType) -> tuple[str, list[str]]:
    """`codeident.describe`, remembered: a rebound global makes the key again, from the same code objects."""
    entry = _TEXTS.get(id(code))
    if entry is None or entry[0] is not code:
        names: set[str] = set()
        text: list[str] = []
        describe(code, text, names)
        if len(_TEXTS) > 1024:
            _TEXTS.clear()
        entry = _TEXTS[id(code)] = (code, "\n".join(text), sorted(names))
    return entry[1], entry[2]
