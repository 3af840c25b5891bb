"""Where a lane's None came from (issue 51): a function that returns None on some inputs (`return
None`, a bare `return`, an if/elif chain with no else) is refused at run time at the first lane
that gets None (engine/patch.py's `store`); this names the source line that returned it, by
running the scalar function once more on that one lane with a line tracer (only when the call is
being refused: it costs one scalar call)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable

from .batch import Batch, call_lane

GENERIC = " (it reached its end without 'return', or a 'return' gave no value or None)"


def refusal_text(scalar: Callable[..., object], batch: Batch, exc: BaseException) -> str:
    """The message of the refusal `exc`, naming the line that returned a lane's None when found."""
    where = _returned_none_at(scalar, batch, exc)
    return str(exc).replace(GENERIC, where) if where else str(exc)


def _returned_none_at(scalar: Callable[..., object], batch: Batch, exc: BaseException) -> str:
    """' (at file:line: `text`)' for the refusal `exc` of a lane's None, '' when unknown."""
    lane = getattr(exc, "none_lane", None)
    code = getattr(inspect.unwrap(scalar), "__code__", None)
    if lane is None or code is None or sys.gettrace() is not None:  # a debugger's or coverage's tracer: left alone
        return ""
    import numpy as np

    args = [c[0] for c in batch.columns(np.array([lane]))]
    last: list[int] = []

    def local(frame, event, arg):  # noqa: ANN001, ANN202
        if event == "return" and frame.f_code is code:
            last.append(frame.f_lineno)
        return local

    def tracer(frame, event, arg):  # noqa: ANN001, ANN202
        return local if frame.f_code is code else None

    sys.settrace(tracer)
    try:
        value = call_lane(scalar, batch.names, args)
    except Exception:  # noqa: BLE001 - the lane raised this time: no line to name
        return ""
    finally:
        sys.settrace(None)
    if value is not None or not last:
        return ""
    line = last[-1]
    try:
        text = inspect.getsourcelines(code)
    except (OSError, TypeError):
        return f" (it returned None at {code.co_filename}:{line})"
    lines, first = text
    source = lines[line - first].strip() if 0 <= line - first < len(lines) else ""
    return f" (it returned None at {code.co_filename}:{line}: `{source}`)"
