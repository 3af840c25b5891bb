"""passes/annotate_origins.py: each statement gets its source line as a leading comment; user
comments are dropped."""

from __future__ import annotations

import inspect
import math

from passcase import F, after, body, run_scalar


def escape_test(x: float) -> int:
    n = 0
    while x * x <= 4.0 and n < 10:  # escape test
        x = x * x - 1.0
        n += 1
    return n


def guard(x: float) -> float:
    if x < 0:
        return 0.0
    return math.sqrt(x)


def _line(f, text: str) -> int:
    """The file line of `text` in `f`'s source (what the comment must name)."""
    first = f.__code__.co_firstlineno
    lines = inspect.getsource(f).splitlines()
    return first + next(i for i, ln in enumerate(lines) if ln.strip().startswith(text))


def test_every_statement_carries_its_line_and_user_comments_go():
    w, n, x = (_line(escape_test, t) for t in ("while", "n += 1", "x = x * x"))
    assert body(after("annotate_origins", escape_test, origins=True, x=F)) == (
        f"# line {_line(escape_test, 'n = 0')}: n = 0\n"
        "n = 0\n"
        f"# line {w}: while x * x <= 4.0 and n < 10:\n"
        "while x * x <= 4.0 and n < 10:\n"
        f"    # line {x}: x = x * x - 1.0\n"
        "    x = x * x - 1.0\n"
        f"    # line {n}: n += 1\n"
        "    n += 1\n"
        f"# line {_line(escape_test, 'return n')}: return n\n"
        "return n\n"
    )


def test_the_code_itself_is_unchanged_and_runs_as_the_original():
    text = after("annotate_origins", guard, x=F)
    assert body(text) == "if x < 0:\n    return 0.0\nreturn math.sqrt(x)\n"
    for x in (-1.0, 0.0, 2.0, math.inf):
        assert run_scalar(text, guard, x) == guard(x)
