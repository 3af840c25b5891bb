"""What a cached kernel depends on, hashed cheaply enough for every warm start.

`content_key` describes a function by its compiled code objects, not its source text: reading
source goes through `inspect`/`tokenize` (~20 ms per process), while walking `__code__` takes
microseconds and sees exactly what runs (bytecode, constants, names, line and column table).
Same-module callees and module constants it reaches are included transitively, so an edit in a
helper invalidates the caller (Numba's own cache misses that). An edit to comments alone keeps the
entry (the generated code's `# line N:` echo comments then show the old text; nothing else can
differ). `engine_fingerprint` stands for
vectorizer's own code: its files' names, sizes and modification times.
"""

from __future__ import annotations

import functools
import os
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .frontend.namespace import Namespace


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
    return "\n".join(sorted(parts))


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
