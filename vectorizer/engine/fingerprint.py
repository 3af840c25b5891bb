"""What a cached kernel depends on, hashed cheaply enough for every warm start.

`content_key` describes a function by its compiled code objects, not its source text: reading
source goes through `inspect`/`tokenize` (~20 ms per process), while walking `__code__` takes
microseconds and sees exactly what runs (bytecode, constants, names, line and column table).
Same-module callees and module constants it reaches are included transitively, so an edit in a
helper invalidates the caller (Numba's own cache misses that). An edit to comments alone keeps the
entry (the generated code's `# line N:` echo comments then show the old text; nothing else can
differ). `engine_fingerprint` stands for
vectorizer's own code: its files' names, sizes and modification times.

Module globals are read when a function is called, not when it is defined: `Watch` records the
objects the names a generation of kernels was made from were bound to, and answers in a few
hundred nanoseconds whether the module still binds exactly those (identity, not equality: 2 ==
2.0 == True and 0.0 == -0.0 would make a kernel typed for one serve the other).
"""

from __future__ import annotations

import enum
import functools
import operator
import os
import threading
import types
from collections.abc import Callable

from ..core.codeident import constant_text as _const
from ..core.codeident import describe
from ..core.tables import is_table
from ..frontend.namespace import ABSENT, Namespace
from ..frontend.pure_builtins import SNAPSHOT
from ..frontend.pure_builtins import items as pure_items
from ..frontend.reach import attribute, reached
from .statics import static_key


@functools.cache
def engine_fingerprint() -> str:
    """Changes whenever a file of the engine is edited, added, removed or reinstalled."""
    parts: list[str] = []

    def walk(folder: str, prefix: str) -> None:  # os.walk + relpath cost ~2 ms of a warm start
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
        for entry in entries:
            if entry.name.endswith(".py") and entry.is_file():
                st = entry.stat()
                parts.append(f"{prefix}{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        for entry in entries:
            if entry.is_dir() and entry.name != "__pycache__":
                walk(entry.path, f"{prefix}{entry.name}/")

    walk(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")  # the whole package
    return "\n".join(parts)


def content_key(func: types.FunctionType, namespace: Namespace) -> str:
    """The code of `func` and of everything it reaches through globals, as deterministic text:
    same-module functions and constants, and (frontend/linking.py) functions of other modules
    (with THEIR module's globals), module and class attributes (`units.SCALE`, `Geo.wrap`)."""
    parts: list[str] = []
    todo, seen = [(func, namespace)], set()
    namespaces = {id(func.__globals__): namespace}
    watched: list[tuple[object, str, object]] = []
    covered: set[tuple[int, object]] = set()  # (id(container), name) whose value the key holds
    namespace.covered = covered

    def home_of(obj: types.FunctionType) -> Namespace:
        home = namespace if obj.__globals__ is func.__globals__ else \
            namespaces.get(id(obj.__globals__)) or Namespace.of_function(obj)
        namespaces[id(obj.__globals__)] = home
        return home

    while todo:
        f, ns = todo.pop()
        key = f"{f.__module__}.{f.__qualname__}"
        if key in seen:
            continue
        seen.add(key)
        text, names = _code_text(f.__code__)
        parts.append(f"{key} defaults={_const(f.__defaults__)}"
                     f" kwdefaults={_const(f.__kwdefaults__)}\n" + text)
        if ns.globals is not None:
            covered.update((id(ns.globals), name) for name in names)
        for name in names:
            glob = ns.resolve(name)
            if glob.kind == "function" and isinstance(glob.value, types.FunctionType):
                todo.append((glob.value, ns))
            elif glob.kind in ("constant", "math_func", "math", "builtin"):
                parts.append(f"{key}:{name}={glob.kind}:{glob.name}:{_const(glob.value)}")
            else:  # numpy, unknown: what the name is decides what the fence says, so it is in the key
                parts.append(f"{key}:{name}={glob.kind}:{glob.name}{opaque_value(ns, name)}{_data_value(ns, name)}")
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
                    elif not isinstance(obj, types.ModuleType):
                        parts.append(f"{key}:{path}=value:{_const(obj)}")
    for ns in namespaces.values():  # what other modules' names were bound to: Watch checks them
        if ns is not namespace:
            watched += [(ns.globals, n, o) for n, o in ns.seen.items()]
    namespace.watched = watched
    # The root first: functions that reach each other (mutual recursion) have the same parts.
    return f"root {func.__module__}.{func.__qualname__}\n" + "\n".join(sorted(parts))


def _data_value(namespace: Namespace, name: str) -> str:
    """A global that is data of built-in types only (a dict of tables, a list...), as key text: a
    call evaluated when the code is generated may read it (frontend/pure_eval.py)."""
    from ..frontend.pure_builtins import plain

    value = (namespace.globals or {}).get(name, ABSENT)
    return f"=data:{_const(value)}" if type(value) in (dict, list, set, frozenset) and plain(value) else ""


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
    kinds = [k for k in (bool, int, float) if issubclass(k, cls)]
    return f"class:{cls.__module__}.{cls.__qualname__}:{','.join(k.__name__ for k in kinds)}"


@functools.lru_cache(maxsize=256)
def _checker(names: tuple[str, ...], absent: bool) -> Callable[..., Callable[[], bool]]:
    """A maker of `Watch.fresh` for these names, compiled once (~100 µs) and called per watch."""
    tests = [f"m[{n!r}] is o{i}" for i, n in enumerate(names)] + (["k.isdisjoint(a)"] if absent else [])
    objects = "".join(f", o{i}" for i in range(len(names)))
    text = (f"def make(m, k, a{objects}):\n"
            f"    def fresh(m=m, k=k, a=a{''.join(f', o{i}=o{i}' for i in range(len(names)))}):\n"
            f"        try:\n            return {' and '.join(tests) or 'True'}\n"
            "        except KeyError:  # a name was deleted\n            return False\n    return fresh\n")
    env: dict = {}
    exec(compile(text, "<vectorizer watch>", "exec"), env)  # noqa: S102 - the names are repr()'d identifiers
    return env["make"]


class Watch:
    """The global names a namespace resolved and the objects they were bound to (`Namespace.seen`).

    `fresh()` is True while the module binds every such name to the same object and binds none of
    those that were unbound (a builtin shadowed later). It is a function generated for these
    names (`m['SCALE'] is o0 and ...`): straight-line code costs ~25 ns a name, 3-4x less than
    itemgetter + map(operator.is_). Its defaults keep the objects alive, so an identity it
    compares cannot be reused by a new object."""

    __slots__ = ("module", "names", "objects", "absent", "size", "fresh", "lists")

    def __init__(self, namespace: Namespace) -> None:
        seen = dict(namespace.seen)  # a copy: lowering may resolve more names meanwhile
        module = namespace.globals if namespace.globals is not None else {}
        self.module, self.size = module, len(seen)
        self.names = sorted(n for n, v in seen.items() if v is not ABSENT)
        self.objects = tuple(seen[n] for n in self.names)
        self.absent = frozenset(n for n, v in seen.items() if v is ABSENT)
        make = _checker(tuple(self.names), bool(self.absent))
        self.fresh: Callable[[], bool] = make(module, module.keys(), self.absent, *self.objects)
        reads = _reads(namespace)
        self.size += len(reads)
        if reads:  # what other modules (or modules' and classes' attributes) gave: linking.py
            self.fresh = _reads_checker(len(reads), tuple(_read_kind(c, n) for c, n, _ in reads))(self.fresh, *reads)
        # A module-level list read as a table (namespace.snapshots): its items when it was read,
        # compared by identity, so an item assigned since (even an equal one: -0.0 == 0.0) is a change.
        self.lists = tuple((n, namespace.seen[n], items) for n, items in namespace.snapshots.items() if n in seen)
        if self.lists:
            self.fresh = _with_lists(self.fresh, tuple((o, items) for _, o, items in self.lists))
        # A 1-D array read as a table (core/tables.py): its bytes when it was read, so that an item
        # assigned in place (`N[0] = 2.0`) counts as a new value, as a list's does (~0.2 µs a table).
        tables = tuple((o, o.tobytes()) for o in [*seen.values(), *(obj for _, _, obj in reads)] if is_table(o))
        if tables:
            self.fresh = _with_tables(self.fresh, tables)

    def changed(self) -> list[str]:
        """The names bound differently now (for messages)."""
        now = [n for n, o in zip(self.names, self.objects) if self.module.get(n, ABSENT) is not o]
        now += [n for n, o, items in self.lists if n not in now and not _same_items(o, items)]
        return now + sorted(self.absent.intersection(self.module.keys()))


def _reads(namespace: Namespace) -> tuple[tuple[object, str, object], ...]:
    """The distinct (container, name, object) reads the namespace's linker made."""
    found: dict[tuple[int, str], tuple[object, str, object]] = {}
    for container, name, obj in [*namespace.watched, *getattr(namespace.linker, "reads", ())]:
        if isinstance(container, types.ModuleType):
            container = vars(container)  # a dict lookup: ~50 ns where attribute() costs microseconds
        found.setdefault((id(container), name), (container, name, obj))
    return tuple(found.values())


def _read_kind(container: object, name: object) -> str:
    if name == SNAPSHOT and isinstance(container, dict | list | set):
        return "items"
    return "dict" if isinstance(container, dict) else "item" if isinstance(container, list) else "attr"


_READ_TESTS = {"dict": "c{i}.get(n{i}, A) is o{i}", "attr": "attribute(c{i}, n{i}) is o{i}",
               "item": "item(c{i}, n{i}) is o{i}", "items": "same(items(c{i}), o{i})"}


@functools.lru_cache(maxsize=256)
def _reads_checker(count: int, kinds: tuple[str, ...]) -> Callable[..., Callable[[], bool]]:
    """A maker of a `fresh` that is the root's and then `container[name] is object` for each read
    (straight-line code, as `_checker`: a dict read ~40 ns; a class's attribute goes through
    linking.attribute; a list's item by index; a container whose items a call evaluated when the
    code was generated went through: the identities of its items)."""
    tests = [_READ_TESTS[kind].format(i=i) for i, kind in enumerate(kinds)]
    args = "".join(f", c{i}, n{i}, o{i}" for i in range(count))
    text = (f"def make(own{args}):\n"
            f"    def fresh(own=own, A=A, attribute=attribute, item=item, same=same, items=items"
            f"{''.join(f', c{i}=c{i}, n{i}=n{i}, o{i}=o{i}' for i in range(count))}):\n"
            f"        return own() and {' and '.join(tests)}\n    return fresh\n")
    env: dict = {"A": ABSENT, "attribute": attribute, "item": _item, "same": _same_items, "items": pure_items}
    exec(compile(text, "<vectorizer watch reads>", "exec"), env)  # noqa: S102 - no user text in it
    return lambda own, *reads: env["make"](own, *[x for read in reads for x in read])


def _item(container: list, index: object) -> object:
    try:
        return container[index]  # type: ignore[index]
    except (IndexError, TypeError):
        return ABSENT
def _with_tables(fresh: Callable[[], bool], tables: tuple) -> Callable[[], bool]:
    def fresh_and_same(fresh=fresh, tables=tables) -> bool:
        return fresh() and all(o.tobytes() == saved for o, saved in tables)
    return fresh_and_same


def _same_items(now: list, items: tuple) -> bool:
    return len(now) == len(items) and all(map(operator.is_, now, items))


def _with_lists(fresh: Callable[[], bool], lists: tuple) -> Callable[[], bool]:
    def fresh_and_same(fresh=fresh, lists=lists, same=_same_items) -> bool:
        return fresh() and all(same(o, items) for o, items in lists)
    return fresh_and_same


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


class Refusals(dict):
    """Refusals (key -> the Watch of the globals when refused) that hold while those globals keep
    their objects: a refusal may be about their values (the import hook's)."""

    def hold(self, key: object) -> bool:
        watch = self.get(key)
        if watch is not None and not watch.fresh():
            self.pop(key, None)  # refused with other values of its globals: try again
            return False
        return watch is not None


class Generation:
    """The specializations made from one reading of the module globals: a call may use them while
    `watch` is fresh. Generations whose globals have the same values (one content key: 2.0 rebound
    to an equal 2.0) share their kernels."""

    __slots__ = ("namespace", "content", "watch", "prepared", "kernels", "warned")

    def __init__(self, namespace: Namespace, content: str, shared: Generation | None) -> None:
        self.namespace, self.content, self.watch = namespace, content, Watch(namespace)
        self.prepared: object = None  # (parsed, namespace): the fence runs again on new values
        self.kernels: dict = {} if shared is None else shared.kernels
        self.warned: list[str] = [] if shared is None else shared.warned  # the FallbackWarning given

    def rewatch(self) -> None:
        """Watch the names resolved since (lowering may look up names the content key did not)."""
        if len(self.namespace.seen) + len(_reads(self.namespace)) != self.watch.size:
            self.watch = Watch(self.namespace)


class Generations:
    """The generations of one function: `current()` is the one made from the globals as they are."""

    KEEP = 8  # generations kept by content key: a value toggled back finds its kernels in memory
    WARN_AFTER = 16  # new values seen: past this, suggest an argument instead of a changing global

    def __init__(self, func: types.FunctionType) -> None:
        self.func = func
        self.gen: Generation | None = None
        self.memo: dict[str, Generation] = {}
        self.lock = threading.Lock()
        self.new_values = 0

    def current(self) -> Generation:
        gen = self.gen
        if gen is not None and gen.watch.fresh():
            return gen
        with self.lock:  # one thread makes the new generation; kernels are built from ONE namespace
            gen = self.gen
            if gen is not None and gen.watch.fresh():
                return gen
            namespace = Namespace.of_function(self.func)
            content = content_key(self.func, namespace)
            shared = self.memo.pop(content, None)
            new = Generation(namespace, content, shared)
            self.memo[content] = new
            if len(self.memo) > self.KEEP:
                del self.memo[next(iter(self.memo))]
            if shared is None and gen is not None:
                self._count(gen.watch.changed())
            self.gen = new
            return new

    def _count(self, names: list[str]) -> None:
        self.new_values += 1
        if self.new_values == self.WARN_AFTER:
            import warnings

            from ..errors import user_stacklevel

            warnings.warn(f"{self.func.__qualname__}: the module globals it reads ({', '.join(names) or '?'}) have "
                          f"taken {self.WARN_AFTER} new values; each new value generates (and caches) its code "
                          "again: pass a value that changes often as an argument", UserWarning,
                          stacklevel=user_stacklevel())
