"""passes/if_convert_lanes.py: branchy lane functions of cheap, trap-free operations become
straight-line code with selects (so that LLVM vectorizes the driver's loop over lanes); the
values, flags and exceptions stay the scalar function's, lane by lane."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import quadratic_roots
from oracle import check
from passcase import F, I, after

from vectorizer import vectorize

HOSTILE = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-310, -1e-310, 5e-324, 1e300, -1e300, 1.7976931348623157e308,
           math.inf, -math.inf, math.nan, 2.0**53, -(2.0**53) - 2.0, 1e-20]


def clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def ramp(x: float, lo: float, hi: float) -> float:
    if hi <= lo:
        return 0.0 if x < lo else 1.0
    t = clamp((x - lo) / (hi - lo), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def inverse(x: float) -> float:
    return 1.0 / x  # its lane function flags x == 0 (a check: converted, then straight-line)


def uses_inverse(x: float, y: float) -> float:
    if x > y:
        return inverse(x - y) * 2.0  # the callee's flag, unpacked, decides the lane's
    return y - x


def merged(x: float, y: float) -> float:
    s = 1.0
    if x > y:
        s = -1.0
        y = y * 2.0
    elif x == y:
        y = 0.5
    return s * (x - y) / y


def checked_div(x: float, y: float) -> float:
    if x > 1.0:
        return x / y  # ZeroDivisionError on its lanes only
    return y - x


def int_wrap(n: int, m: int) -> int:
    if n > 0:
        return n * m + 1  # an int beyond int64: the lane is refused (OverflowError)
    return m - n


def two_results(x: float, y: float) -> tuple[float, float]:
    if x < 0.0:
        return y, x
    return x + y, x * y


def with_libm(x: float) -> float:
    if x > 0.0:
        return math.exp(x)
    return x


def looped(x: float, n: int) -> float:
    if x > 0.0:
        for _ in range(n):
            x = x * 0.5
    return x


def floor_div(x: float, y: float) -> float:
    if y != 0.0:
        return x // y
    return x


def some_paths_return(x: float) -> float:
    y = x
    if x > 0.0:
        if x > 1.0:
            return 1.0
        y = x * 2.0
    return y + 1.0


def checked_branch(x: float, n: int) -> float:
    y = 0
    if x > 0.0:
        y = x
    else:
        y = n * n  # checks inside a side: the statements after the `if` are copied into both
    return y * n


def lane_text(f, **params) -> str:
    return after("if_convert_lanes", f, lanes=True, **params)


def main_lane(text: str, name: str) -> ast.FunctionDef:
    return next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == f"_lane_{name}")


@pytest.mark.parametrize("f", [quadratic_roots, merged, checked_div, two_results, some_paths_return, checked_branch])
def test_converted_functions_have_no_branches(f):
    text = lane_text(f, **{p: I if p == "n" else F for p in f.__code__.co_varnames[: f.__code__.co_argcount]})
    assert not any(isinstance(n, ast.If) for n in ast.walk(main_lane(text, f.__name__))), text


@pytest.mark.parametrize("f", [ramp, uses_inverse])
def test_a_straight_callee_is_called_on_every_lane(f):
    text = lane_text(f, x=F, lo=F, hi=F) if f is ramp else lane_text(f, x=F, y=F)
    assert not any(isinstance(n, ast.If) for n in ast.walk(main_lane(text, f.__name__))), text


@pytest.mark.parametrize("f, params", [(with_libm, {"x": F}), (looped, {"x": F, "n": I}), (floor_div, {"x": F, "y": F})])
def test_costly_or_trapping_functions_keep_their_branches(f, params):
    """A C library call (computing it on every lane costs more than SIMD saves, and LLVM calls it
    one lane at a time), a loop, `//` (an int `//` by zero traps)."""
    assert lane_text(f, **params) == after("lane_vector_math", f, lanes=True, **params)


def test_the_work_bound_keeps_a_function_whose_sides_are_costly():
    def piecewise(x: float) -> float:
        if x < 1.0:
            return x * x * x * x * x * x * x * x * x * x * x * x
        if x < 2.0:
            return x + x + x + x + x + x + x + x + x + x + x + x
        if x < 3.0:
            return x - x - x - x - x - x - x - x - x - x - x - x
        if x < 4.0:
            return x * 2.0 * x * 2.0 * x * 2.0 * x * 2.0 * x * 2.0 * x
        if x < 5.0:
            return x * 3.0 * x * 3.0 * x * 3.0 * x * 3.0 * x * 3.0 * x
        return x * 4.0 * x * 4.0 * x * 4.0 * x * 4.0 * x * 4.0 * x

    # the longest path: 5 tests and 11 operations; all sides: 5 tests and 66 operations
    assert lane_text(piecewise, x=F) == after("lane_vector_math", piecewise, lanes=True, x=F)


FLOATS = np.array(HOSTILE)


def raises(f, lane: tuple) -> bool:
    """Whether the lane raises, or returns an int beyond int64 (which the batched call refuses)."""
    try:
        value = f(*lane)
    except ArithmeticError:
        return True
    return isinstance(value, int) and not -(2**63) <= value < 2**63


def check_values_and_exceptions(f, *args: np.ndarray) -> None:
    """The first failing lane's exception on all lanes, then every value on the lanes that do not
    raise (a batch that raises shows no value)."""
    vf = vectorize(f, backend="numba", fallback="error")
    check(vf, f, *args)
    clean = np.array([not raises(f, lane) for lane in zip(*[a.tolist() for a in args])], dtype=bool)
    check(vf, f, *[a[clean] for a in args])


@pytest.mark.numba
@pytest.mark.parametrize("f", [quadratic_roots, ramp, merged, checked_div, two_results, some_paths_return, uses_inverse])
def test_values_and_exceptions_are_the_loops_on_hostile_floats(f):
    n = f.__code__.co_argcount
    grids = np.meshgrid(*([FLOATS] * n), indexing="ij")
    check_values_and_exceptions(f, *[g.ravel() for g in grids])


@pytest.mark.numba
def test_int_lanes_that_overflow_are_refused_as_the_loop_refuses_them():
    ints = np.array([0, 1, -1, 7, -9, 2**31, 2**62, -(2**62), 2**63 - 1, -(2**63)], dtype=np.int64)
    n, m = (g.ravel() for g in np.meshgrid(ints, ints, indexing="ij"))
    check_values_and_exceptions(int_wrap, n, m)
    x, n = (g.ravel() for g in np.meshgrid(FLOATS, ints, indexing="ij"))
    check_values_and_exceptions(checked_branch, x, n)


@pytest.mark.numba
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*[st.one_of(st.floats(), st.sampled_from(HOSTILE))] * 3), min_size=1, max_size=40))
def test_quadratic_roots_and_ramp_match_the_loop_on_any_floats(rows):
    a, b, c = (np.array(col, dtype=np.float64) for col in zip(*rows))
    check_values_and_exceptions(quadratic_roots, a, b, c)
    check_values_and_exceptions(ramp, a, b, c)


def test_copies_of_what_follows_checks_in_sides_are_bounded():
    """Each `if` whose side holds a check copies the statements after it into its sides: twenty in
    a row would copy them 2**20 times. Past twice the function's size the function keeps its
    branches."""
    from vectorizer.passes.if_convert_lanes import convert

    lines = ["def _lane_cascade(x, n):", "    y = x"]
    for k in range(20):
        lines += [f"    if x > {k}.0:", f"        if n > {k}:", "            return (0.0, True)", "        y = y + 1.0"]
    lines += ["    return (y, False)"]
    func = ast.parse("\n".join(lines)).body[0]
    assert convert(func) is None
    two = ast.parse("\n".join(lines[:10] + lines[-1:])).body[0]  # two such ifs: converted
    assert not any(isinstance(n, ast.If) for n in ast.walk(convert(two)))
