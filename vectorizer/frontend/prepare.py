"""Read, parse, link, desugar and fence a function: the checks that need no argument types.

api.py imports this module at its top: the compiler's modules (libcst and the passes) are
imported inside `prepare`, so that a warm process, served from the cache, never imports them."""

from __future__ import annotations

import types

from .namespace import Namespace
from .source import source_of


def prepare(func: types.FunctionType, namespace: Namespace | None = None):
    """(parsed function, namespace): other modules' names linked (linking.py), local tables,
    reductions and call statements desugared (desugar.py), then fenced leniently (a call's values
    may still specialize it: the strict fence runs in specialized_analysis.specialized). An expression nested
    past Python's recursion limit is walked on a deeper stack (core/deep.py)."""
    from ..core.deep import with_deep_stack

    return with_deep_stack(lambda: _prepare(func, namespace))


def _prepare(func: types.FunctionType, namespace: Namespace | None):
    source = source_of(func)  # first: a function whose source cannot be had needs no compiler imported
    from . import fence
    from .desugar import desugar
    from .linking import link_root
    from .parse import parse_function

    namespace = namespace or Namespace.of_function(func)
    parsed = link_root(parse_function(source), namespace)
    parsed = desugar(parsed, namespace)
    fence.check(parsed, namespace, specializable=True)
    return parsed, namespace
