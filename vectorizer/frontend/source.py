"""Read the source text of a function: decorated, nested or indented, from its file or from text.

The text is dedented so libcst can parse it alone; `first_line` and `indent` map positions in the
dedented text back to the user's file, so error messages point at the real line and column.
"""

from __future__ import annotations

import inspect
import linecache
import textwrap

from ..core.record import Record
from ..errors import SourceUnavailableError


class FunctionSource(Record):
    """The source of one function, as it appears in its file."""

    __slots__ = ("qualname", "filename", "text", "first_line", "indent")
    qualname: str
    filename: str
    text: str  # dedented, decorators included
    first_line: int  # file line number of the text's first line
    indent: int  # columns removed by dedenting

    def __init__(self, qualname: str, filename: str, text: str, first_line: int, indent: int) -> None:
        self._set(qualname=qualname, filename=filename, text=text, first_line=first_line, indent=indent)

    def file_line(self, line_in_text: int) -> str:
        """The user's original line (with its indentation) for a 1-based line of `text`."""
        lines = self.text.splitlines()
        if 1 <= line_in_text <= len(lines):
            return " " * self.indent + lines[line_in_text - 1] if lines[line_in_text - 1] else ""
        return ""


def source_of(func: object) -> FunctionSource:
    """Return the source of a Python function, or raise `SourceUnavailableError` saying why."""
    name = getattr(func, "__qualname__", getattr(func, "__name__", repr(func)))
    code = getattr(func, "__code__", None)
    if code is None:
        raise SourceUnavailableError(
            f"cannot vectorize {name!r}: it is not a Python function",
            hint="pass a function defined with 'def' in a source file",
        )
    if code.co_name == "<lambda>":  # read as the `def` it stands for (lambdas.py)
        from .lambdas import lambda_text

        _, text, line = lambda_text(func)  # type: ignore[arg-type]
        return FunctionSource(name, inspect.getsourcefile(func) or code.co_filename, text, line, 0)
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of {name!r} (defined in {code.co_filename}): {exc}",
            hint="define the function in a .py file, or pass its source text to vectorizer",
        ) from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = _indent_width(raw) - _indent_width(dedented)
    filename = inspect.getsourcefile(func) or code.co_filename
    return FunctionSource(name, filename, dedented, max(first_line, 1), indent)


def source_from_text(text: str, qualname: str, filename: str, first_line: int = 1) -> FunctionSource:
    """Wrap already-extracted source text (the CLI reads whole files itself)."""
    dedented = textwrap.dedent(text)
    indent = _indent_width(text) - _indent_width(dedented)
    return FunctionSource(qualname, filename, dedented, first_line, indent)


def file_line(filename: str, line: int) -> str:
    """One line of a file for a caret display ('' when unreadable)."""
    return linecache.getline(filename, line)


def _indent_width(text: str) -> int:
    for line in text.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0
