"""frontend/kind_points.py: a kind check of a parameter (`isinstance(n, int)`, `type(n) is float`)
is decided where no assignment to it may have run yet: before the first one, in the test of the
`if` whose branch assigns it, in a branch the assigning one is not. Differential against the
scalar function lane by lane on both backends (hostile floats, ints near 2**63); a check where an
assignment may have run (after the `if`, in a loop that assigns it, in a handler) is refused."""

from __future__ import annotations

import math

import libcst as cst
import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize
from vectorizer.core.tree import walk
from vectorizer.frontend.kind_points import reassigned_at

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000], dtype=np.int64)


def before_the_first_assignment(x, n):
    if not isinstance(n, int):
        raise TypeError("n must be an int")
    n = n % 7
    return x * n


def in_the_test_of_the_assigning_branch(s, v):
    v = abs(v)
    if isinstance(s, complex) or v > 1e300:
        s = 1.0
    return v / s if s != 0 else -v


def in_the_branch_that_does_not_assign(x, n):
    if x > 0:
        n = 0
    elif isinstance(n, float):
        return x - n
    else:
        n = n + 1
    return x + n


def in_a_loop_that_does_not_assign_it(x, n):
    t = 0.0
    while t < 3 and type(n) is int:
        t += 1.0
    return x + t


def on_the_same_line_before_the_assignment(x, n):
    k = 1 if isinstance(n, bool) else 2; n = n * k  # noqa: E702
    return x + n


def in_a_handler(x, n):
    """A handler runs in the scalar function, on the lanes that reach it (frontend/try_blocks.py)."""
    try:
        n = 1 / x
    except ZeroDivisionError:
        if isinstance(n, int):
            return 0.0
    return n


CASES = [before_the_first_assignment, in_the_test_of_the_assigning_branch, in_the_branch_that_does_not_assign,
         in_a_loop_that_does_not_assign_it, on_the_same_line_before_the_assignment, in_a_handler]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("second", ["ints", "floats", "bools"])
def test_a_check_before_any_assignment_is_decided(f, second, backend) -> None:
    other = {"ints": INTS, "floats": FLOATS, "bools": np.array([True, False] * 16)}[second]
    x = np.resize(FLOATS, other.shape)
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, x, other)
    check(vf, f, x[::-1], other[::3][0])  # a scalar second argument


def after_the_assigning_branch(x, n):
    if x > 0:
        n = 0.5
    return x + 1 if isinstance(n, int) else x


def in_a_loop_that_assigns_it(x, n):
    for _ in range(2):
        if isinstance(n, int):
            n = n / 2
    return x + n


@pytest.mark.parametrize("f", [after_the_assigning_branch, in_a_loop_that_assigns_it], ids=lambda f: f.__name__)
def test_a_check_after_an_assignment_may_have_run_is_refused(f) -> None:
    with pytest.raises(VectorizeError, match="'n' may be assigned before this point"):
        vectorize(f, fallback="error")(FLOATS[:4], np.array([1, 2, 3, 4]))
    with pytest.warns(Warning, match="'n' may be assigned before this point"):  # the loop's values, by default
        check(vectorize(f), f, FLOATS[:4], np.array([1, 2, 3, 4]))


def complex_branch(s, v, pf=None):
    v = abs(v)
    if isinstance(s, complex) or pf is not None:
        z = v * v / (s.real + 1j * s.imag)
        return z.conjugate().real
    return v * v / s


def str_branch(rho, freq=60):
    if isinstance(rho, str):
        rho = rho.upper()
        rho = {"SEA": 0.01, "DRY": 1000.0}[rho]
    return 0.5 * math.sqrt(rho / freq) if rho >= 0 else -rho


def array_branch(lat, lon):
    if isinstance(lat, np.ndarray):
        lat = lat.flat[0]
    if isinstance(lon, np.ndarray):
        lon = lon.flat[0]
    lon = (lon % 360 + 540) % 360 - 180
    return int((lon + 180) / 6) + 1 if 56 <= lat < 64 else 0


def int_branch(x, n):
    if isinstance(n, int):
        n = [n, n]
        return x + n[0]
    return x * n


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [complex_branch, str_branch, array_branch], ids=lambda f: f.__name__)
def test_a_branch_a_kind_check_rules_out_is_dropped(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    x = np.resize(FLOATS, 40)
    check(vf, f, x, x[::-1])
    check(vf, f, np.resize(INTS, 40), np.resize(INTS, 40)[::-1])
    if f is array_branch:
        check(vf, f, np.linspace(50, 70, 40), np.linspace(-400.0, 400.0, 40))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_branch_a_kind_check_keeps_is_fenced(backend) -> None:
    vf = vectorize(int_branch, fallback="error", backend=backend)
    check(vf, int_branch, FLOATS, 2.5)  # a float n: the branch with the list is dropped
    with pytest.raises(VectorizeError, match="lists are not supported"):
        vf(FLOATS, 2)  # an int n takes it: refused when called, by the strict fence


def _points(source: str) -> dict[str, frozenset[str]]:
    func = cst.parse_module(source).body[0]
    found = reassigned_at(func)  # type: ignore[arg-type]
    return {cst.Module([]).code_for_node(n): found[n] for n in walk(func) if isinstance(n, cst.Call)}


def test_what_may_be_assigned_at_each_call() -> None:
    points = _points(
        "def f(a, b, c):\n"
        "    a = g(a)\n"
        "    if h(b):\n"
        "        b = 1\n"
        "    else:\n"
        "        k(b)\n"
        "    while w(c):\n"
        "        c = c - 1\n"
        "    return m([y for y in range(3)])\n")
    assert points["g(a)"] == frozenset()
    assert points["h(b)"] == {"a"}
    assert points["k(b)"] == {"a"}
    assert points["w(c)"] == {"a", "b", "c"}
    assert points["m([y for y in range(3)])"] == {"a", "b", "c", "y"}
