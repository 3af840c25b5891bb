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

from .frontend.namespace import ABSENT, Namespace


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

    walk(os.path.dirname(os.path.abspath(__file__)), "")
    return "\n".join(parts)


def content_key(func: types.FunctionType, namespace: Namespace) -> str:
    """The code of `func` and of everything it reaches through globals, as deterministic text."""
    parts: list[str] = []
    todo, seen = [func], set()
    while todo:
        f = todo.pop()
        if f.__qualname__ in seen:
            continue
        seen.add(f.__qualname__)
        names: set[str] = set()
        text: list[str] = []
        _describe(f.__code__, text, names)
        parts.append(f"{f.__module__}.{f.__qualname__} defaults={_const(f.__defaults__)}"
                     f" kwdefaults={_const(f.__kwdefaults__)}\n" + "\n".join(text))
        for name in sorted(names):
            glob = namespace.resolve(name)
            if glob.kind == "function" and isinstance(glob.value, types.FunctionType):
                todo.append(glob.value)
            elif glob.kind in ("constant", "math_func", "math", "builtin"):
                parts.append(f"{name}={glob.kind}:{glob.name}:{_const(glob.value)}")
            else:  # numpy, unknown: what the name is decides what the fence says, so it is in the key
                parts.append(f"{name}={glob.kind}:{glob.name}")
    return "\n".join(sorted(parts))


def _no_names(module: dict) -> tuple:
    return ()


class Watch:
    """The global names a namespace resolved and the objects they were bound to (`Namespace.seen`).

    `fresh()` is True while the module binds every such name to the same object and binds none of
    those that were unbound (a builtin shadowed later). It keeps those objects alive, so an
    identity it compares cannot be reused by a new object."""

    __slots__ = ("module", "names", "size", "get", "objects", "keys", "absent")

    def __init__(self, namespace: Namespace) -> None:
        seen = dict(namespace.seen)  # a copy: lowering may resolve more names meanwhile
        module = namespace.globals if namespace.globals is not None else {}
        present = sorted(n for n, v in seen.items() if v is not ABSENT)
        self.module, self.names, self.size = module, present, len(seen)
        self.absent = frozenset(n for n, v in seen.items() if v is ABSENT)
        self.keys = module.keys()  # a live view
        names = present * 2 if len(present) == 1 else present  # itemgetter of one name gives no tuple
        self.get = operator.itemgetter(*names) if names else _no_names
        self.objects = tuple(seen[n] for n in names)

    def fresh(self) -> bool:
        try:
            return all(map(operator.is_, self.get(self.module), self.objects)) and self.keys.isdisjoint(self.absent)
        except KeyError:  # a name was deleted
            return False

    def changed(self) -> list[str]:
        """The names bound differently now (for messages)."""
        now = [n for n in self.names if self.module.get(n, ABSENT) is not self.objects[self.names.index(n)]]
        return now + sorted(self.absent.intersection(self.module.keys()))


def _describe(code: types.CodeType, out: list[str], names: set[str]) -> None:
    names.update(code.co_names)
    fields = ("co_qualname", "co_name", "co_filename", "co_firstlineno", "co_argcount", "co_posonlyargcount",
              "co_kwonlyargcount", "co_flags", "co_names", "co_varnames", "co_freevars", "co_cellvars")
    out.append(repr(tuple(getattr(code, name, None) for name in fields)))
    for name in ("co_code", "co_linetable", "co_exceptiontable"):
        out.append(getattr(code, name, b"").hex())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _describe(const, out, names)
        else:
            out.append(_const(const))


def _const(value: object) -> str:
    """repr with a type tag (1 and 1.0 and True differ) and a fixed order for sets, whose repr
    follows the salted string hash."""
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(_const(v) for v in value)})"
    if isinstance(value, (frozenset, set)):
        return f"{type(value).__name__}({', '.join(sorted(_const(v) for v in value))})"
    if isinstance(value, dict):
        return f"dict({', '.join(sorted(f'{_const(k)}: {_const(v)}' for k, v in value.items()))})"
    return f"{type(value).__name__}:{value!r}"


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

    __slots__ = ("namespace", "content", "watch", "prepared", "kernels", "races", "numpy_kernels", "warned")

    def __init__(self, namespace: Namespace, content: str, shared: Generation | None) -> None:
        self.namespace, self.content, self.watch = namespace, content, Watch(namespace)
        self.prepared: object = None  # (parsed, namespace): the fence runs again on new values
        self.kernels: dict = {} if shared is None else shared.kernels
        self.races: dict = {} if shared is None else shared.races  # autotrial races (api.py)
        self.numpy_kernels: dict = {} if shared is None else shared.numpy_kernels
        self.warned: list[str] = [] if shared is None else shared.warned  # the FallbackWarning given

    def rewatch(self) -> None:
        """Watch the names resolved since (lowering may look up names the content key did not)."""
        if len(self.namespace.seen) != self.watch.size:
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

            from .errors import user_stacklevel

            warnings.warn(f"{self.func.__qualname__}: the module globals it reads ({', '.join(names) or '?'}) have "
                          f"taken {self.WARN_AFTER} new values; each new value generates (and caches) its code "
                          "again: pass a value that changes often as an argument", UserWarning,
                          stacklevel=user_stacklevel())
