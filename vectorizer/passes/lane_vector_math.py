"""With `vector_math=True` on the Numba backend: lane code's libm calls through lanemath.py.

Before::

    if t_8 > 709.7:
        return (0.0, True)
    norm_cdf_result_1 = _lane_norm_cdf(d2)
    return ((spot * norm_cdf_result - strike * math.exp(t_8) * norm_cdf_result_1), False)

After::

    if t_8 > 709.7:
        return (0.0, True)
    norm_cdf_result_1 = _lane_norm_cdf(d2)
    return ((spot * norm_cdf_result - strike * _vz_lm.exp(t_8) * norm_cdf_result_1), False)

Every call of a function vecmath.py lists (math.exp, math.log, C's pow `_vz_pow`, math.erfc,
math.sin..., and np.cbrt, np.exp2, which lane code calls where Numba has no `math` function) is
renamed, as the NumPy backend's are (passes/vector_math.py), except:

* in the test of a check (`if ...: return (..., True)`): whether a lane is re-run must not move
  with the last bits of a vector function;
* `_vz_pow` by a literal 2, 0.5, 1, 0 or -1 becomes `math.pow`, which LLVM turns into x * x,
  sqrt, 1 / x... (what NumPy's power computes for such exponents, within an ulp of C's pow, and
  it keeps the loop vectorizable).

Only in straight-line lane code (no `while` or `for` in the function or its callees): there the
driver loop runs four lanes at a time, one libmvec call for four. A lane's own loop keeps LLVM
from vectorizing the driver loop, and then each call runs one lane through the 4-lane function,
which costs more than the C library's scalar `exp`, `log` or `pow` (zeta_partial's `k ** s`:
973 against 506-616 ns a lane at 1e6) and less than its `sin` or `erfc`; such code keeps the C
library's functions. Where vector math cannot run (vecmath.unavailable(): no AVX2, no libmvec),
nothing is renamed, after one JitWarning. numba_module.py inlines the lane functions of code
that uses `_vz_lm` into the drivers and imports it.
"""

from __future__ import annotations

import ast
import dataclasses

from ..backends.numba.vecmath import FUNCTIONS
from .base import Context
from .ops_to_lanes import LaneKernels
from .vector_math import cheap_exponent, splice

NAMES = {mvec: arity for mvec, arity, _ in FUNCTIONS.values()}  # math's names are libmvec's
# Lane code calls NumPy's scalar function where Numba has no `math` one (np.exp2; cbrt is `_vz_cbrt`).
NUMPY_NAMES = {numpy_name: mvec for numpy_name, (mvec, _, _) in FUNCTIONS.items()}


def _is_check(node: ast.If) -> bool:
    """`if cond: return (value, True)`: a check that flags the lane."""
    body = node.body
    return len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Tuple) \
        and bool(body[0].value.elts) and isinstance(body[0].value.elts[-1], ast.Constant) \
        and body[0].value.elts[-1].value is True


def _libmvec_name(call: ast.Call) -> str | None:
    """What `math.<fn>(...)`, `np.<fn>(...)` or `_vz_pow(...)` becomes: `_vz_lm.<fn>`, or
    `math.pow` for C's pow by a cheap exponent; None to leave it."""
    fn = call.func
    if isinstance(fn, ast.Name) and fn.id == "_vz_pow" and len(call.args) == 2 and not call.keywords:
        return "math.pow" if cheap_exponent(call.args[1]) else "_vz_lm.pow"
    if isinstance(fn, ast.Name) and fn.id == "_vz_cbrt" and len(call.args) == 1 and not call.keywords:
        return "_vz_lm.cbrt"  # C's cbrt (the exact path) -> libmvec's
    if not (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name)) or call.keywords:
        return None
    name = fn.attr if fn.value.id == "math" else NUMPY_NAMES.get(fn.attr) if fn.value.id == "np" else None
    if name is None or NAMES.get(name) != len(call.args) or (name == "pow" and cheap_exponent(call.args[1])):
        return None
    return f"_vz_lm.{name}"


def _renames(tree: ast.AST) -> list[tuple[int, int, int, str]]:
    """(line, start column, end column in UTF-8 bytes, new text) of each function to rename."""
    found: list[tuple[int, int, int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_check(node):
            for child in node.body + node.orelse:
                visit(child)
            return
        name = _libmvec_name(node) if isinstance(node, ast.Call) else None
        if name is not None:
            fn = node.func
            assert fn.end_lineno == fn.lineno and fn.end_col_offset is not None
            found.append((fn.lineno, fn.col_offset, fn.end_col_offset, name))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def rename(source: str) -> str:
    """One lane function's source with its libm calls through `_vz_lm`."""
    return splice(source, _renames(ast.parse(source)))


def rename_sources(sources: list[str]) -> list[str]:
    """The lane functions with their libm calls through `_vz_lm`; unchanged where one has a loop
    or where vector math cannot run here (then after one `JitWarning`)."""
    trees = [ast.parse(src) for src in sources]
    if any(isinstance(node, ast.While | ast.For) for tree in trees for node in ast.walk(tree)):
        return sources
    from ..backends.numba import jit, vecmath

    why = vecmath.unavailable()
    if why:
        jit.warn_once("vecmath", f"vectorizer: {why}; the C library's functions run instead")
        return sources
    return [splice(src, _renames(tree)) for src, tree in zip(sources, trees)]


def transform(kernels: LaneKernels, ctx: Context) -> LaneKernels:
    if not ctx.options.vector_math:
        return kernels
    return dataclasses.replace(kernels, sources=rename_sources(kernels.sources))
