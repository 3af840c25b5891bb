"""Zero-divisor checks a comparison on the path rules out (vectorizer/analysis/divisor.py).

The rule (a comparison of a and b that excludes a == b excludes a - b == 0) is checked against
Python's own arithmetic on hostile floats and ints (and int64's wrapped subtraction), then both
backends against the scalar oracle: on functions whose check goes (no flag in the generated code)
and on those where it must stay (the guard's name assigned again, a guard that does not leave, an
int against a float, where Python's exact comparison and rounded subtraction disagree).

PYTEST_DONT_REWRITE: the scalar functions' own messages must not be rewritten.
"""

from __future__ import annotations

import ast
import itertools
import math
import operator

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize
from vectorizer.analysis import divisor, guards

OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
FLOATS = [0.0, -0.0, 5e-324, -5e-324, 1e-308, 2.2250738585072014e-308, 1.0, -1.0, math.nextafter(1.0, 2.0),
          1e308, 1.7976931348623157e308, -1.7976931348623157e308, math.inf, -math.inf, math.nan, 2.0**53]
INTS = [0, 1, -1, 2**53, 2**53 + 1, 2**62, 2**63 - 1, -(2**63), -(2**63) + 1, 3037000499]


def _wrapped(a: int, b: int) -> int:
    return (a - b + 2**63) % 2**64 - 2**63  # int64 subtraction


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("holds", [True, False])
def test_an_excluded_equality_leaves_no_zero_difference(op, holds):
    if not divisor.excludes_equal(op, holds):
        return
    for a, b in itertools.product(FLOATS, repeat=2):
        if OPS[op](a, b) == holds:
            assert a - b != 0.0, (a, op, b, holds)
    for a, b in itertools.product(INTS, repeat=2):
        if OPS[op](a, b) == holds:
            assert a - b != 0 and _wrapped(a, b) != 0, (a, op, b, holds)


def test_which_comparisons_exclude_equality():
    assert [op for op in sorted(OPS) if divisor.excludes_equal(op, True)] == ["!=", "<", ">"]
    assert [op for op in sorted(OPS) if divisor.excludes_equal(op, False)] == ["<=", "==", ">="]
    # the int-float counterexample the kinds rule out: an exact comparison, a rounded subtraction
    assert 2**53 + 1 > 2.0**53 and (2**53 + 1) - 2.0**53 == 0.0


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_path_facts_read_tests_and_forget_assigned_names():
    path = divisor.PathFacts()
    path.facts |= divisor.test_facts(_expr("not (b <= a or x > 1.0)"), True)
    assert path.nonzero(_expr("b - a")) == ("b", "a") and path.nonzero(_expr("a - b")) == ("a", "b")
    path.assigned("t", _expr("b - a"))
    assert path.nonzero(_expr("t")) == ("b", "a")
    assert path.nonzero(_expr("b - c")) is None and path.nonzero(_expr("b + a")) is None
    path.assigned("a", _expr("a * 0.5"))
    assert path.nonzero(_expr("b - a")) is None and path.nonzero(_expr("t")) is None
    assert divisor.test_facts(_expr("b <= a or c > d"), True) == set()  # either may hold
    assert divisor.test_facts(_expr("b < a < c"), True) == set()  # chains are not read


def test_guards_rule_out_a_difference_only_of_the_same_kind():
    def ruled_out(lines: list[str], mask: str, pred: str, same_kind=lambda a, b: True) -> bool:
        g = guards.Guards({}, same_kind)
        for line in lines:
            g.emitted(line)
        return g.ruled_out(mask, pred)

    lines = ["m = edge1 <= edge0", "t_2 = edge1 - edge0"]
    assert ruled_out(lines, "~m", "t_2 == 0")
    assert ruled_out(lines, "~m", "(edge0 - edge1) == 0")
    assert not ruled_out(lines, "m", "t_2 == 0")  # edge1 <= edge0 allows equality
    assert not ruled_out(lines, "~m", "t_2 == 0", lambda a, b: False)  # an int and a float
    assert not ruled_out([*lines, "edge0 = edge0 * 0.5"], "~m", "t_2 == 0")
    assert not ruled_out(lines, "~m", "t_2 < 0")  # only a zero difference is ruled out
    assert ruled_out(["m = a != b", "d = a - b"], "m & c", "d == 0")


def smoothstep(x: float, edge0: float, edge1: float) -> float:
    if edge1 <= edge0:
        return 0.0 if x < edge0 else 1.0
    t = min(max((x - edge0) / (edge1 - edge0), 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def gap_ratio(a: float, b: float) -> float:
    width = b - a
    if not (b > a):
        return -1.0
    return 1.0 / width


def ternary(a: float, b: float) -> float:
    return 1.0 / (b - a) if a != b else 0.0


def int_steps(n: int, k: int) -> int:
    if n == k:
        return 0
    return 1000 // (n - k) + 1000 % (k - n)


def guard_then_reassigned(a: float, b: float) -> float:
    if b <= a:
        return 0.0
    a = a * 0.5 + b * 0.5  # may equal b again
    return 1.0 / (b - a)


def guard_that_stays(a: float, b: float) -> float:
    y = 0.0
    if b <= a:
        y = 1.0  # these lanes go on to the division
    return y + 1.0 / (b - a)


def int_and_float(a: int, b: float) -> float:
    if a <= b:  # exact in Python; the subtraction rounds a first
        return 0.0
    return 1.0 / (a - b)


def _floats(size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    special = np.array(FLOATS[:-1] + [np.nan, 0.5, 2.0])
    return np.where(rng.random(size) < 0.5, rng.choice(special, size), rng.normal(0.0, 2.0, size))


def _source_flags(vf, *args) -> bool:
    vf(*args)
    return "flag" in vf.source


BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_proven_divisor_has_no_check_and_the_same_values(backend):
    a, b, x = _floats(4000, 1), _floats(4000, 2), _floats(4000, 3)
    b[::7] = a[::7]  # equal edges: the other branch
    with np.errstate(over="ignore"):  # nextafter(max float) is inf
        b[1::7] = np.nextafter(a[1::7], np.inf)  # the smallest differences
    for fn, args in ((smoothstep, (x, a, b)), (gap_ratio, (a, b)), (ternary, (a, b))):
        vf = vectorize(fn, backend=backend)
        check(vf, fn, *args)
        assert not _source_flags(vf, *args), vf.source
    n = np.array([0, 1, -1, 5, 2**62, 2**63 - 1, -(2**63), 7, 3], dtype=np.int64)
    k = np.array([0, 2, -1, 4, -(2**62), -(2**63), 2**63 - 1, 7, -3], dtype=np.int64)
    vf = vectorize(int_steps, backend=backend)
    check(vf, int_steps, n, k)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unproven_divisor_keeps_its_check(backend):
    a, b = _floats(4000, 4), _floats(4000, 5)
    for fn in (guard_then_reassigned, guard_that_stays):
        vf = vectorize(fn, backend=backend)
        check(vf, fn, a, b)  # some lane divides by zero: ZeroDivisionError, as the loop
        ok = a < b
        check(vf, fn, a[ok] - 1.0, b[ok])
        assert "flag" in vf.source
    big = np.array([2**53 + 1, 3, 2**53 + 1], dtype=np.int64)
    vf = vectorize(int_and_float, backend=backend)
    with pytest.raises(ZeroDivisionError):
        vf(big, np.array([2.0**53, 1.0, 2.0**53]))
    check(vf, int_and_float, big, np.array([2.0**53, 1.0, 2.0**53]))
    check(vf, int_and_float, big[1:2], np.array([1.0]))
