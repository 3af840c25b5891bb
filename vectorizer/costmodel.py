"""`backend="auto"`: which backend is expected to be faster for a function, decided statically.

Measured with scripts/bench.py on this project's kernels (docs/performance.md):
* per-lane Numba wins on loops whose trip count differs per lane (it wastes no work on lanes
  that finished), on branches (no evaluation of both sides), and where NumPy has no ufunc
  (erf, erfc: the NumPy backend calls them per element); gamma and lgamma stay on NumPy, as
  the Numba backend refuses them (the C library's differ from CPython's);
* NumPy wins on straight-line transcendental math (exp, log, sin... are SIMD in NumPy, scalar
  libm calls in Numba without Intel's SVML).
"""

from __future__ import annotations

import libcst as cst

from .frontend.namespace import Namespace
from .frontend.parse import ParsedFunction

SIMD_MATH = frozenset({"exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
                       "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "hypot", "pow", "cbrt"})
PER_ELEMENT_MATH = frozenset({"erf", "erfc"})
NUMPY_ONLY_MATH = frozenset({"gamma", "lgamma"})  # refused by the Numba backend (CPython's own algorithms)


def choose(parsed: ParsedFunction, namespace: Namespace) -> str:
    loops = branches = simd = 0
    for node in _walk(parsed.func):
        if isinstance(node, cst.While | cst.For):
            loops += 1
        elif isinstance(node, cst.If | cst.IfExp | cst.BooleanOperation):
            branches += 1
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and namespace.resolve(node.value.value).kind == "math":
            if node.attr.value in NUMPY_ONLY_MATH:
                return "numpy"
            if node.attr.value in PER_ELEMENT_MATH:
                return "numba"
            simd += node.attr.value in SIMD_MATH
    if loops or branches:
        return "numba"
    return "numpy" if simd else "numba"


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
