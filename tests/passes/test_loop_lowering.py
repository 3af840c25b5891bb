"""Loop lowerings that the golden fixtures cannot pin on both backends, checked against the
scalar function lane by lane (NumPy backend)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernels import (
    is_prime,  # d is dead after its loop: one number for all searching lanes
)
from oracle import check
from strategies import floats

from vectorizer import vectorize


def first_above(x: float) -> float:
    # A literal tuple with a return inside: for_to_while reads its items as `a if k == 0 else ...`
    # (the Numba backend does not iterate literal tuples).
    for c in (0.5, 2, 1.5, 8.0):
        if x < c:
            return c - x
    return x


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(floats(), max_size=20))
def test_literal_tuple_loop_with_return(xs):
    check(vectorize(first_above, fallback="error"), first_above, np.array(xs, dtype=np.float64))


# -- lanes that break: names the next iteration reads need no merge for them (if_to_select) ------
def last_divisor(n: int) -> int:
    d = 3
    while d * d <= n:
        if n % d == 0:
            break
        d += 2
    return d  # live after the loop: each lane keeps its own


def first_divisor(n: int) -> int:
    d = 2
    r = -1
    while d * d <= n:
        if n % d == 0:
            r = d  # read on the breaking lanes, in the iteration they leave
            break
        d += 1
    return r


def grow(x: float) -> int:
    n = 0
    while n < 40:
        if x < 50.0:
            x = x * 1.7 + 1.0
        else:
            break  # the else branch leaves: the then branch's x needs no merge
        n += 1
    return n


def nested_break(x: float, k: int) -> float:
    i = 0
    acc = 0.0
    while i < k:
        if x > 0:
            if acc > x:  # not at the top of the body: lanes with x <= 0 go on
                break
            acc = acc + x
        else:
            acc = acc - 1.0
        i += 1
    return acc + i


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.one_of(st.integers(-5, 5000), st.integers(-(2**63), 10**7)), max_size=20))  # the search runs sqrt(n) steps
def test_breaking_lanes_need_no_merge(ns):
    n = np.array(ns, dtype=np.int64)
    for f in (is_prime, last_divisor, first_divisor):
        check(vectorize(f, fallback="error"), f, n)


def test_a_counter_dead_after_the_loop_becomes_uniform():
    vf = vectorize(is_prime, backend="numpy", cache=False)
    vf(np.arange(100))
    kernel = vf.source.split("def _vz")[0]  # without the runtime helpers the module carries
    assert "d = d + 2" in kernel and "_vz_where(" not in kernel
    assert "(d == 0)" not in kernel  # d counts up from 3: never a zero divisor


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(floats(), st.integers(-2, 30)), max_size=20))
def test_breaks_in_either_branch_or_deeper(rows):
    x = np.array([r[0] for r in rows], dtype=np.float64)
    k = np.array([r[1] for r in rows], dtype=np.int64)
    check(vectorize(grow, fallback="error"), grow, x)
    check(vectorize(nested_break, fallback="error"), nested_break, x, k)


def countdown_mod(n: int, k: int) -> int:
    d = k  # not a counter from 1 up: the zero-divisor check stays
    s = 0
    while d > -3:
        s += n % d
        d -= 1
    return s


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
def test_a_counter_that_reaches_zero_keeps_its_check(backend):
    n, k = np.array([7, 9, 11]), np.array([-5, -4, 2])  # lane 2 counts down through 0
    with pytest.raises(ZeroDivisionError):
        vectorize(countdown_mod, backend=backend)(n, k)
    check(vectorize(countdown_mod, backend=backend), countdown_mod, n, k)
    check(vectorize(countdown_mod, backend=backend), countdown_mod, n[:2], k[:2])


# -- names a batched branch assigns are per-lane, even where every lane that goes on took it -------
def return_or_raise_in_a_loop(n: int) -> int:
    for _ in range(1):
        if n > 0:
            return n  # `brk = True if m else brk`: the loop's test is per-lane
        else:
            raise ValueError("not positive")
    return 0


def range_from_a_branch(n: int) -> int:
    if n:
        n = 0  # merged as `n = 0 if m else n`: the range below reads the merged array
        k = n
        total = 1
        for j in range(k, k + 2):
            total += j
    else:
        return n - 1  # reads n: the branch's assignment must merge
    return total


@pytest.mark.parametrize("f", [return_or_raise_in_a_loop, range_from_a_branch])
@settings(max_examples=40, deadline=None, derandomize=True)
@given(ns=st.lists(st.integers(-3, 3), min_size=1, max_size=12))
def test_uniform_assignments_under_a_batched_branch(f, ns):
    # Found by the fuzzer (reg_manual_return_or_raise_in_uniform_for, reg_382974b094): the
    # analysis called these names uniform, the generated code made them arrays.
    check(vectorize(f, backend="numpy", fallback="error"), f, np.array(ns, dtype=np.int64))


def carried_through(x: float) -> float:
    for i in range(2):
        k = 0.0
        while k < x and k < 5.0:  # compacted; must not carry the return value, unbound here at first
            k += 1.0
        for _ in range(1):
            return k + i  # a uniform loop: every lane returns here, on the first iteration
    return x


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(floats(), min_size=1, max_size=20))
def test_a_loop_carries_only_the_names_it_touches(xs):
    # Found by the fuzzer (reg_4a72488561): compaction carried a name only live through the
    # loop, unbound there on the first iteration: UnboundLocalError in the generated code.
    check(vectorize(carried_through, backend="numpy", fallback="error"), carried_through, np.array(xs * 300))


def bound_in_the_branch_that_stays(n: int) -> int:
    if n:
        n = 0
        stop = 2  # first bound here, and uniform: the other branch raises
    else:
        raise ValueError("zero")
    total = 0
    for i in range(stop):  # a uniform loop, whose body holds a batched one
        j = 0
        while j < 3 and n <= i * j:
            j += 1
            if not n:
                break
        total += j
    return total


@settings(max_examples=40, deadline=None, derandomize=True)
@given(ns=st.lists(st.integers(-3, 3), min_size=1, max_size=12))
def test_a_name_first_bound_in_the_branch_that_stays_is_uniform(ns):
    # Found by the fuzzer (reg_f183ff7881): the loop over `stop` became a masked loop that the
    # NumPy lowering then read as uniform (`if active:` on an array).
    check(vectorize(bound_in_the_branch_that_stays, backend="numpy", fallback="error"),
          bound_in_the_branch_that_stays, np.array(ns, dtype=np.int64))


def returns_after_a_batched_inner_loop(x: float) -> float:
    for _ in range(3):
        for _ in range(round(x), 2):  # batched trip count, a return inside
            return 1.0
        return 3.0  # every lane that gets here leaves: the outer loop's mask looks uniform again
    return 4.0


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=20))
def test_a_loop_mask_stays_per_lane(xs):
    # Found by the fuzzer (reg_1e40db57bb and 33 more): while_to_masked made the outer loop a
    # masked loop, and the NumPy lowering's own analysis then read its mask as uniform.
    check(vectorize(returns_after_a_batched_inner_loop, backend="numpy", fallback="error"),
          returns_after_a_batched_inner_loop, np.array(xs))


def bool_stored_as_float(b: bool, x: float) -> float:
    y = 1.0 / x  # a check: the function has a flag array, so loop masks drop flagged lanes
    if x > 1.0:
        x = b  # a bool here, stored as a float where it meets the lanes that keep their float
        while x:
            x = False
    return x + y


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.booleans(), min_size=1, max_size=12), st.lists(floats(), min_size=12, max_size=12))
def test_a_loop_mask_read_from_a_number_is_its_truth_value(bs, xs):
    # Found by the fuzzer (reg_d95d757753): `while x:` on a bool stored as 0.0/1.0 made the mask
    # a float array, and `& ~flag` raised TypeError (a refusal reported as a vectorizer bug).
    b, x = np.array(bs), np.array(xs[: len(bs)])
    check(vectorize(bool_stored_as_float, backend="numpy", fallback="error"), bool_stored_as_float, b, x)


# -- a uniform for loop's counter merged where it has no value yet (issue 51) --------------------
def counters_in_both_branches(x: float) -> float:
    for _ in range(2):  # a loop around: the counter `i` reaches the branch's top by its back edge
        if x > 0:
            for i in range(3):
                x = x + i * 0.5
        else:  # reads `i`: the then branch's counter must merge, and has no earlier value
            for i in range(2):
                x = x - i
    return x


ERF_A = (1.0, 2.0, 3.0)


def erf_like(x: float) -> float:
    # py_lets_be_rational's calerf inlined into a Newton loop: 'i___27' is used before it is assigned
    n = 0
    while n < 3 and x < 10.0:
        y = abs(x)
        if y <= 0.5:
            s = 0.0
            for i in range(0, 3):
                s = (s + ERF_A[i]) * y
        elif y <= 4.0:
            s = y
            for i in range(0, 7):
                s = (s + i) * 0.5
        else:
            s = 1.0 / y
        x = x + s
        n += 1
    return x


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("f", [counters_in_both_branches, erf_like])
@settings(max_examples=40, deadline=None, derandomize=True)
@given(xs=st.lists(floats(), min_size=1, max_size=20))
def test_a_loop_counter_merged_before_any_value(f, backend, xs):
    # if_to_select gave `i = i_1 if m else i` no placeholder when `i` was first bound later in an
    # enclosing loop: the NumPy backend refused the function, naming its own 'i___27'.
    with np.errstate(all="ignore"):
        check(vectorize(f, backend=backend, fallback="error"), f, np.array(xs, dtype=np.float64))
