"""With `exact=False` on the Numba backend: the libm calls ops_to_lanes marked approximate.

ops_to_lanes writes a transcendental call whose value decides nothing (no int, bool, branch,
trip count or exception: analysis/decisions.py) as `_vz_fast.<fn>(...)` with exact=False; this
pass gives each one its function:

* glibc's 4-lane vector math through lanemath.py (`_vz_lm.<fn>`), in straight-line lane code
  (no `while` or `for` in the function or its callees: there the driver loop runs four lanes at
  a time, one libmvec call for four; a lane's own loop keeps LLVM from vectorizing the driver
  loop, and then each call runs one lane through the 4-lane function, which costs more than the
  C library's scalar `exp`, `log` or `pow`: zeta_partial's `k ** s`, 973 against 506-616 ns a
  lane at 1e6), where vector math runs (vecmath.unavailable(): AVX2, libmvec) and `vector_math`;
* else the C library's (`math.<fn>`), and LLVM's pow (`math.pow`), which LLVM simplifies: x * x
  for `x ** 2`, exp2 for `2.0 ** x`... (exact=True keeps C's pow through a name LLVM does not
  know: codegen/numba_helpers.py); a literal exponent of 2, 0.5, 1, 0 or -1 takes LLVM's pow in
  vector code too (what NumPy's power computes for such exponents, within an ulp of C's pow).

Before::

    return (s * _vz_fast.exp(t_1) - k * _vz_fast.log(s), False)

After (straight-line, vector math available)::

    return (s * _vz_lm.exp(t_1) - k * _vz_lm.log(s), False)

A tree transform: each marked call's function node is replaced (the lane functions are
`ast.FunctionDef` trees, ops_to_lanes/__init__.py). numba_module.py inlines the lane functions of code that uses `_vz_lm` into the drivers and
imports it. With exact=True nothing is marked and this pass changes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ..backends.numba.vecmath import FUNCTIONS
from ..core.lanenodes import dotted
from .base import Context
from .ops_to_lanes import LaneKernels
from .vector_math import cheap_exponent

NAMES = {mvec: arity for mvec, arity, _ in FUNCTIONS.values()}  # math's names are libmvec's
_OTHERWISE = {"pow": "math.pow", "cbrt": "_vz_cbrt", "exp2": "_vz_exp2"}  # else `math.<fn>`


def marked(tree: ast.AST) -> list[ast.Call]:
    """The calls `_vz_fast.<fn>(...)` of a tree."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "_vz_fast"]


def rename(func: ast.AST, vector: bool) -> None:
    """Give each `_vz_fast` call of a lane function its function, in place."""
    for node in marked(func):
        name = node.func.attr  # type: ignore[attr-defined]
        if vector and name in NAMES and NAMES[name] == len(node.args) and not (name == "pow" and cheap_exponent(node.args[1])):
            node.func = dotted(f"_vz_lm.{name}")
        else:
            node.func = dotted(_OTHERWISE.get(name, f"math.{name}"))


def vector_math_here(functions: Iterable[ast.AST]) -> bool:
    """Straight-line lane code on a machine where vector math runs (after one JitWarning where
    it does not)."""
    if any(isinstance(node, ast.While | ast.For) for tree in functions for node in ast.walk(tree)):
        return False
    from ..backends.numba import jit, vecmath

    why = vecmath.unavailable()
    if why:
        jit.warn_once("vecmath", f"vectorizer: {why}; the C library's functions run instead")
        return False
    return True


def transform(kernels: LaneKernels, ctx: Context) -> LaneKernels:
    if ctx.options.exact:
        return kernels
    functions = kernels.functions
    vector = any(marked(f) for f in functions) and ctx.options.vector_math and vector_math_here(functions)
    for f in functions:
        rename(f, vector)
    return kernels
