"""`backend="auto"`: which backend is expected to be faster for a function, decided statically.

Measured with scripts/bench.py on this project's 16 kernels (docs/performance.md, 2 idle cores):
the per-lane Numba backend is as fast as the NumPy backend or faster on loops whose trip count
differs per lane (no work on finished lanes), on branches (no evaluation of both sides), and on
most straight-line math too, where NumPy's SIMD exp/log do not make up for the NumPy backend's
extra passes over memory (haversine 33 vs 38 ns a lane at 1e6, softplus 9.5 vs 11.0, black_scholes
28 vs 93). NumPy wins where SIMD math repeats in a loop of a fixed trip count: every pass is a
full-width SIMD exp/log/pow and nothing is masked (simpson_gauss 61 vs 93 ns a lane at 1e6,
zeta_partial 320 vs 368). So:

* NumPy where the Numba backend refuses the function: math.gamma and math.lgamma (CPython's own
  algorithms; the C library's, which Numba calls, differ), and the NumPy functions on numbers
  whose values lane code cannot reproduce (np.tanh, np.power: passes/ops_to_lanes/numpy_calls.py), and
  uniform tables used other than in np.sum / np.prod (passes/table_lanes.py), in the function or a callee;
* NumPy for a `for` loop over a `range` of literals and module constants whose body (callees
  included) calls exp/log/pow and never leaves the loop early, in a function without `while`,
  on a CPU where NumPy's float64 exp/log are SIMD kernels (AVX-512; `numpy_has_simd_math`);
* Numba otherwise. Functions of per-example arrays always use NumPy (see api.py).

Per call size the picture differs: at 1e3 lanes the Numba backend's lower overhead wins even on
those loops (simpson_gauss 154 vs 310 ns a lane); the choice is made for large batches. What the
source cannot show (how alike the lanes' trip counts are) is measured where this picks Numba: calls
of at least `autotrial.EXPLORE_LANES` lanes are timed on both backends, per size class
(autotrial.py).
"""

from __future__ import annotations

import libcst as cst

from ..errors import VectorizeError
from ..frontend.namespace import Namespace, function_source
from ..frontend.parse import ParsedFunction, parse_function
from ..passes import table_lanes
from ..passes.ops_to_lanes.numpy_calls import (
    REFUSED,  # NumPy functions on numbers the Numba backend refuses
)
from . import chunks

NUMPY_ONLY_MATH = frozenset({"gamma", "lgamma"})  # refused by the Numba backend (CPython's own algorithms)


# NumPy's float64 SIMD kernels (AVX-512): ~1-5 ns an element where libm takes ~10-20.
SIMD_MATH = frozenset({"exp", "expm1", "log", "log1p", "log2", "log10", "pow"})


def numpy_has_simd_math() -> bool:
    """NumPy runs float64 exp/log/pow as AVX-512 SIMD kernels on this CPU. Without AVX-512 (an
    AVX2 machine, measured: zeta_partial 622 vs 494 ns a lane at 1e6, simpson_gauss 152 vs 118)
    it calls scalar libm like Numba does, and the rule below does not hold."""
    return chunks.simd_math()


def choose(parsed: ParsedFunction, namespace: Namespace, simd_math: bool | None = None) -> str:
    """The backend for `parsed`; `simd_math` is whether NumPy's exp/log are SIMD kernels here
    (default: this CPU, `numpy_has_simd_math`)."""
    if _needs_numpy(parsed.func, namespace, {parsed.name}):
        return "numpy"
    if simd_math is None:
        simd_math = numpy_has_simd_math()
    if simd_math and _simd_math_in_fixed_loop(parsed.func, namespace):
        return "numpy"
    return "numba"


def _simd_math_in_fixed_loop(func: cst.FunctionDef, namespace: Namespace) -> bool:
    if _any(func, namespace, lambda n: isinstance(n, cst.While), set()):
        return False
    for node in _walk(func.body):
        if isinstance(node, cst.For) and _fixed_range(node.iter, namespace) \
                and not any(isinstance(n, cst.Return | cst.Break) for n in _walk(node.body)) \
                and _any(node.body, namespace, lambda n: _is_simd_math(n, namespace), set()):
            return True
    return False


def _fixed_range(node: cst.BaseExpression, namespace: Namespace) -> bool:
    """range(...) of literals and module constants: the same trip count on every lane."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range"):
        return False
    names = [n for a in node.args for n in _walk(a.value) if isinstance(n, cst.Name)]
    return all(namespace.resolve(n.value).kind == "constant" for n in names)


def _is_simd_math(node: cst.CSTNode, namespace: Namespace) -> bool:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
        return not isinstance(node.right, cst.Integer)  # x ** 2 is a multiplication
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return namespace.resolve(node.value.value).kind == "math" and node.attr.value in SIMD_MATH
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        glob = namespace.resolve(node.func.value)
        return glob.kind == "math_func" and glob.name.removeprefix("math.") in SIMD_MATH
    return False


def _any(node: cst.CSTNode, namespace: Namespace, test, seen: set[str]) -> bool:
    """test holds for a node under `node`, or in a same-module function called there."""
    for n in _walk(node):
        if test(n):
            return True
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
            glob = namespace.resolve(n.func.value)
            if glob.kind == "function" and glob.name not in seen:
                seen.add(glob.name)
                callee = _parse(glob)
                if callee is not None and _any(callee.func, namespace, test, seen):
                    return True
    return False


def _parse(glob) -> ParsedFunction | None:
    try:
        return parse_function(function_source(glob))
    except (VectorizeError, OSError, TypeError):
        return None  # the transform reports it; the choice does without


def _needs_numpy(func: cst.FunctionDef, namespace: Namespace, seen: set[str]) -> bool:
    if table_lanes.numpy_only(func, namespace):  # tables the lanes refuse (passes/table_lanes.py)
        return True
    for node in _walk(func):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            kind = namespace.resolve(node.value.value).kind
            if (kind == "math" and node.attr.value in NUMPY_ONLY_MATH) or (kind == "numpy" and node.attr.value in REFUSED):
                return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            glob = namespace.resolve(node.func.value)
            if glob.kind == "math_func" and glob.name.removeprefix("math.") in NUMPY_ONLY_MATH:
                return True
            if glob.kind == "function" and glob.name not in seen:
                seen.add(glob.name)
                callee = _parse(glob)
                if callee is not None and _needs_numpy(callee.func, namespace, seen):
                    return True
    return False


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
