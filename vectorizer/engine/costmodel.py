"""`backend="auto"`, the default: which route runs a function, decided from the code, the argument
kinds and shapes, the options and the machine, never from a timing: the same call takes the same
route in every process. Each answer is a `Route`, the backend's name with the reason (`.why`),
which `.backend` and the explain report show.

With `exact=True` (the default) both routes give CPython's bits, and Numba's lane kernels are the
faster one on every shape of code the benchmark measures: one compiled pass over the lanes,
branches evaluated only where taken, loops that stop per lane, and the same libm calls the exact
NumPy route makes through its compiled loops, without its extra passes over memory
(docs/runs/2026-12-05-exact-default.md). So:

* NumPy where the lane code cannot compute the function: per-example arrays (api.py), math.gamma
  and math.lgamma (CPython's own algorithms), NumPy functions on numbers that lane code computes
  with NumPy's own loop one number at a time (np.power always; on a CPU where NumPy runs AVX-512
  kernels, np.exp, np.log, np.sin, np.tanh... too: `NUMPY_SIMD_FUNCTIONS`): NumPy's SIMD kernels
  take ~1-3 ns a lane on whole arrays, one call for one number ~40-80 ns (backends/numba/
  ufunclane.py), or where lane code cannot call that loop, refuses them (passes/ops_to_lanes/
  numpy_calls.py), and uniform tables
  used other than in np.sum / np.prod (passes/table_lanes.py), in the function or a callee;
* Numba otherwise (Numba not installed: NumPy, kernels.resolve_backend).

With `exact=False` NumPy's AVX-512 SIMD exp/log/pow (~1-2 ns a lane where libm takes ~10-20)
can pay for the NumPy route's passes over memory: where they repeat in a `for` loop over a
`range` of literals and module constants that never leaves early, in a function without
`while`, on a CPU with those kernels (`numpy_has_simd_math`), measured at 2 threads:
simpson_gauss 61 vs 93 ns a lane at 1e6, zeta_partial 320 vs 368. But the routes scale
differently with cores: Numba's lanes are compute-bound and scale with the threads, the NumPy
route's passes share the memory bus. So NumPy takes such a loop only up to
`SIMD_LOOP_MAX_THREADS` threads (`chunks.threads()`: VECTORIZER_THREADS, else the CPU count).
"""

from __future__ import annotations

import libcst as cst

from ..backends.numba import ufuncloops
from ..errors import VectorizeError
from ..frontend.namespace import Namespace, function_source
from ..frontend.parse import ParsedFunction, parse_function
from ..passes import table_lanes
from ..passes.ops_to_lanes.numpy_calls import (
    REFUSED,  # NumPy functions on numbers the Numba backend refuses
)
from . import chunks
from .kernels import Route

NUMPY_ONLY_MATH = frozenset({"gamma", "lgamma"})  # refused by the Numba backend (CPython's own algorithms)


# NumPy's float64 SIMD kernels (AVX-512): ~1-5 ns an element where libm takes ~10-20.
SIMD_MATH = frozenset({"exp", "expm1", "log", "log1p", "log2", "log10", "pow"})
# NumPy's functions on numbers that its AVX-512 kernels compute with other last bits than the C
# library lane code calls (scripts/measure_ulps.py): the value of `np.exp(x)` in the user's code is
# NumPy's, so on such a CPU only the NumPy route gives it.
NUMPY_SIMD_FUNCTIONS = frozenset({
    "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt"})
# exact=False: NumPy's SIMD math in a fixed loop runs on the NumPy route up to this many threads.
SIMD_LOOP_MAX_THREADS = 4


def numpy_has_simd_math() -> bool:
    """NumPy runs float64 exp/log/pow as AVX-512 SIMD kernels on this CPU. Without AVX-512 (an
    AVX2 machine, measured: zeta_partial 622 vs 494 ns a lane at 1e6, simpson_gauss 152 vs 118)
    it calls scalar libm like Numba does, and the rule below does not hold."""
    return chunks.simd_math()


def choose(parsed: ParsedFunction, namespace: Namespace, exact: bool = True, threads: int | None = None,
           simd_math: bool | None = None) -> Route:
    """The route for `parsed` (a function of numbers); `threads` and `simd_math` describe the
    machine (default: this one, `chunks.threads()` and `numpy_has_simd_math`)."""
    simd_math = numpy_has_simd_math() if simd_math is None else simd_math
    needs = _needs_numpy(parsed.func, namespace, {parsed.name}, simd_math)
    if needs is not None:
        return Route("numpy", needs)
    if not exact:
        if simd_math and _simd_math_in_fixed_loop(parsed.func, namespace):
            threads = chunks.threads() if threads is None else threads
            if threads <= SIMD_LOOP_MAX_THREADS:
                return Route("numpy", f"exact=False: NumPy's SIMD exp/log/pow in a loop of fixed trip count, "
                                      f"on {threads} thread{'s' if threads > 1 else ''} (up to {SIMD_LOOP_MAX_THREADS})")
            return Route("numba", f"exact=False, SIMD math in a fixed loop, but {threads} threads: Numba's lanes "
                                  "scale with them, the NumPy route's passes share the memory bus")
        return Route("numba", "exact=False: Numba lane kernel, one compiled pass")
    return Route("numba", "Numba lane kernel: one compiled pass, CPython's bits")


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


def _needs_numpy(func: cst.FunctionDef, namespace: Namespace, seen: set[str], simd_math: bool) -> str | None:
    """Why lane code cannot compute `func` (or a callee) here, or None."""
    if table_lanes.numpy_only(func, namespace):  # tables the lanes refuse (passes/table_lanes.py)
        return "a uniform table used other than in np.sum / np.prod: the NumPy route"
    for node in _walk(func):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            kind = namespace.resolve(node.value.value).kind
            if kind == "math" and node.attr.value in NUMPY_ONLY_MATH:
                return f"math.{node.attr.value} is CPython's own algorithm, which lane code does not have: the NumPy route"
            if kind == "numpy" and (node.attr.value in REFUSED or simd_math and node.attr.value in NUMPY_SIMD_FUNCTIONS):
                return f"np.{node.attr.value} on numbers: {_lane_numpy(node.attr.value)}: the NumPy route"
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            glob = namespace.resolve(node.func.value)
            if glob.kind == "math_func" and glob.name.removeprefix("math.") in NUMPY_ONLY_MATH:
                return f"{glob.name} is CPython's own algorithm, which lane code does not have: the NumPy route"
            if glob.kind == "function" and glob.name not in seen:
                seen.add(glob.name)
                callee = _parse(glob)
                found = _needs_numpy(callee.func, namespace, seen, simd_math) if callee is not None else None
                if found is not None:
                    return found
    return None


def _lane_numpy(name: str) -> str:
    """What lane code does with `np.<name>` of numbers where NumPy runs its own kernel."""
    why = ufuncloops.unavailable(name)
    if why:
        return f"lane code cannot give NumPy's values ({why})"
    return ("NumPy's own kernel, which the NumPy route runs on whole arrays (~1-3 ns a lane on AVX-512) and lane "
            "code one number a call (~40-80 ns)")


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
