"""What a code object is, as deterministic text: the identity both the disk cache's content key
(engine/fingerprint.py) and the source check (frontend/source.py) compare.

Two code objects with the same description run the same bytecode over the same constants and
names, and report the same lines and columns: one compiled from the text on disk and the one the
process runs are the same code exactly when their descriptions are equal.
"""

from __future__ import annotations

import types

from .tables import is_array

_FIELDS = ("co_qualname", "co_name", "co_filename", "co_firstlineno", "co_argcount", "co_posonlyargcount",
           "co_kwonlyargcount", "co_flags", "co_names", "co_varnames", "co_freevars", "co_cellvars")


def describe(code: types.CodeType, out: list[str], names: set[str]) -> None:
    """Append `code`'s description (nested code objects included) to `out`; the global and
    attribute names it reads to `names`."""
    names.update(code.co_names)
    out.append(repr(tuple(getattr(code, name, None) for name in _FIELDS)))
    for name in ("co_code", "co_linetable", "co_exceptiontable"):
        out.append(getattr(code, name, b"").hex())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            describe(const, out, names)
        else:
            out.append(constant_text(const))


def code_text(code: types.CodeType) -> str:
    """`code`'s whole description as one text."""
    out: list[str] = []
    describe(code, out, set())
    return "\n".join(out)


def constant_text(value: object) -> str:
    """repr with a type tag (1 and 1.0 and True differ) and a fixed order for sets, whose repr
    follows the salted string hash."""
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}({', '.join(constant_text(v) for v in value)})"
    if isinstance(value, (frozenset, set)):
        return f"{type(value).__name__}({', '.join(sorted(constant_text(v) for v in value))})"
    if isinstance(value, dict):
        return f"dict({', '.join(sorted(f'{constant_text(k)}: {constant_text(v)}' for k, v in value.items()))})"
    if is_array(value):  # exact values (NumPy's repr rounds them and elides long arrays)
        return f"ndarray:{value.dtype}:{value.shape}:{value.tobytes().hex()}"  # type: ignore[attr-defined]
    return f"{type(value).__name__}:{value!r}"
