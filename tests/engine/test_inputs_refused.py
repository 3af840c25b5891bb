"""Numbers the lanes cannot be given are refused with `VectorizeInputError` under every fallback
setting, on the first call and on later ones (issue 49, row 12; engine/inputs.py).

An int beyond int64 (a Python int, in a list, a tuple or an object array, or a uint64 element
or scalar) and a NumPy datetime or timedelta are refused naming the argument. With the default
`fallback="warn"` they used to go, like None or a string, to numpy.vectorize's element-by-element
run, which raised a raw `OverflowError: Python int too large to convert to C long` (lists),
computed with other values (a uint64 2**64 - 1 plus 1 wrapped to 0; 3 + 2**64 became the float
1.8446744073709552e+19), or passed `datetime.date` objects. Objects the function may take (None,
strings, complex numbers) still run element by element after a `FallbackWarning`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from contract_cases import inputs as C

from vectorizer import FallbackWarning, VectorizeInputError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

REFUSED = {
    "uint64-array": (np.array([3, 2**64 - 1], dtype=np.uint64), r"element \(1,\): 18446744073709551615 does not fit"),
    "uint64-2d": (np.array([[3, 4], [2**63, 1]], dtype=np.uint64), r"element \(1, 0\): 9223372036854775808"),
    "uint64-scalar": (np.uint64(2**64 - 1), "18446744073709551615 does not fit in int64"),
    "python-int": (2**64, "18446744073709551616 does not fit in int64"),
    "python-int-negative": (-(2**63) - 1, "-9223372036854775809 does not fit in int64"),
    "list": ([1, 2**64], r"element \(1,\): 18446744073709551616"),
    "nested-list": ([[1], [-(2**70)]], r"element \(1, 0\): -1180591620717411303424"),
    "tuple": ((1, 2**64), r"element \(1,\)"),
    "object-array": (np.array([1, 2**63], dtype=object), r"element \(1,\): 9223372036854775808"),
    "list-of-uint64": ([np.uint64(1), np.uint64(2**64 - 1)], r"element \(1,\): 18446744073709551615"),
    "datetime64-array": (np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]"), "datetime64"),
    "datetime64-scalar": (np.datetime64("2020-01-01"), "datetime64"),
    "timedelta64-array": (np.array([1, 2], dtype="timedelta64[s]"), "timedelta64"),
    "timedelta64-scalar": (np.timedelta64(3, "s"), "timedelta64"),
}


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    if request.param == "numba":
        pytest.importorskip("numba")
    return request.param


@pytest.mark.parametrize("fallback", ["warn", "error"])
@pytest.mark.parametrize("name", REFUSED, ids=str)
def test_refused_on_the_first_call_and_after_the_fast_path_is_set(name, fallback, backend) -> None:
    value, message = REFUSED[name]
    x = np.array([1, 2]) if np.ndim(value) < 2 else np.array([[1, 2], [3, 4]])
    vf = vectorize(C.mixed, backend=backend, fallback=fallback)
    for warm in (None, 5, np.array([5, 6]), np.array([5, 6], dtype=np.uint64), 7.5):
        if warm is not None:  # calls like these set up the fast paths (engine/fastpath.py, fastmixed.py)
            for _ in range(3):
                vf(np.array([1, 2]), warm)
        with warnings.catch_warnings():
            warnings.simplefilter("error", FallbackWarning)  # never numpy.vectorize's element-by-element run
            with pytest.raises(VectorizeInputError, match=f"argument 'y'.*{message}") as info:
                vf(x, value)
        assert isinstance(info.value, TypeError)


def half_plus(x, y):
    return y // 2 + x


def test_numbers_that_fit_still_run() -> None:
    vf = vectorize(half_plus, fallback="error")
    for y in (np.array([3, 2**63 - 1], dtype=np.uint64), [3, -(2**63)], (3, 2**63 - 1), np.uint64(2**63 - 1)):
        assert np.asarray(vf(np.array([1, 2]), y)).tolist() == [half_plus(a, b) for a, b in zip(
            [1, 2], np.broadcast_to(np.asarray(y, dtype=object), (2,)).tolist())]


@pytest.mark.parametrize("value", [None, "ab", np.array(["a", "b"]), np.array([1.0, 2j])], ids=repr)
def test_objects_still_run_element_by_element(value) -> None:
    """numpy.vectorize's semantics for what is not a number: the scalar function's own result or
    exception, after one FallbackWarning."""
    def label(x, y):
        return f"{x}:{y}"

    got_kind, got = _outcome(lambda: vectorize(label)(np.array([1, 2]), value))
    want_kind, want = _outcome(lambda: np.vectorize(label)(np.array([1, 2]), value))
    assert got_kind == want_kind and repr(got) == repr(want)


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        try:
            return "ok", call()
        except Exception as exc:  # noqa: BLE001 - compared between the two
            return "raised", exc
