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

import functools
import operator
import os
import threading
import types
from collections.abc import Callable

from ..core.tables import is_table
from ..frontend.namespace import ABSENT, Namespace
from ..frontend.pure_builtins import SNAPSHOT
from ..frontend.pure_builtins import items as pure_items
from ..frontend.reach import CELL, attribute, cell_value
from ..frontend.static_objects import held_objects, snapshot
from ..frontend.static_objects import same as same_fields
from .contentkey import content_key  # noqa: F401 - re-exported: fingerprint.content_key, as before


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

    __slots__ = ("module", "names", "objects", "absent", "size", "fresh", "lists", "cost")

    def __init__(self, namespace: Namespace, transitive: bool = True) -> None:
        """`transitive=False`: the identities alone (no list's items, table's bytes or object's
        attributes), but for what other modules' code the function reaches reads (the span
        `namespace.transitive` of its reads: engine/contentkey.py)."""
        seen = dict(namespace.seen)  # a copy: lowering may resolve more names meanwhile
        module = namespace.globals if namespace.globals is not None else {}
        self.module, self.size = module, len(seen)
        self.names = sorted(n for n, v in seen.items() if v is not ABSENT)
        self.objects = tuple(seen[n] for n in self.names)
        self.absent = frozenset(n for n, v in seen.items() if v is ABSENT)
        make = _checker(tuple(self.names), bool(self.absent))
        self.fresh: Callable[[], bool] = make(module, module.keys(), self.absent, *self.objects)
        reads = _reads(namespace, transitive)
        self.size += len(reads)
        if reads:  # what other modules (or modules' and classes' attributes) gave: linking.py
            self.fresh = _reads_checker(len(reads), tuple(_read_kind(c, n) for c, n, _ in reads))(self.fresh, *reads)
        self.lists, self.cost = (), self.size  # `cost`: a check's, in names (an object's, a table's: 64)
        if not transitive:
            return
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
        # A module-level instance (or one another module or a cell gives): its attributes when it
        # was read, by identity, so an attribute assigned since makes new code (issue 51).
        objects = {id(o): o for v in [*seen.values(), *(obj for _, _, obj in reads)] for o in held_objects(v)}
        if objects:
            self.fresh = _with_objects(self.fresh, tuple((o, snapshot(o)) for o in objects.values()))
        self.cost += 64 * (len(self.lists) + len(tables) + len(objects))

    def changed(self) -> list[str]:
        """The names bound differently now (for messages)."""
        now = [n for n, o in zip(self.names, self.objects) if self.module.get(n, ABSENT) is not o]
        now += [n for n, o, items in self.lists if n not in now and not _same_items(o, items)]
        return now + sorted(self.absent.intersection(self.module.keys()))


def _reads(namespace: Namespace, transitive: bool = True) -> tuple[tuple[object, str, object], ...]:
    """The distinct (container, name, object) reads the namespace's linker made (`transitive`
    False: but those of `namespace.transitive`, what other modules' code reached reads)."""
    found: dict[tuple[int, str], tuple[object, str, object]] = {}
    cells = [(cell, CELL, obj) for cell, obj in namespace.cell_reads.values()]  # the root's, if a closure
    start, stop = (0, 0) if transitive else namespace.transitive
    watched = namespace.watched[:start] + namespace.watched[stop:] if stop else namespace.watched
    for container, name, obj in [*watched, *getattr(namespace.linker, "reads", ()), *cells]:
        if isinstance(container, types.ModuleType):
            container = vars(container)  # a dict lookup: ~50 ns where attribute() costs microseconds
        found.setdefault((id(container), name), (container, name, obj))
    return tuple(found.values())


def _read_kind(container: object, name: object) -> str:
    if name == SNAPSHOT and isinstance(container, dict | list | set):
        return "items"
    if name == CELL and isinstance(container, types.CellType):
        return "cell"
    return "dict" if isinstance(container, dict | types.MappingProxyType) else "item" if isinstance(container, list) \
        else "attr"


_READ_TESTS = {"dict": "c{i}.get(n{i}, A) is o{i}", "attr": "attribute(c{i}, n{i}) is o{i}",
               "item": "item(c{i}, n{i}) is o{i}", "items": "same(items(c{i}), o{i})", "cell": "cell(c{i}) is o{i}"}


@functools.lru_cache(maxsize=256)
def _reads_checker(count: int, kinds: tuple[str, ...]) -> Callable[..., Callable[[], bool]]:
    """A maker of a `fresh` that is the root's and then `container[name] is object` for each read
    (straight-line code, as `_checker`: a dict read ~40 ns; a class's attribute goes through
    linking.attribute; a list's item by index; a container whose items a call evaluated when the
    code was generated went through: the identities of its items)."""
    tests = [_READ_TESTS[kind].format(i=i) for i, kind in enumerate(kinds)]
    args = "".join(f", c{i}, n{i}, o{i}" for i in range(count))
    text = (f"def make(own{args}):\n"
            f"    def fresh(own=own, A=A, attribute=attribute, item=item, same=same, items=items, cell=cell"
            f"{''.join(f', c{i}=c{i}, n{i}=n{i}, o{i}=o{i}' for i in range(count))}):\n"
            f"        return own() and {' and '.join(tests)}\n    return fresh\n")
    env: dict = {"A": ABSENT, "attribute": attribute, "item": _item, "same": _same_items, "items": pure_items,
                 "cell": cell_value}
    exec(compile(text, "<vectorizer watch reads>", "exec"), env)  # noqa: S102 - no user text in it
    return lambda own, *reads: env["make"](own, *[x for read in reads for x in read])


def _item(container: list, index: object) -> object:
    try:
        return container[index]  # type: ignore[index]
    except (IndexError, TypeError):
        return ABSENT


def _with_objects(fresh: Callable[[], bool], objects: tuple) -> Callable[[], bool]:
    return lambda fresh=fresh, objects=objects, same=same_fields: fresh() and all(same(o, h) for o, h in objects)


def _with_tables(fresh: Callable[[], bool], tables: tuple) -> Callable[[], bool]:
    return lambda fresh=fresh, tables=tables: fresh() and all(o.tobytes() == saved for o, saved in tables)


def _same_items(now: list, items: tuple) -> bool:
    return len(now) == len(items) and all(map(operator.is_, now, items))


def _with_lists(fresh: Callable[[], bool], lists: tuple) -> Callable[[], bool]:
    return lambda fresh=fresh, lists=lists, same=_same_items: fresh() and all(same(o, i) for o, i in lists)


class Generation:
    """The specializations made from one reading of the module globals: a call may use them while
    `watch` is fresh. Generations whose globals have the same values (one content key: 2.0 rebound
    to an equal 2.0) share their kernels."""

    __slots__ = ("namespace", "content", "watch", "prepared", "kernels", "warned", "_narrow", "lanes")

    def __init__(self, namespace: Namespace, content: str, shared: Generation | None) -> None:
        self.namespace, self.content, self.watch = namespace, content, Watch(namespace)
        self._narrow: Watch | None = None  # `narrow()`, made on first use
        self.lanes = 0  # lanes run element by element since `watch` was last checked (Generations.refused)
        self.prepared: object = None  # (parsed, namespace): the fence runs again on new values
        self.kernels: dict = {} if shared is None else shared.kernels
        self.warned: list[str] = [] if shared is None else shared.warned  # the FallbackWarning given

    def rewatch(self) -> None:
        """Watch the names resolved since (lowering may look up names the content key did not)."""
        if len(self.namespace.seen) + len(_reads(self.namespace)) != self.watch.size:
            self.watch, self._narrow = Watch(self.namespace), None

    def narrow(self) -> Watch:
        """`watch` but what other modules' code reads and contents (`watch` itself if that is all)."""
        if self._narrow is None:
            start, stop = self.namespace.transitive
            self._narrow = self.watch if start == stop and self.watch.cost == self.watch.size else Watch(self.namespace, False)
        return self._narrow


class Generations:
    """The generations of one function: `current()` is the one made from the globals as they are."""

    KEEP = 8  # generations kept by content key: a value toggled back finds its kernels in memory
    WARN_AFTER = 16  # new values seen: past this, suggest an argument instead of a changing global
    CHECK_LANES = 64  # lanes run element by element between two checks of a refusal's Watch, per name

    def __init__(self, func: types.FunctionType) -> None:
        self.func = func
        self.gen: Generation | None = None
        self.memo: dict[str, Generation] = {}
        self.lock = threading.Lock()
        self.new_values = 0

    def latest(self) -> Generation:
        """The generation of the last call, its freshness unchecked (`current()` where none)."""
        gen = self.gen
        return gen if gen is not None else self.current()

    def refused(self, gen: Generation, key: object, lanes: int) -> bool:
        """True where `gen`'s kernel for `key` is a refusal that still holds for a call of `lanes`
        lanes: its fallback's values are the loop's whatever the globals hold, a change only means
        the function may vectorize now. Any other kernel is served after `current()` alone."""
        return isinstance(gen.kernels.get(key), Exception) and self.holds(gen, lanes)

    def holds(self, gen: Generation, lanes: int) -> bool:
        """Whether `gen` still holds for a call of `lanes` lanes run element by element: what the
        function's own module's code reads (`narrow()`) is checked at every call, all it depends
        on (scipy's thousands of names too) once every `CHECK_LANES` lanes a name (`Watch.cost`)."""
        if gen is not self.gen:
            return False
        narrow = gen.narrow()
        if not narrow.fresh():
            return False
        if narrow is gen.watch:
            return True
        gen.lanes += lanes
        if gen.lanes < self.CHECK_LANES * gen.watch.cost:
            return True
        gen.lanes = 0
        return gen.watch.fresh()

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
