"""Helpers for tests/passes/: a function run through the pipeline up to and including one pass
(black/LibCST style before -> after cases), and the scalar text of a pass run per lane."""

from __future__ import annotations

import math
from typing import Any

import libcst as cst

from vectorizer.api import prepare
from vectorizer.core.pyast import parse_function
from vectorizer.core.text import ORIGIN_PREFIX
from vectorizer.core.types import BOOL, FLOAT, INT, Val
from vectorizer.options import Options
from vectorizer.pipeline import as_text, run_until

F = Val(FLOAT, True)  # a batched float parameter (differs between lanes)
I = Val(INT, True)  # noqa: E741 - a batched int
UF = Val(FLOAT, False)  # a uniform float (the same for every lane)
UI = Val(INT, False)
B = Val(BOOL, True)


def after(last: str, f, *, lanes: bool = False, origins: bool = False, options: Options | None = None,
          **params: Val) -> str:
    """The text of `f` after the pass `last` (the passes before it included), for `params`;
    without the origin comments (`# line 12: ...`) unless `origins`."""
    parsed, namespace = prepare(f)
    code = run_until(last, parsed, namespace, params, options or Options(), lanes=lanes)
    text = as_text(code)
    if not origins:
        text = "\n".join(ln for ln in text.splitlines() if not ln.strip().startswith(ORIGIN_PREFIX)) + "\n"
    return text


def on_code(transform, text: str, ctx: Any) -> str:
    """A pass after ops_to_numpy run on the array code printed as `text` (a `def`), printed back
    (without a last newline, as `text` has none)."""
    return transform(parse_function(text), ctx).text().rstrip("\n")


def body(text: str) -> str:
    """The lines after the `def` line, dedented by one level (the code a docstring shows)."""
    lines = text.rstrip("\n").splitlines()[1:]
    return "\n".join(ln[4:] for ln in lines) + "\n"


def run_scalar(text: str, f, *args: Any) -> Any:
    """Call the function defined by `text` (scalar Python: the passes before ops_to_numpy) on
    Python scalars, with `f`'s module globals (math, constants, callees)."""
    namespace = dict(f.__globals__)
    namespace.setdefault("math", math)
    exec(compile(text, f"<after {f.__name__}>", "exec"), namespace)  # noqa: S102 - the pass's own output
    tree = cst.parse_module(text)
    name = next(s.name.value for s in tree.body if isinstance(s, cst.FunctionDef))
    return namespace[name](*args)


def outcome(fn, *args: Any) -> tuple[str, Any]:
    """What `fn(*args)` did, to compare two runs: ('value', its type and repr: nan equals nan, -0.0
    differs from 0.0), or ('raises', the exception's type)."""
    try:
        value = fn(*args)
    except Exception as exc:  # compared by type with the other run's
        return "raises", type(exc)
    return "value", (type(value).__name__, repr(value))
