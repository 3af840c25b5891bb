"""Errors and warnings raised by vectorizer.

Every refusal is a `VectorizeError` that names file:line:col (1-based line, 1-based character
column), shows the source line with a caret under the construct, says what the construct is in the
user's words and gives a hint::

    model.py:12:14: error[VEC-GEN]: 'yield' makes 'f' a generator; generators cannot be vectorized
       12 |     y = (yield x)
          |          ^^^^^^^
    hint: return one value per call; each input lane maps to exactly one output (see `vectorizer errors VEC-GEN`)

Several problems found in one function are reported together (`VectorizeErrorGroup`). Every
problem's text ends with a pointer to its catalogue page, "(see `vectorizer errors CODE`)"
(`see`); a `FallbackWarning` carries the whole report of the error it stands for.
"""

from __future__ import annotations

import os
import sys
from operator import itemgetter


class SourceLocation(tuple):
    """A place in a user's source file; line and columns are 1-based, columns count characters.

    A named tuple written out: defining a `typing.NamedTuple` costs ~0.25 ms and a frozen dataclass
    ~0.8 ms, on every start-up (this module is imported by `import vectorizer`)."""

    __slots__ = ()
    filename: str = property(itemgetter(0))  # type: ignore[assignment]
    line: int = property(itemgetter(1))  # type: ignore[assignment]
    column: int = property(itemgetter(2))  # type: ignore[assignment]
    end_column: int | None = property(itemgetter(3))  # type: ignore[assignment]
    source_line: str = property(itemgetter(4))  # type: ignore[assignment]

    def __new__(cls, filename: str, line: int, column: int, end_column: int | None = None,
                source_line: str = "") -> SourceLocation:
        return tuple.__new__(cls, (filename, line, column, end_column, source_line))

    def __getnewargs__(self) -> tuple:  # pickle and copy rebuild it through __new__
        return tuple(self)

    def __repr__(self) -> str:
        return (f"SourceLocation(filename={self.filename!r}, line={self.line!r}, column={self.column!r}, "
                f"end_column={self.end_column!r}, source_line={self.source_line!r})")

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.column}"

    def caret_block(self) -> str:
        """The source line and a caret range under the construct, as a compiler prints them."""
        if not self.source_line:
            return ""
        text = self.source_line.rstrip("\n")
        gutter = f"{self.line:>5} | "
        start = max(self.column - 1, 0)
        end = self.end_column - 1 if self.end_column and self.end_column > self.column else start + 1
        end = min(max(end, start + 1), max(len(text), start + 1))
        pad = " " * (len(gutter) - 2) + "| "
        return f"{gutter}{text}\n{pad}{' ' * start}{'^' * (end - start)}"


class VectorizeError(Exception):
    """A function (or a call) that vectorizer refuses, with where and why."""

    code = "VEC"

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        *,
        hint: str | None = None,
        construct: str | None = None,
        code: str | None = None,
    ) -> None:
        self.message = message
        self.location = location
        self.hint = hint
        self.construct = construct
        if code is not None:
            self.code = code
        super().__init__(self._render())

    def __reduce__(self):  # pickling (multiprocessing): Exception's would call __init__(rendered text)
        return _restore, (type(self), self.args, self.__dict__)

    def reword(self, message: str | None = None, hint: str | None = None) -> None:
        """Change the message and/or the hint in place, and the text `str()` gives with them."""
        if message is not None:
            self.message = message
        if hint is not None:
            self.hint = hint
        self.args = (self._render(),)

    def _render(self) -> str:
        head = f"error[{self.code}]: {self.message}"
        if self.location is not None:
            head = f"{self.location}: {head}"
        parts = [head]
        if self.location is not None and self.location.source_line:
            parts.append(self.location.caret_block())
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return _with_pointer(parts, self.code)


def see(code: str) -> str:
    """The pointer to the catalogue page of `code` that ends every error and warning message."""
    return f"(see `vectorizer errors {code}`)"


def _with_pointer(parts: list[str], code: str) -> str:
    # On the hint or head line it ends, or on a line of its own after a caret block.
    if len(parts) > 1 and parts[-1].lstrip().startswith("|"):
        parts.append(see(code))
    else:
        parts[-1] = f"{parts[-1]} {see(code)}"
    return "\n".join(parts)


def _restore(cls: type[BaseException], args: tuple, state: dict) -> BaseException:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class UnsupportedSyntaxError(VectorizeError):
    """A construct outside the supported subset (generators, try, with, ...)."""

    code = "VEC-SYNTAX"


class UnsupportedCallError(VectorizeError):
    """A call vectorizer has no exact batched meaning for."""

    code = "VEC-CALL"


class VectorizeTypeError(VectorizeError, TypeError):
    """A value of a type the engine cannot batch (a float range bound, a bitwise op on floats...)."""

    code = "VEC-TYPE"


class SourceUnavailableError(VectorizeError):
    """The function's source text cannot be read (lambda, exec, REPL)."""

    code = "VEC-SOURCE"


class StaleSourceError(SourceUnavailableError):
    """The source text on disk is not the code that runs (the file changed since it was imported)."""

    code = "VEC-STALE"

    def __init__(self, message: str, location: SourceLocation | None = None, *, hint: str | None = None,
                 construct: str | None = None, code: str | None = None) -> None:
        super().__init__(message, location, hint=hint or "the file changed since it was imported: reload the "
                         "module (importlib.reload) or restart the process", construct=construct, code=code)


class VectorizeInputError(VectorizeError, TypeError):
    """A call with an argument the batched function cannot take (complex, strings, huge ints...)."""

    code = "VEC-INPUT"


class VectorizeValueError(VectorizeError, ValueError):
    """A call with arguments whose shapes do not broadcast, or a lane result that cannot be stored."""

    code = "VEC-VALUE"


class VectorizeOverflowError(VectorizeError, OverflowError):
    """A lane's exact Python integer result does not fit the int64 output array."""

    code = "VEC-OVERFLOW"


class InternalError(VectorizeError):
    """A vectorizer bug: an unexpected exception while transforming a function or running the code
    made for it. Refused like any error (fallback="warn" runs the loop), never the user's fault."""

    code = "VEC-BUG"


def internal_error(doing: str, qualname: str, exc: BaseException, in_pass: str | None = None) -> InternalError:
    """The one form of an engine bug's message: what was being done, to which function, in which
    pass, and the exception with the line of vectorizer (or of the generated code) it came from."""
    import os
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    at = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    where = f" in pass {in_pass!r}" if in_pass else ""
    return InternalError(f"a vectorizer bug while {doing} {qualname}{where}: {type(exc).__name__}{at}: {exc}",
                         hint="the function runs element by element meanwhile; please report it with its source")


class VectorizeErrorGroup(VectorizeError):
    """All the problems found in one function, reported at once."""

    code = "VEC-MANY"

    def __init__(self, errors: list[VectorizeError]) -> None:
        self.errors = list(errors)
        first = self.errors[0]
        super().__init__(
            first.message, first.location, hint=first.hint, construct=first.construct, code=first.code
        )

    def _render(self) -> str:
        body = "\n\n".join(e._render() for e in self.errors)
        return f"{len(self.errors)} problems found:\n{body}" if len(self.errors) > 1 else body


class FallbackWarning(UserWarning):
    """A function is run by the per-element (slow, exact) path instead of batched code.

    `FallbackWarning(what, error)` carries `error`'s whole report (every problem, with its
    location, caret, hint and catalogue pointer), as `fallback="error"` would raise it; without an
    error (a call numpy.vectorize serves, a pytree vmap runs example by example) `what` is the
    reason and the pointer is `VEC-FALLBACK`'s."""

    code = "VEC-FALLBACK"

    def __init__(self, message: str, error: VectorizeError | None = None) -> None:
        self.message = message
        self.error = error
        if error is not None:
            self.code = error.code
            more = len(getattr(error, "errors", ())) - 1
            # The first line stays a one-line summary (warning filters match it with `.*`).
            summary = f"{message}: {error.message}" + (f" (and {more} more)" if more > 0 else "")
            text = f"{summary}\n{error}"
        else:
            text = _with_pointer([message], self.code)
        super().__init__(text)

    def __reduce__(self):
        return _restore, (type(self), self.args, self.__dict__)


class InexactWarning(UserWarning):
    """The default configuration cannot give CPython's bits for transcendental results here:
    Numba (which compiles the loops over the C library) is not installed for this interpreter,
    so exp, log, pow, sin... are NumPy's, within the ulp bound of docs/contract.md. Ints, bools,
    branches, trip counts and exceptions stay exact. Said once a process."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The `stacklevel` that makes a warning issued by the CALLER of this function point at the
    first frame outside the vectorizer package: the user's line, however deep the call path
    (a decorated function, vmap, numpy.vectorize's front, the import hook)."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
