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

    return ((s * _vz_fast.exp(t_1) - k * _vz_fast.log(s)), False)

After (straight-line, vector math available)::

    return ((s * _vz_lm.exp(t_1) - k * _vz_lm.log(s)), False)

numba_module.py inlines the lane functions of code that uses `_vz_lm` into the drivers and
imports it. With exact=True nothing is marked and this pass changes nothing.
"""

from __future__ import annotations

import ast
import dataclasses

from ..backends.numba.vecmath import FUNCTIONS
from .base import Context
from .ops_to_lanes import LaneKernels
from .vector_math import cheap_exponent

NAMES = {mvec: arity for mvec, arity, _ in FUNCTIONS.values()}  # math's names are libmvec's


def splice(text: str, renames: list[tuple[int, int, int, str]]) -> str:
    """`text` with each (line, start column, end column in UTF-8 bytes, new text) replaced."""
    lines = text.split("\n")
    for line, start, end, new in sorted(renames, reverse=True):
        data = lines[line - 1].encode()
        lines[line - 1] = (data[:start] + new.encode() + data[end:]).decode()
    return "\n".join(lines)


_OTHERWISE = {"pow": "math.pow", "cbrt": "_vz_cbrt", "exp2": "_vz_exp2"}  # else `math.<fn>`


def _renames(tree: ast.AST, vector: bool) -> list[tuple[int, int, int, str]]:
    """(line, start column, end column in UTF-8 bytes, new text) of each `_vz_fast.<fn>`."""
    found: list[tuple[int, int, int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "_vz_fast"):
            continue
        name = node.func.attr
        if vector and name in NAMES and NAMES[name] == len(node.args) and not (name == "pow" and cheap_exponent(node.args[1])):
            new = f"_vz_lm.{name}"
        else:
            new = _OTHERWISE.get(name, f"math.{name}")
        fn = node.func
        assert fn.end_lineno == fn.lineno and fn.end_col_offset is not None
        found.append((fn.lineno, fn.col_offset, fn.end_col_offset, new))
    return found


def rename(source: str, vector: bool) -> str:
    """One lane function's source with its `_vz_fast` calls given their functions."""
    return splice(source, _renames(ast.parse(source), vector))


def vector_math_here(sources: list[str]) -> bool:
    """Vector math can run for these lane functions (see `_vector_math_here`)."""
    return _vector_math_here([ast.parse(src) for src in sources])


def _vector_math_here(trees: list[ast.AST]) -> bool:
    """Straight-line lane code on a machine where vector math runs (after one JitWarning where
    it does not)."""
    if any(isinstance(node, ast.While | ast.For) for tree in trees for node in ast.walk(tree)):
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
    trees = [ast.parse(src) for src in kernels.sources]
    marked = any(_renames(tree, False) for tree in trees)
    vector = marked and ctx.options.vector_math and _vector_math_here(trees)
    sources = [splice(src, _renames(tree, vector)) for src, tree in zip(kernels.sources, trees)]
    return dataclasses.replace(kernels, sources=sources)
