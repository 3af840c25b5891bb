"""`otypes=` of the numpy.vectorize drop-in converts as numpy.vectorize converts (issue 49, row 4).

numpy.vectorize turns each element's result (a Python number) into the otype one by one, so a
NaN or an infinity meant for an int type raises (ValueError, OverflowError), as does a number
outside the type's range (-1.0 or 300 for uint8, 2.0**63 for int64), where a plain `astype`
would wrap silently. An `otypes` whose length differs from the function's number of results
raises too (numpy's TypeError), where zipping would drop outputs. Every expectation here is
numpy.vectorize's own outcome for the same call (`same_as_numpy`), never written by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import vmap_cases as C

import vectorizer
from vectorizer import FallbackWarning, VectorizeError

from .test_npcompat import same_as_numpy


def identity(x):
    return x


def negate(x):
    return -x


def halve(x):
    return x / 2


NAN_INF = [np.array([1.5, np.nan, 2.0]), np.array([np.inf, 1.0]), np.array([1.0, -np.inf]), np.nan, np.inf]
OUT_OF_RANGE = [np.array([2.0**63]), np.array([-(2.0**63) - 4096.0]), np.array([1e300]), np.array([2.0**64])]


@pytest.mark.parametrize("otypes", [[int], "l", [np.int32], [np.uint8], [np.uint64], "h", "B"])
@pytest.mark.parametrize("x", NAN_INF + OUT_OF_RANGE, ids=repr)
def test_float_results_without_an_int_value_raise_as_numpy_does(otypes, x) -> None:
    same_as_numpy(identity, x, options={"otypes": otypes})


@pytest.mark.parametrize("otypes", [[np.uint8], [np.int8], [np.uint16], [np.int16], [np.uint32], [np.int32], [np.uint64]])
@pytest.mark.parametrize("x", [np.array([1.0, -1.0]), np.array([300.0]), np.array([-0.5, 2.75, 127.9]),
                               np.array([1, -1]), np.array([300, 2]), np.array([-129, 0]), np.array([2**40, 1]),
                               np.array([2**63 - 1])], ids=repr)
def test_out_of_range_results_raise_as_numpy_does(otypes, x) -> None:
    same_as_numpy(identity, x, options={"otypes": otypes})
    same_as_numpy(negate, x, options={"otypes": otypes})


def test_the_first_failing_element_in_c_order_decides_the_error() -> None:
    x = np.array([[1.0, 300.0], [np.nan, -1.0]])
    same_as_numpy(identity, x, options={"otypes": [np.uint8]})
    same_as_numpy(identity, x.T, options={"otypes": [np.uint8]})  # a Fortran-ordered result


@pytest.mark.parametrize("otypes", [[np.float32], [np.float16], "f"])
def test_ints_to_narrow_floats_round_as_numpy_does(otypes) -> None:
    """numpy.vectorize converts a Python int to float32 through a Python float (two roundings)."""
    same_as_numpy(identity, np.array([2**60 + 2**36 + 1, 2**24 + 1, 2**63 - 1, -(2**63), 7]), options={"otypes": otypes})


@pytest.mark.parametrize("otypes", ["l", "d", "?", [np.float32]])
def test_too_few_otypes_do_not_drop_outputs(otypes) -> None:
    same_as_numpy(C.scalar_div_mod, np.array([7, -3, 4]), 2, options={"otypes": otypes})


@pytest.mark.parametrize("otypes", ["ll", "dd", "lll"])
def test_too_many_otypes(otypes) -> None:
    same_as_numpy(identity, np.array([1.0, 2.0]), options={"otypes": otypes})
    same_as_numpy(C.scalar_div_mod, np.array([7, -3, 4]), 2, options={"otypes": "lll"})


@pytest.mark.parametrize("x", [np.array([-1.0, 2.0]), np.array([np.nan]), np.array([300, 1])], ids=repr)
def test_with_a_signature(x) -> None:
    """With a signature numpy.vectorize stores each result into an otypes array (its setitem
    rules, which depend on whether the function returned a NumPy or a Python scalar)."""
    same_as_numpy(identity, x, options={"otypes": [np.uint8], "signature": "()->()"})
    same_as_numpy(halve, x, options={"otypes": [np.int64], "signature": "()->()"})


def test_a_lossless_cast_stays_on_the_compiled_code() -> None:
    """Results every otype holds exactly are cast without numpy.vectorize and without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        vf = vectorizer.vectorize(identity, otypes=[np.uint8])
        assert vf(np.array([0.0, 2.75, 255.5])).tolist() == [0, 2, 255]
        assert vf.backend != "python"


def test_fallback_error_refuses_instead_of_casting() -> None:
    vf = vectorizer.vectorize(identity, otypes=[int], fallback="error")
    with pytest.raises(VectorizeError, match="otypes"):
        vf(np.array([1.0, np.nan]))
    vf = vectorizer.vectorize(C.scalar_div_mod, otypes="l", fallback="error")
    with pytest.raises(VectorizeError, match="otypes"):
        vf(np.array([7, 8]), 2)


def test_numpys_conversion_is_announced_once() -> None:
    vf = vectorizer.vectorize(identity, otypes=[np.uint8])
    with pytest.warns(FallbackWarning, match=r"otypes .*no uint8 value") as caught, pytest.raises(OverflowError):
        vf(np.array([1.0, -1.0]))
    with pytest.raises(OverflowError):
        vf(np.array([1.0, -1.0]))
    assert len([w for w in caught if issubclass(w.category, FallbackWarning)]) == 1
    assert vf(np.array([1.0, 2.5])).tolist() == [1, 2]  # the next clean call is compiled again
    assert vf.backend != "python"
