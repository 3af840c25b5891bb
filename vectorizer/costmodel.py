"""`backend="auto"`: which backend is expected to be faster for a function, decided statically.

Measured with scripts/bench.py on this project's 16 kernels (docs/performance.md, 2 idle cores):
the per-lane Numba backend is as fast as the NumPy backend or faster on all 16 at 1e3 elements,
15 at 1e5 and 14 at 1e6 — on loops whose trip count differs per lane (no work on finished
lanes), on branches (no evaluation of both sides), on erf/erfc (the NumPy backend calls them per
element), and on most transcendental math too, where NumPy's SIMD exp/log do not make up for the
NumPy backend's extra passes over memory (haversine 33 vs 40 ns a lane, softplus 9.6 vs 9.9).
The exceptions are fixed-count loops of exp/pow at large sizes (simpson_gauss 1.4-1.5x,
zeta_partial 1.2x at 1e6), which a static rule does not single out reliably.
So: Numba, except where the Numba backend refuses the function: math.gamma and math.lgamma
(CPython's own algorithms; the C library's, which Numba calls, differ), in the function or in a
same-module function it calls. Functions of per-example arrays always use NumPy (see api.py).
"""

from __future__ import annotations

import libcst as cst

from .errors import VectorizeError
from .frontend.namespace import Namespace, function_source
from .frontend.parse import ParsedFunction, parse_function

NUMPY_ONLY_MATH = frozenset({"gamma", "lgamma"})  # refused by the Numba backend (CPython's own algorithms)


def choose(parsed: ParsedFunction, namespace: Namespace) -> str:
    return "numpy" if _needs_numpy(parsed.func, namespace, {parsed.name}) else "numba"


def _needs_numpy(func: cst.FunctionDef, namespace: Namespace, seen: set[str]) -> bool:
    for node in _walk(func):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and namespace.resolve(node.value.value).kind == "math" and node.attr.value in NUMPY_ONLY_MATH:
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            glob = namespace.resolve(node.func.value)
            if glob.kind == "math_func" and glob.name.removeprefix("math.") in NUMPY_ONLY_MATH:
                return True
            if glob.kind == "function" and glob.name not in seen:
                seen.add(glob.name)
                try:
                    callee = parse_function(function_source(glob))
                except (VectorizeError, OSError, TypeError):
                    continue  # the transform reports it; the choice does without
                if _needs_numpy(callee.func, namespace, seen):
                    return True
    return False


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
