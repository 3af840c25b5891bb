"""Run a recursive tree walk that Python's default recursion limit stops, on a stack that fits it.

The passes walk expressions recursively (libcst's visitors do too): a polynomial of a few
hundred terms written out flat (thermofeel's UTCI approximation: 200 terms, each a level of
`a + b` deep) nests past the default limit of 1000 frames. `with_deep_stack(fn)` runs `fn`;
on RecursionError it runs `fn` again on a thread of its own with a stack of STACK_BYTES and a
recursion limit of LIMIT, which that stack holds with room to spare (a Python frame of a tree
walk takes well under STACK_BYTES / LIMIT of C stack). Pages of the stack are only committed
as they are used. The common case pays nothing; the process's limit is restored after.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
LIMIT = 30_000
STACK_BYTES = 512 * 1024 * 1024
_raising = threading.Lock()  # one deep walk at a time moves the (process-wide) recursion limit


def too_deep(exc: BaseException) -> bool:
    """A RecursionError, or the SystemError CPython 3.11 raises instead when `ast.parse` runs
    near the recursion limit ("AST constructor recursion depth mismatch")."""
    return isinstance(exc, RecursionError) or isinstance(exc, SystemError) and "recursion depth" in str(exc)


def with_deep_stack(fn: Callable[[], T]) -> T:
    """fn(), again on a deep stack when Python's recursion limit stops it the first time."""
    try:
        return fn()
    except RecursionError:
        pass
    except SystemError as exc:  # CPython 3.11's ast constructors near the limit: the same cause
        if not too_deep(exc):
            raise
    outcome: list = []

    def run() -> None:
        with _raising:
            before = sys.getrecursionlimit()
            sys.setrecursionlimit(max(before, LIMIT))
            try:
                outcome.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - handed back to the calling thread as it is
                outcome.append((False, exc))
            finally:
                sys.setrecursionlimit(before)

    previous = threading.stack_size(STACK_BYTES)
    try:
        worker = threading.Thread(target=run, name="vectorizer-deep-walk")
        worker.start()
    finally:
        threading.stack_size(previous)
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value
