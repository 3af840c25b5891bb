"""Per-example arrays: loops over rows, NumPy constructors and products, `@`, NumPy-scalar division.

Each test compares `vmap(f)` with the loop over the examples (`loop_vmap` of test_vmap.py): the
same values bit for bit (sign of zero included) or the same exception. The functions below are
scalar code as a user writes it; the comment says what used to go wrong.
"""

from __future__ import annotations

import ast
import math
import warnings

import numpy as np
import pytest
import vmap_cases as C

import vectorizer.engine.batch
from vectorizer import FallbackWarning, VectorizeError, vmap

from .test_vmap import assert_same, loop_vmap, run_both

# --------------------------------------------------------------------------------------------
# Loops over the rows of a per-example matrix (a[i] is a row, not an element)


def row_max_loop(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.max(a[i])
    return out


def element_sum_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i])  # the sum of one element: was the sum of the whole row
    return out


def count_loop(x):
    n = 0
    for _ in range(len(x)):
        n = n + 1  # a term that does not vary: was counted once
    return n + 0 * x[0]


def row_times_index(a):
    out = a * 0.0
    for i in range(a.shape[0]):
        out[i] = a[i] * i
    return out


def row_times_constant(a):
    out = a * 0.0
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0 + a[i]  # same-rank operands: still one array expression
    return out


def past_the_end(x):
    out = np.zeros(5)
    for i in range(5):
        out[i] = x[i] * 2.0  # IndexError for a shorter x: x[0:5] would clip silently
    return out


def from_the_end(x):
    out = np.zeros(3)
    for i in range(-1, 2):
        out[i] = x[i] * 2.0  # x[-1], x[0], x[1]: x[-1:2] is empty
    return out


def select_loop(x, y):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] if x[i] > 0.0 else y[i]
    return out


SQUARE = np.arange(18.0).reshape(2, 3, 3) - 7.5


@pytest.mark.parametrize(("fn", "args"), [
    (C.row_sums_loop, [SQUARE]),
    (row_max_loop, [SQUARE]),
    (C.row_scale_loop, [SQUARE, np.array([[1.0, 10.0, 100.0], [2.0, -0.0, 4.0]])]),
    (C.row_scale_loop, [np.arange(30.0).reshape(2, 3, 5), np.array([[1.0, 10.0, 100.0], [2.0, 3.0, 4.0]])]),
    (element_sum_loop, [np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -0.0]])]),
    (count_loop, [np.ones((2, 4))]),
    (row_times_index, [SQUARE]),
    (row_times_constant, [SQUARE]),
    (past_the_end, [np.ones((2, 3))]),
    (past_the_end, [np.ones((2, 1))]),
    (past_the_end, [np.arange(10.0).reshape(2, 5)]),
    (from_the_end, [np.arange(6.0).reshape(2, 3)]),
    (select_loop, [np.array([[1.0, -2.0], [-0.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0]])]),
], ids=lambda v: v.__name__ if callable(v) else "")
def test_loops_over_rows_and_elements(fn, args) -> None:
    run_both(fn, 0, 0, args)


def _has_loop(source: str) -> bool:
    return any(isinstance(n, ast.For | ast.While) for n in ast.walk(ast.parse(source)))


def test_same_rank_rows_still_become_one_array_expression() -> None:
    vf = vmap(row_times_constant)
    vf(SQUARE)
    assert not _has_loop(vf.source), vf.source
    vf = vmap(C.row_sums_loop)
    vf(SQUARE)
    assert _has_loop(vf.source)  # np.sum of a row stays in the loop


# --------------------------------------------------------------------------------------------
# Constructors of the example's shape


def empty_like_loop(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return out


def ones_like_plus(a):
    return np.ones_like(a, dtype=int) + a


def full_like_bound(x, c):
    return np.full_like(x, c) + x


def full_like_int(x):
    return np.full_like(x, 2.5)  # an int array: NumPy casts the fill value


@pytest.mark.parametrize("batch", [1, 3])
def test_like_constructors_of_a_mapped_array(batch: int) -> None:
    rng = np.random.default_rng(batch)
    x = rng.normal(size=(batch, 4))
    run_both(C.relu_loop, 0, 0, [x])  # a batch of 1 raised an IndexError that looked like a lane's
    run_both(empty_like_loop, 0, 0, [x])
    run_both(ones_like_plus, 0, 0, [rng.normal(size=(batch, 2, 3))])
    run_both(full_like_bound, (0, 0), 0, [x, rng.normal(size=batch)])
    run_both(full_like_bound, (0, None), 0, [x, 1.5])
    run_both(full_like_int, 0, 0, [rng.integers(-5, 5, size=(batch, 3))])
    run_both(C.relu_loop, 1, 1, [x.T])


# --------------------------------------------------------------------------------------------
# Products: np.dot / np.matmul / @ / np.inner / np.outer / np.linalg.norm, bit for bit


def dot(a, b):
    return np.dot(a, b)


def matmul_op(a, b):
    return a @ b


def inner(a, b):
    return np.inner(a, b)


def gram(a):
    return a @ a.T


def norm(a):
    return np.linalg.norm(a)


def dot_of_slices(x, y):
    k = len(x) // 2  # the slice's size is only known at run time
    return np.dot(x[0:k], y[0:k])


PRODUCT_SHAPES = [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)), ((1,), (1,)), ((1, 1), (1,)),
                  ((3, 1), (1,)), ((1,), (1, 4)), ((1, 2), (2, 1)), ((2, 1), (1, 2)), ((16,), (16,))]


@pytest.mark.parametrize(("sa", "sb"), PRODUCT_SHAPES, ids=str)
@pytest.mark.parametrize("fn", [dot, matmul_op, inner], ids=lambda f: f.__name__)
def test_products_equal_the_per_example_call_bit_for_bit(fn, sa, sb) -> None:
    rng = np.random.default_rng(7)
    if fn is inner and len(sb) == 2:
        sb = sb[::-1]
    a, b = rng.normal(size=(6, *sa)), rng.normal(size=(6, *sb))
    a.flat[::3] = -0.0  # zero products of either sign
    for in_axes in ((0, 0), (0, None), (None, 0), (-1, 0)):
        args = [np.moveaxis(a, 0, in_axes[0]) if in_axes[0] is not None else a[0],
                b if in_axes[1] is not None else b[0]]
        with warnings.catch_warnings():
            warnings.simplefilter("error", FallbackWarning)
            run_both(fn, in_axes, 0, args)


@pytest.mark.parametrize("fn", [dot, inner, matmul_op, C.outer_product], ids=lambda f: f.__name__)
def test_products_keep_the_sign_of_zero(fn) -> None:
    for x, y in [([-0.0], [1.0]), ([0.0], [-0.0]), ([-0.0, -0.0], [1.0, 1.0]), ([-1e-200], [1e-200])]:
        run_both(fn, (0, None), 0, [np.array([x, x]), np.array(y)])
        run_both(fn, (0, 0), 0, [np.array([x]), np.array([y])])
    run_both(dot_of_slices, 0, 0, [np.array([[-0.0, 1.0, 2.0]]), np.array([[1.0, 1.0, 1.0]])])
    run_both(dot_of_slices, 0, 0, [np.array([[-0.0, -0.0, 1.0, 2.0]]), np.ones((1, 4))])


def test_products_of_ints_and_bools() -> None:
    rng = np.random.default_rng(3)
    ints, floats = rng.integers(-9, 9, size=(4, 3)), rng.normal(size=(4, 3))
    run_both(dot, 0, 0, [ints, floats])
    run_both(dot, 0, 0, [ints, ints])
    run_both(dot, 0, 0, [ints > 0, ints < 3])
    run_both(norm, 0, 0, [ints])
    run_both(C.outer_product, 0, 0, [ints, floats])


def test_gram_matrix_and_norms_of_matrices() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(size=(5, 3, 16))
    run_both(gram, 0, 0, [a])
    run_both(norm, 0, 0, [a])
    run_both(norm, 2, 0, [np.moveaxis(a, 0, 2)])


def test_products_refuse_what_numpy_would_not_do_the_same_way() -> None:
    """Shapes or arguments the rules do not cover run element by element (same results)."""

    def norm_1(x):
        return np.linalg.norm(x, 1)

    def sum_keepdims(x):
        return np.sum(x, keepdims=True)

    def as_ints(x):
        return np.array(x, dtype=int)

    def cumsum_of_an_element(x):
        return np.cumsum(x[1])

    x = np.array([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]])
    for fn, message in [(norm_1, "takes 1 positional argument"), (sum_keepdims, "keyword argument keepdims="),
                        (as_ints, r"np.array\(..., dtype=int\) is not supported"), (cumsum_of_an_element, "np.cumsum of a number")]:
        with pytest.warns(FallbackWarning, match=message):
            got = vmap(fn)(x)
        assert_same(got, loop_vmap(fn)(x), exact=True)


def mean_of_an_element(x):
    return np.mean(x[0]) + np.argmax(x[1]) + np.sum(x[0] > 0)


def test_reductions_of_one_element_per_lane() -> None:
    """np.mean(x[0]) is that element, not the mean over the lanes."""
    run_both(mean_of_an_element, 0, 0, [np.array([[1.0, 2.0], [3.0, 4.0], [-5.0, 0.0]])])


# --------------------------------------------------------------------------------------------
# The `@` operator


def test_matmul_operator_on_arrays() -> None:
    rng = np.random.default_rng(5)
    xs, a = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        run_both(C.project, (0, None), 0, [xs, a])
        run_both(C.project, (None, 0), 0, [xs[0], rng.normal(size=(4, 3, 2))])
        run_both(C.project, (0, 0), 1, [xs, rng.normal(size=(4, 3, 2))])


def times_at(x, y):
    return x @ y


def element_at(x):
    return x[0] @ x[1]


@pytest.mark.parametrize(("fn", "args", "caret"), [
    (times_at, [np.ones(3), np.ones(3)], "x @ y"),
    (element_at, [np.ones((2, 3))], "x[0] @ x[1]"),
])
def test_matmul_operator_on_numbers_is_refused_with_its_location(fn, args, caret) -> None:
    with pytest.raises(VectorizeError, match="the '@' operator is not supported on numbers") as info:
        vmap(fn, fallback="error")(*args)
    text = str(info.value)
    assert "test_vmap_rules.py:" in text and caret in text and info.value.hint


# --------------------------------------------------------------------------------------------
# A gather whose index starts as one number for every lane


def last_above(x, t):
    best = 0
    for i in range(len(x)):
        if x[i] > t:
            best = i
    return x[best]


def test_gather_with_an_index_that_starts_uniform() -> None:
    x = np.array([[1.0, 3.0, 2.0], [np.inf, 0.0, 5.0], [0.0, -1.0, -2.0]])
    run_both(C.argmax_loop, 0, 0, [x])
    run_both(last_above, (0, None), 0, [x, 0.5])
    run_both(last_above, (0, None), 0, [x[:1], 0.5])


# --------------------------------------------------------------------------------------------
# Division of NumPy values by zero: no flag (it cannot raise), Python floats still raise


def test_numpy_division_by_zero_is_not_rerun(monkeypatch) -> None:
    reruns = []  # the lanes the runtime re-runs through the scalar function
    original = vectorizer.engine.batch.Batch.lane
    monkeypatch.setattr(vectorizer.engine.batch.Batch, "lane", lambda self, j: reruns.append(j) or original(self, j))
    x = np.ones((50, 4))  # constant rows: line_fit divides 0.0 by 0.0, as NumPy scalars
    y = np.arange(200.0).reshape(50, 4)
    run_both(C.line_fit, 0, (0, 0), [x, y])
    assert reruns == []


def mean_by_loop(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s / (s - s)  # a NumPy scalar once the loop ran: nan, not ZeroDivisionError


def test_python_float_division_by_zero_still_raises() -> None:
    run_both(mean_by_loop, 0, 0, [np.array([[1.0, 2.0], [0.0, math.inf]])])
    run_both(mean_by_loop, 0, 0, [np.ones((3, 0))])  # no iteration: s is the float 0.0, which raises
    run_both(C.line_fit, 0, (0, 0), [np.ones((2, 0)), np.ones((2, 0))])
