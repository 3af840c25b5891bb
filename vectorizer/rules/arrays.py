"""Batching rules for NumPy calls on per-example arrays: one rule per function, shared families.

A per-example array of shape `s` is stored as `(lanes, *s)` when batched (it differs per lane) and
as `s` when uniform. A rule gives the result type of a call and its batched form::

    elementwise   np.sqrt(x), np.maximum(x, y), np.where(c, x, y), np.clip(x, lo, hi)
                  same call; a batched operand of lower rank is padded after its lane axis
                  (x[:, None]) so broadcasting never pairs the lane axis with an example axis
    reduction     np.sum(x), np.max(x, axis=0), np.argmax(x), np.cumsum(x), np.sort(x)
                  the example axes shift by one: axis=None -> axis=(1, ..., rank); axis=k -> k + 1
    contraction   np.dot, np.matmul / @, np.inner (1-d and 2-d), np.outer (1-d), np.linalg.norm
                  np.vecdot / np.matmul over the stack of lanes; np.outer is a broadcast product
    constructor   np.zeros(n), np.ones, np.empty, np.full, np.arange, np.zeros_like, np.full_like...
                  sizes must be the same for every lane; the result is a fresh array, uniform
                  unless its fill value is per-lane

What the contractions guarantee (measured against per-example calls: tests/faces/test_vmap_rules.py,
and the exact cases of tests/faces/test_vmap.py):

* `np.outer` is `a[:, :, None] * b[:, None, :]`: the very products NumPy computes, exact.
* `np.dot`, `np.matmul` / `@`, `np.inner` and `np.linalg.norm` (sqrt of x.ravel() dot itself,
  in float64, as NumPy computes it) run as ONE `np.vecdot` or `np.matmul` over the stack of
  lanes. NumPy evaluates that stack lane by lane with the BLAS call (ddot, dgemv, dgemm, dsyrk)
  its per-example call makes, so each lane's result is bit-identical to the scalar function's
  when the lane's operands have the strides the per-example arrays have. Parameters are made
  C-contiguous first, as each lane's own array is in the scalar function (a C-contiguous copy);
  a view taken in the function (a row, `a.T`) then has per lane the strides of the same view of
  one example. Where that fails (a view of a parameter the caller mapped over a non-leading
  axis, say), BLAS may take another kernel: the results then agree to rounding error (a
  reordered sum), not bit for bit. `np.einsum` would not do: its sums are reordered (other bits
  on 20-85% of lanes) and start at +0.0.
* The sign of zero is NumPy's: BLAS sums start at +0.0 (an all -0.0 sum is +0.0), and a
  `np.dot` / `np.inner` of two one-element operands is NumPy's exact product (it keeps -0.0).
* Integer and bool products are exact (int64 wraps as NumPy's does); an int or bool operand of
  a float product is converted to float64 first, as NumPy's dot converts it.

Values read out of arrays are NumPy scalars in the scalar function, so their arithmetic has
NumPy's semantics (integers wrap, float division by zero gives inf): the lowering emits plain
operators for them, without Python's checks.

NumPy values of numbers (np.asarray(x), np.float64(x): code written for scalars and arrays
alike) are array_numbers.py's. The families are in array_elementwise.py, array_contractions.py
and array_constructors.py, over array_base.py; this module holds the table and re-exports what the passes use.
"""

from __future__ import annotations

from .array_base import Arg, ArrayRule, arity, broadcast_shapes, pad
from .array_constructors import constructor, copy, like
from .array_contractions import norm, outer, product
from .array_elementwise import elementwise, reduction, where
from .array_number_calls import TUPLE_CALLS, around, broadcast_arrays, modf
from .array_numbers import as_array, float64, int64
from .array_one_d import astype, atleast_1d, isscalar, item

__all__ = ["ARRAY_CALLS", "METHODS", "METHOD_ONLY", "NUMPY_CONSTANTS", "TUPLE_CALLS", "Arg", "ArrayRule", "arity", "broadcast_shapes", "pad"]

_FLOAT_UFUNCS = ["sqrt", "exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                 "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "deg2rad",
                 "rad2deg", "degrees", "radians", "floor", "ceil", "trunc", "rint"]

ARRAY_CALLS: dict[str, ArrayRule] = {
    **{f"np.{n}": elementwise(n) for n in _FLOAT_UFUNCS},
    **{f"np.{n}": elementwise(n, "same") for n in ("abs", "absolute", "negative", "square", "sign")},
    **{f"np.{n}": elementwise(n, "bool") for n in ("isnan", "isinf", "isfinite", "signbit", "logical_not")},
    **{f"np.{n}": elementwise(n, "bool", 2) for n in ("logical_and", "logical_or", "logical_xor")},
    **{f"np.{n}": elementwise(n, "promote", 2) for n in ("maximum", "minimum", "fmax", "fmin", "add", "subtract",
                                                          "multiply", "fmod", "remainder", "mod", "power")},
    **{f"np.{n}": elementwise(n, "float", 2) for n in ("divide", "true_divide", "arctan2", "hypot", "copysign")},
    "np.clip": elementwise("clip", "promote", 3),
    "np.where": where(),
    **{f"np.{n}": reduction(n, "same") for n in ("sum", "prod", "cumsum")},
    **{f"np.{n}": reduction(n, "keep") for n in ("min", "max", "amin", "amax", "sort")},
    "np.mean": reduction("mean", "float"),
    **{f"np.{n}": reduction(n, "int") for n in ("argmin", "argmax")},
    **{f"np.{n}": reduction(n, "bool") for n in ("any", "all")},
    **{f"np.{n}": product(n) for n in ("dot", "matmul", "inner")},
    "np.outer": outer(),
    "np.linalg.norm": norm(),
    **{f"np.{n}": constructor(n) for n in ("zeros", "ones", "empty", "full", "arange")},
    **{f"np.{n}": like(n) for n in ("zeros_like", "ones_like", "empty_like", "full_like")},
    "np.copy": copy(),
    **{f"np.{n}": as_array(n) for n in ("array", "asarray", "asanyarray")},
    "np.float64": float64(),
    "np.int64": int64(),  # of an int (np.int64(x) is np.int64(int(x)): frontend/astype_calls.py)
    "np.atleast_1d": atleast_1d(),
    "np.isscalar": isscalar(),
    **{f"np.{n}": around(n) for n in ("around", "round")},
    "np.modf": modf(),  # a tuple
    "np.broadcast_arrays": broadcast_arrays(),  # a tuple
    "np.item": item(),  # x.item() (a method only)
    "np.astype": astype(),  # x.astype(dtype) (NumPy 2.1's np.astype too)
}

# Rules reached only as methods (x.item()): np.item does not exist, np.astype of a number raises.
METHOD_ONLY = frozenset({"np.item", "np.astype"})
# Array methods that are the same as a NumPy function of the array: x.sum() is np.sum(x).
METHODS = {"sum", "mean", "prod", "min", "max", "argmin", "argmax", "any", "all", "cumsum", "copy", "dot", "item", "astype"}
NUMPY_CONSTANTS = {"pi": 3.141592653589793, "e": 2.718281828459045, "inf": float("inf"), "nan": float("nan")}
