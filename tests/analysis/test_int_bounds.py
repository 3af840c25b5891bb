"""analysis/int_bounds.py: a `+ - *` of mixed int/float values whose ints are bounded within
2**53 needs no check (a float lane beyond 2**53 is no longer re-run), and every other keeps it. Both backends against the scalar function lane by lane, values and exceptions, on
hostile inputs; the NumPy source says which products are checked."""

from __future__ import annotations

import math

import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check

from vectorizer import vectorize
from vectorizer.analysis import int_bounds
from vectorizer.analysis.facts import Facts

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
CHECK = "9007199254740992"  # the 2**53 bound of a NUM value's check (rules/base.py EXACT_INT)

FLOATS = np.array([1.0, 2.5, -0.0, 0.0, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 1e308, -1e308, 3.0,
                   -2.0, 1e10, -3e15, 9007199254740993.0, 1e200, 0.3, -7.25, 1e-300])
STEPS = np.array([0, 1, 2, 3, 5, 8, 13, 4, 6, 7, 9, 12, 2, 11, 10, 3, 6, 20, 1, 5])


def damped(s, steps):
    """A float step reset to the int 0 when it changes sign twice (an implied-volatility
    solver's shape): `ds` and `prev` hold the int 0 on some lanes, floats on the others."""
    ds = s
    prev = 0
    flips = 0
    i = 0
    while i < steps:
        if ds * prev < 0:
            flips += 1
        prev = ds
        if flips >= 2:
            ds = 0
            flips = 0
        else:
            ds = -0.75 * ds + 0.5
        ds = max(-0.5 * s, ds)
        i += 1
    return ds * prev + ds - prev


def reset_min(x):
    k = x
    if x > 2.0:
        k = min(0, -3)
    elif x < -2.0:
        k = -abs(67108864)
    return k * k - k


def big_reset(x):
    k = x
    if x > 1.0:
        k = 123456789  # beyond 2**26: k * k = 15241578750190521, beyond 2**53 and odd
    return k * k


def reset_to_param(x, n):
    k = x
    if x > 1.0:
        k = n
    return k * k


def grown_reset(x):
    k = x
    if x > 0.0:
        k = 100003
    t = k * k  # ints up to 100003**2, exact
    return t * t - k  # up to 100003**4 + 100003: beyond 2**53


def counted(x, n):
    k = x
    i = 0
    while i < n:
        if x > 1.0:
            k = 0
        k = k + 3 if x > 0.5 else k * 0.5  # grows by 3 an iteration: no bound
        i += 1
    return k * k


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_reset_to_zero_is_exact_and_unchecked(backend):
    vf = vectorize(damped, backend=backend, fallback="error")
    check(vf, damped, FLOATS, STEPS)
    check(vf, damped, FLOATS[::-1].copy(), 7)
    if backend == "numpy":
        assert CHECK not in vf.source  # ds * prev + ds - prev: ints of at most 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_max_abs_and_negation_of_small_literals_stay_small(backend):
    vf = vectorize(reset_min, backend=backend, fallback="error")
    check(vf, reset_min, FLOATS)
    if backend == "numpy":
        assert CHECK not in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_large_literal_keeps_its_check(backend):
    vf = vectorize(big_reset, backend=backend, fallback="error")
    check(vf, big_reset, FLOATS)  # the lanes > 1.0 return an int float64 cannot hold: refused, naming the lane
    check(vf, big_reset, np.array([0.5, -1.0, math.nan]))
    if backend == "numpy":
        assert CHECK in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_parameter_keeps_its_check(backend):
    vf = vectorize(reset_to_param, backend=backend, fallback="error")
    ints = np.array([0, 3, -3, 2**40, 94906267, -(2**62), 2**31 + 1, 7] * 2 + [5, 1, -1, 0])
    check(vf, reset_to_param, FLOATS, ints)
    if backend == "numpy":
        assert CHECK in vf.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_bounds_multiply_and_a_growing_name_has_none(backend):
    vf = vectorize(grown_reset, backend=backend, fallback="error")
    check(vf, grown_reset, FLOATS)
    check(vf, grown_reset, -FLOATS)
    if backend == "numpy":
        assert vf.source.count(CHECK) == 4  # t * t and t * t - k (each check names 2**53 twice); not k * k
    vf = vectorize(counted, backend=backend, fallback="error")
    check(vf, counted, FLOATS, STEPS)
    check(vf, counted, np.full(4, 2.0), np.array([0, 1, 10**6, 3]))
    if backend == "numpy":
        assert CHECK in vf.source


# -- the bounds themselves, against the values Python computes ------------------------------------
NAMES = ("a", "b", "c")


@st.composite
def _expr(draw, depth: int = 0) -> str:
    leaves = [st.integers(-300, 300).map(str), st.sampled_from(["0", "1", "2**30", "-(2**26)"]),
              st.floats(-1e3, 1e3, allow_nan=False).map(repr), st.sampled_from(NAMES)]
    if depth >= 3:
        return draw(st.one_of(leaves))
    sub = _expr(depth + 1)
    return draw(st.one_of(
        *leaves,
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["max", "min"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        sub.map(lambda e: f"abs({e})"), sub.map(lambda e: f"(-{e})"),
        st.tuples(sub, sub).map(lambda t: f"({t[0]} if s > 0.5 else {t[1]})"),
    ))


@given(st.lists(st.tuples(st.sampled_from(NAMES), _expr()), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from(NAMES), _expr()), max_size=3))
@settings(max_examples=300, deadline=None)
def test_no_int_python_computes_exceeds_its_bound(before, loop):
    """Straight-line assignments, then some in a loop (run 0 to 5 times): every int a name holds
    on any run is within the bound computed for it, and every bound expression's too."""
    lines = ["def f(s, n):", "    a = b = c = 0"]
    lines += [f"    {name} = {value}" for name, value in before]
    lines += ["    i = 0", "    while i < n:"] + [f"        {name} = {value}" for name, value in loop]
    lines += ["        i = i + 1", "    return a"]
    func = cst.parse_module("\n".join(lines) + "\n").body[0]
    bounds = int_bounds.int_bounds(func, Facts(), _builtin_name)
    traced = "\n".join(lines).replace("def f(s, n):", "def f(s, n, seen):")
    for name in NAMES:  # record each name's value after each assignment (the loop's too)
        traced = traced.replace(f"    {name} = ", f"    seen.append(('{name}', None)); {name} = ")
    code = "\n".join(line + ("; seen[-1] = (seen[-1][0], " + line.split("; ")[1].split(" = ")[0] + ")"
                             if "seen.append" in line else "") for line in traced.splitlines())
    namespace: dict = {}
    exec(compile(code, "<traced>", "exec"), namespace)  # noqa: S102 - a program the test wrote
    for s in (0.0, 1.0):
        for n in (0, 1, 5):
            seen: list = []
            namespace["f"](s, n, seen)
            for name, value in seen:
                if name in bounds and type(value) is int:
                    assert abs(value) <= bounds[name], (name, value, bounds, code)


def _builtin_name(node: cst.Call) -> str | None:
    return node.func.value if isinstance(node.func, cst.Name) else None
