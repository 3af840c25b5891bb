"""`backend="auto"`: which backend is expected to be faster for a function, decided statically.

Measured with scripts/bench.py on this project's kernels (docs/performance.md):
* per-lane Numba wins where lanes do different amounts of work: `while` loops, and `for` loops
  that a lane can leave early (`break`, `return`) — it wastes no work on lanes that finished;
  and where NumPy has no ufunc (erf, erfc: the NumPy backend calls them per element). gamma and
  lgamma stay on NumPy, as the Numba backend refuses them (the C library's differ from
  CPython's);
* NumPy wins on transcendental math (exp, log, sin... are SIMD in NumPy, scalar libm calls in
  Numba without Intel's SVML), with or without branches, and in `for` loops every lane runs
  the same number of times;
* everything else (arithmetic, comparisons, branches without such math) runs faster compiled.

Same-module functions the function calls count as part of it (`orbit_radius` calling a
Newton solver is a while-loop function).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .errors import VectorizeError
from .frontend.namespace import Namespace, function_source
from .frontend.parse import ParsedFunction, parse_function

SIMD_MATH = frozenset({"exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
                       "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "hypot", "pow", "cbrt"})
PER_ELEMENT_MATH = frozenset({"erf", "erfc"})
NUMPY_ONLY_MATH = frozenset({"gamma", "lgamma"})  # refused by the Numba backend (CPython's own algorithms)


@dataclass
class _Profile:
    lane_loops: int = 0  # loops whose trip count may differ per lane
    simd: int = 0
    per_element: bool = False
    numpy_only: bool = False


def choose(parsed: ParsedFunction, namespace: Namespace) -> str:
    profile = _Profile()
    _scan(parsed.func, namespace, profile, {parsed.name})
    if profile.numpy_only:
        return "numpy"
    if profile.per_element or profile.lane_loops:
        return "numba"
    return "numpy" if profile.simd else "numba"


def _scan(func: cst.FunctionDef, namespace: Namespace, profile: _Profile, seen: set[str]) -> None:
    for node in _walk(func):
        if isinstance(node, cst.While) or (isinstance(node, cst.For) and _leaves_early(node)):
            profile.lane_loops += 1
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) \
                and namespace.resolve(node.value.value).kind == "math":
            _math(node.attr.value, profile)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            glob = namespace.resolve(node.func.value)
            if glob.kind == "math_func":
                _math(glob.name.removeprefix("math."), profile)
            elif glob.kind == "function" and glob.name not in seen:
                seen.add(glob.name)
                try:
                    callee = parse_function(function_source(glob))
                except (VectorizeError, OSError, TypeError):
                    continue  # the transform reports it; the choice does without
                _scan(callee.func, namespace, profile, seen)


def _math(name: str, profile: _Profile) -> None:
    profile.numpy_only |= name in NUMPY_ONLY_MATH
    profile.per_element |= name in PER_ELEMENT_MATH
    profile.simd += name in SIMD_MATH


def _leaves_early(loop: cst.For) -> bool:
    return any(isinstance(n, cst.Break | cst.Return) for n in _walk(loop.body))


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
