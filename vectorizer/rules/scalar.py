"""THE op table: each scalar operation, by operand types, to a NumPy expression, a per-lane scalar
expression, and the checks that flag lanes where Python would raise or the result may not be exact.

A rule maps operand types to an `Impl`. Templates use `{0}`, `{1}`, ... for operands and `{r}` for
the result (the lowering binds operands and results to names before using a template twice).

* `expr`   NumPy form, valid on arrays and on NumPy scalars (uniform values).
* `lane`   scalar form for per-lane compiled code; libm-backed `math.*` so it is bit-exact.
* `checks` predicates over operands/result. A lane where one holds is *flagged*: the runtime re-runs
           the original scalar function on it, which raises Python's exact exception or returns the
           exact value (flag and patch). Checks may be conservative, never optimistic.
* `exact`  False for libm-dependent (Class B) functions: NumPy's SIMD kernels may differ from the C
           library by a few ulp (see `ULP_BOUND`); comparisons, + - * /, sqrt, floor... are exact.

Bools in arithmetic are converted to int first (NumPy's `bool + bool` is a logical or).
Adding `math.tanh` is one line in calls.py: `_unary_float("tanh", exact=False)`.

The table is in three modules, re-exported here: base.py (`Impl`, `Check`, bounds), operators.py
(`BINARY`, `UNARY`, `compare`...) and calls.py (`CALLS`, `KEYWORD_CALLS`...).
"""

from __future__ import annotations

from ..core.types import FLOAT, Val
from .base import (
    BIG_INT,
    EXACT_INT,
    EXACT_POW,
    I64_MAX,
    I64_MIN,
    NOT_LIBM_IN_CPYTHON,
    NUM_EXACT_WHY,
    ULP_BOUND,
    Check,
    Impl,
    Rule,
    beyond_exact,
)
from .calls import (
    CALLS,
    KEYWORD_CALLS,
    MATH_CONSTANTS,
    NONNEGATIVE_CALLS,
    SPECIAL_CALLS,
    call_rule,
    float_valued_int,
    unsupported_math,
    without_sign_checks,
    without_unit_checks,
)
from .operators import BINARY, DIVMOD, UNARY, affine_range, compare, truthy

__all__ = [
    "BIG_INT", "BINARY", "CALLS", "DIVMOD", "EXACT_INT", "EXACT_POW", "FLOAT", "I64_MAX", "I64_MIN",
    "KEYWORD_CALLS", "MATH_CONSTANTS", "NONNEGATIVE_CALLS", "NOT_LIBM_IN_CPYTHON", "NUM_EXACT_WHY", "SPECIAL_CALLS",
    "ULP_BOUND", "UNARY", "Check", "Impl", "Rule", "Val", "affine_range", "beyond_exact", "call_rule",
    "compare", "float_valued_int", "truthy", "unsupported_math", "without_sign_checks", "without_unit_checks",
]
