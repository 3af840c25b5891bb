"""Read the source text of a function: decorated, nested or indented, from its file or from text.

The text is dedented so libcst can parse it alone; `first_line` and `indent` map positions in the
dedented text back to the user's file, so error messages point at the real line and column.

The text read is checked to be the code that runs (`running_code`): the file it came from is
compiled again and the function's code object there must equal the function's own
(core/codeident.py: bytecode, constants, names, lines and columns). A file edited since it was
imported (or a function inserted above, which moves the lines) fails the check with a
`StaleSourceError`, so no kernel is ever generated from text the process does not run. A
function defined in an IPython or Jupyter cell, or by `exec` of a text registered in linecache
(as IPython registers each cell), is read from that text and checked the same way (IPython
compiles a cell one top-level statement at a time, so that statement is compiled alone too).
Where no text is held (`python -c`, a plain REPL, `exec` of a bare string), the source cannot be
had: `SourceUnavailableError`, and the default fallback runs the function lane by lane. The disk
cache keys kernels by the code object (engine/fingerprint.py); this check makes that key the key
of the text compiled too.
"""

from __future__ import annotations
import __future__

import ast
import functools
import inspect
import linecache
import operator
import os
import textwrap
import types

from ..core.codeident import code_text
from ..core.record import Record
from ..errors import SourceLocation, SourceUnavailableError, StaleSourceError


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
        running_code(code, name)
        return FunctionSource(name, inspect.getsourcefile(func) or code.co_filename, text, line, 0)
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"cannot read the source of {name!r} (defined in {code.co_filename}): {exc}",
            hint="define the function in a .py file, or pass its source text to vectorizer",
        ) from None
    running_code(code, name)
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = _indent_width(raw) - _indent_width(dedented)
    filename = inspect.getsourcefile(func) or code.co_filename
    return FunctionSource(name, filename, dedented, max(first_line, 1), indent)


# The __future__ features the running code was compiled with (a compile() call may pass them
# without the text saying so): compiled again under the same ones.
_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, f).compiler_flag for f in __future__.all_feature_names))
_CHECKED: dict[int, tuple[types.CodeType, tuple[str, ...]]] = {}  # id(code) -> (code, file lines checked)


def running_code(code: types.CodeType, name: str) -> None:
    """Raise `StaleSourceError` unless compiling the lines `inspect` reads for `code` (its file, as
    linecache holds it now) gives `code` itself: compiled whole, or the top-level statement that
    holds it compiled alone (an IPython cell, `_alone`)."""
    lines = linecache.getlines(code.co_filename)
    held = _CHECKED.get(id(code))
    if held is not None and held[0] is code and held[1] == tuple(lines):
        return
    where = f"{code.co_filename}:{code.co_firstlineno}"
    try:
        module = compile("".join(lines), code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    except SyntaxError as exc:  # half an edit: where the file breaks now (the VEC-PARSE page's case)
        line = exc.lineno or code.co_firstlineno
        at = SourceLocation(code.co_filename, line, exc.offset or 1, None, file_line(code.co_filename, line))
        raise StaleSourceError(f"the file of {name!r} does not compile any more ({exc.msg}): it changed since it "
                               "was imported", at, code="VEC-PARSE") from None
    except ValueError as exc:  # a NUL byte
        raise StaleSourceError(f"the file of {name!r} does not compile any more ({exc}) ({where})") from None
    wanted = code_text(code)
    if not any(code_text(found) == wanted for found in _code_objects(module, code.co_name, code.co_firstlineno)) \
            and not any(code_text(found) == wanted for found in _alone(lines, code)):
        if not os.path.isfile(code.co_filename):  # a cell's text, or one registered in linecache
            raise StaleSourceError(f"the source text held for {name!r} ({where}) is not the code that runs: it "
                                   "changed since the function was defined")
        raise StaleSourceError(f"the source of {name!r} on disk is not the code that runs: its file changed since "
                               f"it was imported ({where})")
    if len(_CHECKED) > 1024:
        _CHECKED.clear()
    _CHECKED[id(code)] = (code, tuple(lines))


def _alone(lines: list[str], code: types.CodeType):
    """The code objects of the top-level statement of `lines` that holds `code`'s first line,
    compiled on its own, as IPython and Jupyter run a cell: one statement at a time, each its own
    module (a function there does not see the cell's imports, and CPython 3.11+ compiles
    `math.sqrt(x)` to other bytecode where `math` is imported in the same module)."""
    flags = code.co_flags & _FUTURE_FLAGS
    tree = compile("".join(lines), code.co_filename, "exec", flags=flags | ast.PyCF_ONLY_AST, dont_inherit=True)
    for node in tree.body:
        if node.lineno <= code.co_firstlineno <= (node.end_lineno or node.lineno):
            alone = compile(ast.Module([node], type_ignores=[]), code.co_filename, "exec", flags=flags, dont_inherit=True)
            yield from _code_objects(alone, code.co_name, code.co_firstlineno)


def compiled_from_lines(code: types.CodeType) -> None:
    """Record that `code` was compiled from its file's lines as linecache holds them now (a
    function rebuilt from text another process sent and checked: engine/scaleout/travel.py)."""
    _CHECKED[id(code)] = (code, tuple(linecache.getlines(code.co_filename)))


def _code_objects(code: types.CodeType, name: str, first_line: int):
    """The code objects named `name` that start at `first_line`, anywhere inside `code`."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first_line:
                yield const
            yield from _code_objects(const, name, first_line)


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
