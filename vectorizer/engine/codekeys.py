"""The code of a function or class that a specialization's value reaches, as a short digest for
its key (issue 51): a method called on a static object, a function stored on one
(`env.cdf = cdf`) or held in a closure's cell. The code generated inlines them, so the kernel's
key, and the disk cache's, must change when their code, or anything they read, changes.

A function's digest is its `fingerprint.content_key` (its code, the globals and cells it reads,
the functions it reaches), kept per function while its `Watch` holds (a few hundred nanoseconds a
call). A class's is its name and, over its Python bases, the digest of each of its functions
(methods, classmethods, staticmethods, property getters) and the value of each plain class
attribute. A function or class that cannot be held so (a builtin method) is named only: the code
that calls it is refused where it is reached.
"""

from __future__ import annotations

import hashlib
import threading
import types
import weakref

from ..core.codeident import constant_text
from ..frontend.pure_builtins import plain

_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # function -> fingerprint.Generations
_LOCK = threading.Lock()
_PLAIN = (dict, list, tuple, str, bytes, int, float, bool, type(None), frozenset)


def code_key(obj: object) -> str:
    """A digest of a function's or class's code and of what it reads (see the module docstring)."""
    if isinstance(obj, type):
        return _digest(class_text(obj))
    if isinstance(obj, types.FunctionType):
        return _digest(function_text(obj))
    return _digest(f"{type(obj).__module__}.{type(obj).__qualname__}")


def function_text(func: types.FunctionType) -> str:
    """`func`'s content key as its current generation holds it (fingerprint.Generations)."""
    from .fingerprint import Generations

    gens = _FUNCTIONS.get(func)
    if gens is None:
        with _LOCK:
            gens = _FUNCTIONS.get(func)
            if gens is None:
                gens = _FUNCTIONS[func] = Generations(func)
    return gens.current().content


def class_text(cls: type) -> str:
    """A class's name, and its functions' content keys and plain attributes over its Python bases."""
    lines = [f"{cls.__module__}.{cls.__qualname__}"]
    for base in cls.__mro__:
        if base is object or base.__module__ == "builtins":
            continue
        for name, value in sorted(vars(base).items(), key=lambda item: item[0]):
            func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
            if isinstance(func, types.FunctionType):
                lines.append(f"{base.__qualname__}.{name}={_digest(function_text(func))}")
            elif type(value) in _PLAIN and plain(value):  # (dataclass fields are not: their repr holds addresses)
                lines.append(f"{base.__qualname__}.{name}={constant_text(value)}")
    return "\n".join(lines)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
