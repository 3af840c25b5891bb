"""NumPy's elementwise arithmetic on one element of a uniform table (core/tables.py) and its
reductions, for code that computes a table expression element by element (the Numba lanes:
passes/ops_to_lanes/tables.py). The array code (NumPy backend) calls NumPy itself.

    op    operands (after NumPy 2's promotion)       one element                 why exact
    + - * float64                                   float(a) op float(b)        IEEE, after the cast NumPy makes
    + - * int64                                     a op b                      int64 wraps in both
    /     any                                       float(a) / float(b)         true_divide casts to float64
    **    float64, array exponent                   _vz_ufunc_stepped_power     NumPy's own float64 power loop,
                                                    (a, b)                      called as on arrays (every step 8:
                                                                                no shortcut for an exponent of 2)
    sum   float64: 0.0 + pairwise_sum (codegen/numba_tables.py); int64: any order
    prod  sequential from 1.0 (1): NumPy's multiply reduction is a plain loop

A Python number is a weak scalar (NEP 50): it takes the array's type unless it is a float with an
int array (then float64). Refused, with the reason: bools (NumPy's bool arithmetic is logical),
an int power (NumPy wraps and raises for negative exponents), `array ** number` (NumPy's
shortcuts for scalar exponents: x * x for 2, sqrt for 0.5, 1 / x for -1), other operators, and
`**` where NumPy's power loop cannot be called from lane code here (`power_loop` says why) and
NumPy's power is not the C library's pow on this CPU (where it is: `_vz_libm_pow(a, b)`).
"""

from __future__ import annotations

from ..core.numpy_kernels import differs_from_libm
from ..core.types import BOOL, FLOAT, INT, Type

REDUCTIONS = {"sum": ("+", "0"), "prod": ("*", "1")}  # name -> (operator, start)


def pairwise_sum(array: str, lo: int, n: int) -> str:
    """NumPy's pairwise_sum of array[lo:lo + n] as an expression: above 128 elements its two
    halves (the first a multiple of 8 long) added, each again split, down to blocks of at most
    128 summed by `_vz_pairwise_sum` (codegen/numba_tables.py). The recursion is unrolled here,
    where n is known: Numba's on-disk cache cannot hold a recursive function (it crashed on
    loading one: numba/numba#6061)."""
    if n <= 128:
        return f"_vz_pairwise_sum({array}, {lo}, {n})"
    half = n // 2
    half -= half % 8
    return f"({pairwise_sum(array, lo, half)} + {pairwise_sum(array, lo + half, n - half)})"


def element_op(op: str, left: Type, right: Type, right_weak: bool, power_loop: str) -> tuple[str, Type] | str:
    """(template over {0} and {1}, result type) of one element of `left op right`, or why not;
    `power_loop`: why NumPy's power loop cannot be called with array steps here ("" if it can)."""
    if BOOL in (left, right):
        return "bool array arithmetic"
    result = FLOAT if FLOAT in (left, right) else INT

    def floats(template: str) -> str:  # ints cast to float64, as NumPy's loops do
        a, b = ("{0}" if left is FLOAT else "float({0})"), ("{1}" if right is FLOAT else "float({1})")
        return template.format(a, b)

    if op == "/":
        return floats("({} / {})"), FLOAT
    if op == "**":
        if result is not FLOAT:
            return "an int power of an int array (NumPy's int power wraps and raises for negative exponents)"
        if right_weak:
            return "array ** number (NumPy takes shortcuts for some scalar exponents: x * x for 2, sqrt for 0.5)"
        if not power_loop:  # element k of an array exponent: its step is 8, even for one element
            return floats("_vz_ufunc_stepped_power({}, {})"), FLOAT
        if differs_from_libm("power"):
            return ("array ** array (NumPy's own power kernel on this CPU gives other last bits than C's pow, and "
                    f"its loop cannot be called from lane code here: {power_loop})")
        return floats("_vz_libm_pow({}, {})"), FLOAT
    if op not in ("+", "-", "*"):
        return f"the operator {op!r} on arrays"
    return (floats(f"({{}} {op} {{}})") if result is FLOAT else f"({{0}} {op} {{1}})"), result
