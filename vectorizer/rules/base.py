"""The vocabulary of the scalar op table (scalar.py): `Impl`, `Check`, the int64 and 2**53
bounds its checks test, and the operand conversions every rule shares."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.types import BOOL, NUM, TupleType, Type, Val

# Documented bound for Class B (libm-dependent) functions on the NumPy backend, in ulp per
# operation; tests/rules/test_rules.py measures every such rule against CPython's math module. 5, not
# 4: special.py's erfc is 5 ulp from glibc's on 1 of 800,017 inputs (x = 1.1741338299996613,
# where glibc's own erfc is 1.7 units of 2**-52 above the true value and ours 1.5 below).
ULP_BOUND = 5
# CPython computes these itself instead of calling the C library, and per-lane compiled code (the
# Numba backend) does not compute them CPython's way: relative error bound, measured. None now:
# hypot is CPython's algorithm in lane code (codegen/numba_helpers.py); gamma and lgamma are
# refused by the Numba backend (passes/ops_to_lanes/exprs.py, NOT_CPYTHONS).
NOT_LIBM_IN_CPYTHON: dict[str, float] = {}

I64_MIN = "-9223372036854775808"
I64_MAX = "9223372036854775807"
BIG_INT = "9.2e18"  # |float estimate| at or above this may not fit int64: flag (conservative)
EXACT_INT = "9007199254740992"  # 2**53: ints beyond this may not be exact as float64
# A float estimate of an int power at or above this may be beyond 2**53: 2**53 - 512, a margin
# for the estimate's errors (an int beyond 2**53 rounded down to 2**53 first, pow's few ulp).
EXACT_POW = "9007199254740480"


def beyond_exact(slot: str) -> str:
    """|slot| > 2**53, exactly: an int literal keeps int64 operands in integer comparisons (a float
    bound would round 2**53 + 1 down first), and no np.abs (abs(INT64_MIN) wraps negative)."""
    return f"(({slot} > {EXACT_INT}) | ({slot} < -{EXACT_INT}))"


@dataclass(frozen=True)
class Check:
    pred: str  # over operands {0},{1}... and result {r}; valid on arrays, NumPy and Python scalars
    why: str  # what Python does on such a lane, for readers of the generated code
    # The per-lane (Numba) form when `pred` will not do there: Numba's int + and - are `nsw`
    # (overflow is undefined to LLVM), so a check of the wrapped result can be optimized away.
    lane: str | None = None
    # Holds only for a negative operand {0}: dropped where {0} is known to be >= 0 or NaN
    # (`math.log1p(math.exp(x))`, `math.sqrt(x * x + 1.0)`; see analysis/signs.py).
    negative_only: bool = False
    positive_only: bool = False  # only for a positive {0}: dropped where {0} <= 0 (`math.exp(-x * x)`)
    divisor: bool = False  # holds only where operand {1} is 0: dropped for a counter that never is
    # Holds only for an operand {0} outside [-1, 1]: dropped where it is known inside or NaN
    # (`math.asin(math.sqrt(min(h, 1.0)))`; see analysis/signs.py, within_unit).
    outside_unit: bool = False


@dataclass(frozen=True)
class Impl:
    result: Type | TupleType
    expr: str
    lane: str
    checks: tuple[Check, ...] = ()
    exact: bool = True


Rule = Callable[..., Impl]


def as_int(t: Type, slot: str) -> str:
    """Operand as an int: bools must not reach NumPy's logical-or/not arithmetic."""
    return f"np.int64({slot})" if t is BOOL else slot


def as_float(t: Type, slot: str) -> str:
    """Operand as a float64 (math.* converts ints, and bools must not become float16)."""
    return slot if t.is_floatlike else f"np.float64({slot})"


def lane_int(t: Type, slot: str) -> str:
    return f"int({slot})" if t is BOOL else slot


NUM_EXACT_WHY = "int beyond 2**53 in a mixed int/float value"  # dropped for small ints: analysis/int_bounds.py


def num_exact(result: Type) -> tuple[Check, ...]:
    """NUM results may hold ints: flag int lanes that float64 cannot hold exactly."""
    return (Check(beyond_exact("{r}"), NUM_EXACT_WHY),) if result is NUM else ()


def power_expr(vb: Val, x: str, y: str) -> str:
    """np.power, or runtime.power (`_vz_power`) where the exponent may be 0.5 for every element (a
    float that is not a constant other than 0.5): NumPy's fast path there is not C's pow.
    tests/rules/test_rules.py pins NumPy's other scalar exponents to C's pow."""
    if vb.type.is_intlike or (vb.const is not None and vb.const != 0.5):
        return f"np.power({x}, {y}, dtype=np.float64)"
    return f"_vz_power({x}, {y})"
