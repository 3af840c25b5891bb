"""`vectorizer.vectorize` as a drop-in for `numpy.vectorize`: the same calls on both give the
same values, dtypes and errors (vectorizer/faces/npcompat.py).

Two deliberate differences, documented in npcompat's docstring and tested as documented here
(tests named `test_difference_*`):
1. a call on scalars returns a NumPy scalar, where numpy.vectorize returns a 0-d array;
2. without `otypes` the result dtype comes from the function's code, not from its result on the
   first element (numpy.vectorize truncates every element to the first one's type; it also
   refuses empty inputs without otypes, which vectorizer does not need to).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
import vmap_cases as C
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import floats

import vectorizer
from vectorizer import FallbackWarning, VectorizeError

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


def outcome(make: Any, call_args: tuple, call_kwargs: dict) -> tuple[str, Any]:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return "ok", make()(*call_args, **call_kwargs)
        except Exception as exc:  # compared between the two implementations
            return "raised", exc


def assert_same_result(got: Any, want: Any, exact: bool = True) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_same_result(g, w, exact)
        return
    assert isinstance(got, np.ndarray) == isinstance(want, np.ndarray) or np.ndim(want) == 0, (type(got), type(want))
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
    if exact:
        np.testing.assert_array_equal(g, w)
        if g.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))
    else:
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, equal_nan=True)


def same_as_numpy(pyfunc, *args: Any, options: dict | None = None, exact: bool = True, **kwargs: Any) -> Any:
    """Call np.vectorize(pyfunc, **options) and vectorizer.vectorize(pyfunc, **options) alike."""
    options = options or {}
    kind, want = outcome(lambda: np.vectorize(pyfunc, **options), args, kwargs)
    got_kind, got = outcome(lambda: vectorizer.vectorize(pyfunc, **options), args, kwargs)
    assert got_kind == kind, (got, want)
    if kind == "raised":
        assert type(got) is type(want) and str(got) == str(want), (got, want)
    else:
        assert_same_result(got, want, exact)
    return got


X = np.array([-1.5, 0.0, -0.0, 2.0, 3.25, np.inf, -np.inf, np.nan])
XI = np.array([1, 2, 3, -4, 0])


# --------------------------------------------------------------------------------------------
# No options: elementwise, broadcasting, keywords


def test_no_options_elementwise() -> None:
    same_as_numpy(C.scalar_affine, X)
    same_as_numpy(C.scalar_affine, XI)
    same_as_numpy(C.scalar_affine, np.array([True, False]))
    same_as_numpy(C.scalar_affine, [1.0, 2.0, 3.0])  # a list, as numpy takes it
    same_as_numpy(C.scalar_count_positive, X)
    same_as_numpy(C.scalar_div_mod, XI, 3)


def test_broadcasting() -> None:
    same_as_numpy(C.scalar_affine, X[:, None], X[None, :3], np.array([[[1.0]], [[2.0]]]))
    same_as_numpy(C.scalar_affine, X.reshape(2, 4), np.array([1.0, 2.0, 3.0, 4.0]))
    same_as_numpy(C.scalar_div_mod, XI[:, None], np.array([1, 2, 7]))
    same_as_numpy(C.scalar_affine, np.ones((0, 3)), np.ones(3), options={"otypes": [float]})


def test_keyword_arguments() -> None:
    same_as_numpy(C.scalar_affine, X, b=np.array([[1.0], [2.0]]))
    same_as_numpy(C.scalar_affine, X, a=3, b=1)
    same_as_numpy(C.scalar_affine, x=X, a=np.array([1.0, 2.0])[:, None])
    same_as_numpy(C.scalar_affine, X, 2.0, b=XI[:, None])


@SETTINGS
@given(xs=st.lists(floats(), min_size=1, max_size=8), a=floats(), b=floats())
def test_hostile_floats(xs, a, b) -> None:
    same_as_numpy(C.scalar_affine, np.array(xs), a, b)
    same_as_numpy(C.scalar_affine, np.array(xs), a, b, options={"otypes": [float]})
    same_as_numpy(C.scalar_count_positive, np.array(xs))


# --------------------------------------------------------------------------------------------
# otypes


@pytest.mark.parametrize("otypes", [[np.float32], [float], [int], [np.int16], "f", "d", "l", "?"])
def test_otypes_single_output(otypes) -> None:
    same_as_numpy(C.scalar_affine, np.array([-1.5, 0.0, 2.0, 3.25]), options={"otypes": otypes})
    same_as_numpy(C.scalar_affine, XI, options={"otypes": otypes})


@pytest.mark.parametrize("otypes", [[int, int], "ll", [float, np.int32], "dd", [np.int8, float]])
def test_otypes_several_outputs(otypes) -> None:
    same_as_numpy(C.scalar_div_mod, XI, 3, options={"otypes": otypes})
    same_as_numpy(C.scalar_div_mod, np.array([7.5, -2.0, 0.25]), 2.0, options={"otypes": otypes})


def test_otypes_bool_and_empty() -> None:
    same_as_numpy(C.scalar_count_positive, X, options={"otypes": [bool]})
    same_as_numpy(C.scalar_affine, np.array([]), options={"otypes": [float]})
    same_as_numpy(C.scalar_div_mod, np.array([], dtype=np.int64), 2, options={"otypes": "ll"})


# --------------------------------------------------------------------------------------------
# excluded


def test_excluded_positional_index_passes_an_array_whole() -> None:
    coeffs = np.array([1.0, -2.0, 0.5])
    same_as_numpy(C.scalar_poly, np.array([0.0, 1.0, 2.5, -1.0]), coeffs, options={"excluded": {1}})
    same_as_numpy(C.scalar_poly, np.array([0.0, 1.0]), [1.0, 2.0, 3.0], options={"excluded": {1}})  # a list


def test_excluded_keyword_name() -> None:
    coeffs = np.array([1.0, -2.0, 0.5, 4.0])
    same_as_numpy(C.scalar_poly, np.array([[0.0, 1.0], [2.5, -1.0]]), coeffs=coeffs, options={"excluded": {"coeffs"}})
    same_as_numpy(C.scalar_poly, x=np.array([0.5]), coeffs=coeffs, options={"excluded": {"coeffs"}})


def test_excluded_non_numeric_falls_back_with_a_warning() -> None:
    x = np.array([1.0, 2.0, -0.5])
    with pytest.warns(FallbackWarning, match="runs through numpy.vectorize"):
        got = vectorizer.vectorize(C.scalar_label_scale, excluded={1})(x, "abc")
    assert_same_result(got, np.vectorize(C.scalar_label_scale, excluded={1})(x, "abc"))
    with pytest.warns(FallbackWarning, match="an excluded argument is not a number"):
        got = vectorizer.vectorize(C.scalar_label_scale, excluded={"label"})(x, label="ab")
    assert_same_result(got, np.vectorize(C.scalar_label_scale, excluded={"label"})(x, label="ab"))


def label_length_scale(x, label="abc"):
    return x * len(label)


def test_a_non_numeric_default_is_passed_whole_through_numpy_vectorize() -> None:
    """numpy.vectorize passes an argument left to its default whole; the engine cannot take a
    string, so the call runs through numpy.vectorize, with a FallbackWarning naming the default."""
    x = np.array([1.0, 2.0, -0.5])
    with pytest.warns(FallbackWarning, match="the default value of 'label'"):
        got = vectorizer.vectorize(label_length_scale, otypes="d")(x)
    assert_same_result(got, np.vectorize(label_length_scale, otypes="d")(x))


def test_excluded_non_numeric_with_fallback_error_raises() -> None:
    vf = vectorizer.vectorize(C.scalar_label_scale, excluded={1}, fallback="error")
    with pytest.raises(VectorizeError, match="an excluded argument is not a number"):
        vf(np.array([1.0]), "abc")


# --------------------------------------------------------------------------------------------
# signature (core dimensions)


def test_signature_two_vectors_to_a_number() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(2, 1, 5))
    same_as_numpy(C.manhattan_loop, a, b, options={"signature": "(n),(n)->()"})  # loop: exact
    same_as_numpy(C.distance_to_point_loop, a, b[0, 0], options={"signature": "(n),(n)->()"})
    same_as_numpy(C.euclidean, a, b, options={"signature": "(n),(n)->()"}, exact=False)  # np.sum
    same_as_numpy(C.euclidean, a, b, options={"signature": "(n),(n)->()", "otypes": [np.float32]}, exact=False)


def test_signature_one_vector_to_two_numbers() -> None:
    x = np.array([[3.0, -1.0, 2.0], [0.0, -0.0, np.nan], [np.inf, 1.0, -np.inf]])
    same_as_numpy(C.min_max, x, options={"signature": "(n)->(),()"})
    same_as_numpy(C.line_fit, x[:1], np.array([[1.0, 2.0, 4.0], [0.0, 1.0, 0.0]]),
                  options={"signature": "(n),(n)->(),()"})


def test_signature_matrix_vector() -> None:
    rng = np.random.default_rng(1)
    same_as_numpy(C.matvec_loop, rng.normal(size=(2, 3, 4)), rng.normal(size=4), options={"signature": "(m,n),(n)->(m)"})
    same_as_numpy(C.matvec_loop, rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), options={"signature": "(m,n),(n)->(m)"})


def test_signature_vector_to_vector() -> None:
    x = np.arange(12.0).reshape(3, 4) / 7.0
    same_as_numpy(C.softmax, x, options={"signature": "(n)->(n)"}, exact=False)
    same_as_numpy(C.cumsum_loop, x, options={"signature": "(n)->(n)"})
    same_as_numpy(C.moving_average3, x, options={"signature": "(n)->(k)"})


def test_signature_with_a_number_argument() -> None:
    same_as_numpy(C.horner, np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 0.0]]), np.array([[0.0], [2.0], [-1.5]]),
                  options={"signature": "(n),()->()"})


def test_signature_core_size_mismatch() -> None:
    same_as_numpy(C.euclidean, np.ones((3, 4)), np.zeros(5), options={"signature": "(n),(n)->()"})
    same_as_numpy(C.matvec_loop, np.ones((3, 4)), np.zeros(3), options={"signature": "(m,n),(n)->(m)"})


def test_signature_raising_function() -> None:
    idx = np.array([[0], [3], [9]])
    same_as_numpy(C.pick, np.arange(4.0), idx[:, 0], options={"signature": "(n),()->()"})


def test_signature_with_keyword_arguments() -> None:
    a, b = np.arange(12.0).reshape(3, 4), np.zeros(4)
    same_as_numpy(C.manhattan_loop, a, y=b, options={"signature": "(n),(n)->()"})
    same_as_numpy(C.manhattan_loop, x=a, y=b, options={"signature": "(n),(n)->()"})


def test_signature_core_dims_follow_numpys_argument_order() -> None:
    """numpy.vectorize gives the signature's input core dims to the mapped arguments in call order:
    the positional ones, then the keyword ones as passed (not in the function's parameter order)."""
    coeffs, t = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 0.0]]), np.array([[0.0], [2.0], [-1.5]])
    same_as_numpy(C.horner, t=t, coeffs=coeffs, options={"signature": "(),(n)->()"})
    same_as_numpy(C.horner, coeffs=coeffs, t=t, options={"signature": "(n),()->()"})
    same_as_numpy(C.manhattan_loop, y=np.zeros(4), x=np.arange(12.0).reshape(3, 4), options={"signature": "(n),(n)->()"})
    same_as_numpy(C.manhattan_loop, np.ones((2, 3)), y=np.ones(4), options={"signature": "(n),(n)->()"})  # sizes differ


def test_signature_counts_the_mapped_arguments_like_numpy() -> None:
    """Defaults are not mapped: the signature must name exactly the arguments passed."""
    same_as_numpy(C.scalar_affine, X, options={"signature": "()->()"})
    same_as_numpy(C.scalar_affine, X, b=XI[:, None], options={"signature": "(),()->()"})
    same_as_numpy(C.scalar_affine, X, options={"signature": "(),()->()"})  # TypeError: wrong number


def test_excluded_positions_apply_to_positional_arguments_and_names_to_keywords() -> None:
    """As numpy.vectorize: an excluded index excludes only a positional argument, an excluded
    name only a keyword argument; otherwise the argument is mapped."""
    a = np.array([[1.0], [2.0]])
    same_as_numpy(C.scalar_affine, X, a, options={"excluded": {"a"}})
    same_as_numpy(C.scalar_affine, X, a=a, options={"excluded": {1}})
    same_as_numpy(C.scalar_poly, np.array([0.5, 2.0]), coeffs=np.array([1.0, -2.0, 0.5]),
                  options={"excluded": {"coeffs"}, "otypes": "d"})


@pytest.mark.parametrize("bad", [1.0, np.float64(2.0), np.array(3.0)], ids=["float", "np.float64", "0-d"])
def test_signature_too_few_dimensions_any_argument(bad) -> None:
    same_as_numpy(C.euclidean, np.zeros((2, 5)), bad, options={"signature": "(n),(n)->()"})
    same_as_numpy(C.euclidean, y=np.zeros(5), x=bad, options={"signature": "(n),(n)->()"})
    same_as_numpy(C.matvec_loop, np.ones(4), np.ones(4), options={"signature": "(m,n),(n)->(m)"})


def test_signature_too_few_dimensions() -> None:
    same_as_numpy(C.euclidean, 1.0, np.zeros(5), options={"signature": "(n),(n)->()"})


def test_uniform_elif_under_a_batched_if() -> None:
    same_as_numpy(C.scalar_clip, 0.5, np.array([0.0, 1.0]), 1.5)


# --------------------------------------------------------------------------------------------
# Exceptions, cache=, doc=


def test_a_function_that_raises_on_some_element() -> None:
    x = np.array([1.0, 0.0, 2.0, 0.0])
    same_as_numpy(C.scalar_reciprocal, x)
    same_as_numpy(C.scalar_reciprocal, x, options={"otypes": [float]})
    same_as_numpy(C.scalar_reciprocal, 0.0)
    same_as_numpy(C.scalar_div_mod, XI, np.array([1, 0, 2, 3, 1]))  # ZeroDivisionError
    same_as_numpy(C.scalar_div_mod, XI, 0, options={"otypes": "ll"})


def test_int_overflow_raises_overflow_error_in_both() -> None:
    """numpy.vectorize cannot store the Python int (OverflowError: Python int too large to
    convert to C long); vectorizer refuses it with VectorizeOverflowError, an OverflowError naming
    the lane (the messages differ by design: the contract never wraps)."""
    big = np.array([2**62, 1])
    with pytest.raises(OverflowError), np.errstate(over="ignore"):  # its first-element call wraps
        np.vectorize(C.scalar_affine)(big, 4, 0)
    with pytest.raises(OverflowError, match=r"lane \(0,\)"):
        vectorizer.vectorize(C.scalar_affine)(big, 4, 0)


def test_cache_option_is_accepted() -> None:
    same_as_numpy(C.scalar_affine, X, options={"cache": True})
    same_as_numpy(C.scalar_div_mod, XI, 2, options={"cache": True})


def test_doc() -> None:
    assert vectorizer.vectorize(C.scalar_affine, doc="Affine map.").__doc__ == "Affine map."
    assert vectorizer.vectorize(C.scalar_affine).__doc__ == np.vectorize(C.scalar_affine).__doc__ == "a * x + b."
    assert vectorizer.vectorize(C.scalar_affine, doc="x").__name__ == "scalar_affine"


def test_introspection_attributes() -> None:
    for options in ({}, {"otypes": "dl"}):
        ours, theirs = vectorizer.vectorize(C.scalar_div_mod, **options), np.vectorize(C.scalar_div_mod, **options)
        for attr in ("pyfunc", "otypes", "excluded", "signature", "cache"):
            assert getattr(ours, attr) == getattr(theirs, attr), attr



@pytest.mark.parametrize("options", [
    {}, {"otypes": "dl"}, {"otypes": [float, np.int32]}, {"otypes": [int]}, {"excluded": {1, "b"}},
    {"signature": "(),()->(),()"}, {"cache": True}, {"doc": "Quotient and remainder."},
    {"otypes": "ll", "excluded": {"b"}, "cache": True, "doc": "x", "signature": "(),()->(),()"},
], ids=lambda o: repr({k: sorted(v, key=str) if isinstance(v, set) else v for k, v in o.items()}))  # one id in every process
def test_introspection_attributes_with_every_option(options) -> None:
    ours, theirs = vectorizer.vectorize(C.scalar_div_mod, **options), np.vectorize(C.scalar_div_mod, **options)
    for attr in ("pyfunc", "otypes", "excluded", "signature", "cache", "__doc__", "__name__"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours.otypes) == repr(theirs.otypes)  # a str as given, or a list of dtypes


def test_source_with_a_signature_before_the_first_call_says_why() -> None:
    vf = vectorizer.vectorize(C.euclidean, signature="(n),(n)->()")
    with pytest.raises(VectorizeError, match="first call"):
        vf.source  # noqa: B018
    vf(np.ones((2, 3)), np.zeros(3))
    assert "def euclidean" in vf.source


def test_fallback_warnings_point_at_the_callers_line() -> None:
    """Both fallbacks of the numpy.vectorize front warn at the line that called it."""
    x = np.array([1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vectorizer.vectorize(C.scalar_label_scale, excluded={1})(x, "abc")  # through numpy.vectorize
        vectorizer.vectorize(C.mean_and_centered, signature="(n)->(),(n)")(np.ones((2, 3)))  # element by element
    fallbacks = [w for w in caught if issubclass(w.category, FallbackWarning)]
    assert len(fallbacks) == 2 and [w.filename for w in fallbacks] == [__file__] * 2, [str(w.message) for w in caught]


# --------------------------------------------------------------------------------------------
# The two deliberate differences


def test_difference_1_scalar_inputs_give_a_numpy_scalar() -> None:
    ours = vectorizer.vectorize(C.scalar_affine)(2.0)
    theirs = np.vectorize(C.scalar_affine)(2.0)
    assert isinstance(theirs, np.ndarray) and theirs.shape == ()
    assert isinstance(ours, np.float64) and not isinstance(ours, np.ndarray)
    assert ours == theirs and ours.dtype == theirs.dtype
    q, r = vectorizer.vectorize(C.scalar_div_mod)(7, 3)
    assert isinstance(q, np.int64) and isinstance(r, np.int64) and (q, r) == (2, 1)
    # also with otypes, and with a signature whose loop dimensions are empty
    ours = vectorizer.vectorize(C.scalar_affine, otypes=[np.float32])(2.0)
    assert isinstance(ours, np.float32) and ours == 5.0
    ours = vectorizer.vectorize(C.manhattan_loop, signature="(n),(n)->()")(np.ones(3), np.zeros(3))
    assert isinstance(ours, np.float64) and ours == 3.0
    # arrays give arrays, 0-d arrays included (as numpy.vectorize)
    assert isinstance(vectorizer.vectorize(C.scalar_affine)(np.array([2.0])), np.ndarray)


def test_difference_2_dtype_from_the_code_not_the_first_element() -> None:
    x = np.array([-1.0, 3.0, 0.5, 2.25])  # the first element takes the `return 0` (int) path
    theirs = np.vectorize(C.scalar_int_or_float)(x)
    ours = vectorizer.vectorize(C.scalar_int_or_float)(x)
    assert theirs.dtype == np.int64 and theirs.tolist() == [0, 1, 0, 1]  # 1.5, 0.25, 1.125 truncated
    assert ours.dtype == np.float64 and ours.tolist() == [0.0, 1.5, 0.25, 1.125]
    assert ours.tolist() == [C.scalar_int_or_float(v) for v in x.tolist()]
    # with otypes both agree
    same_as_numpy(C.scalar_int_or_float, x, options={"otypes": [float]})
    same_as_numpy(C.scalar_int_or_float, x, options={"otypes": [int]})


def test_difference_2_consequence_empty_input_without_otypes() -> None:
    """numpy.vectorize needs otypes to call on an empty input; vectorizer knows the dtype from the code."""
    with pytest.raises(ValueError, match="cannot call `vectorize` on size 0 inputs unless `otypes` is set"):
        np.vectorize(C.scalar_affine)(np.array([]))
    got = vectorizer.vectorize(C.scalar_affine)(np.array([]))
    assert got.shape == (0,) and got.dtype == np.float64
    got = vectorizer.vectorize(C.manhattan_loop, signature="(n),(n)->()")(np.ones((0, 3)), np.ones(3))
    assert got.shape == (0,) and got.dtype == np.float64


def test_difference_2_same_dtype_when_every_path_agrees() -> None:
    same_as_numpy(C.scalar_affine, np.array([1.0, math.pi]))
    same_as_numpy(C.scalar_div_mod, XI, 4)
    same_as_numpy(C.scalar_count_positive, X)
