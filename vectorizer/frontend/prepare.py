"""Read, parse, link, desugar and fence a function: the checks that need no argument types.

api.py imports this module at its top: the compiler's modules (libcst and the passes) are
imported inside `prepare`, so that a warm process, served from the cache, never imports them."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable

from .namespace import Namespace
from .source import source_of


def prepare(func: types.FunctionType, namespace: Namespace | None = None, for_numbers: Callable | None = None):
    """(parsed function, namespace): other modules' names linked (linking.py), local tables,
    reductions and call statements desugared (desugar.py), then fenced leniently (a call's values
    may still specialize it: the strict fence runs in specialized_analysis.specialized). An expression nested
    past Python's recursion limit is walked on a deeper stack (core/deep.py).

    Where that is refused, `for_numbers(parsed, namespace)` may give (the function decided for
    parameters that hold number lanes, those parameters): array-or-number code whose branches
    for sequences are dead for numbers (frontend/kind_values.py). If that version passes, it is
    the prepared function, marked `numbers_only` with the parameters and the first refusal, which
    a call giving one of them anything but numbers gets."""
    from ..core.deep import with_deep_stack

    return with_deep_stack(lambda: _prepare(func, namespace, for_numbers))


def _prepare(func: types.FunctionType, namespace: Namespace | None, for_numbers: Callable | None):
    source = source_of(func)  # first: a function whose source cannot be had needs no compiler imported
    from ..errors import VectorizeError
    from .linking import link_root
    from .parse import parse_function

    namespace = namespace or Namespace.of_function(func)
    linked = link_root(parse_function(source), namespace)
    try:
        return _desugared(linked, namespace), namespace
    except VectorizeError as refusal:
        decided = for_numbers(linked, namespace) if for_numbers is not None else None
        if decided is None:
            raise
        try:
            parsed = _desugared(decided[0], namespace)
        except VectorizeError:
            raise refusal from None
        return dataclasses.replace(parsed, numbers_only=(decided[1], refusal)), namespace


def _desugared(parsed, namespace: Namespace):  # noqa: ANN001, ANN202 - ParsedFunction: imported lazily
    from . import fence
    from .desugar import desugar

    parsed = desugar(parsed, namespace)
    fence.check(parsed, namespace, specializable=True)
    return parsed
