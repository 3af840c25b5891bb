"""The contract for inputs (runtime canonicalisation, docs/internals.md#inputs): every lane sees
the Python scalar `.item()` gives; bool, signed and unsigned ints and
float16/32/64 are read as bool, int64 and float64; everything else is refused with a
`VectorizeInputError` (a TypeError) naming the argument; shapes broadcast like NumPy's; empty,
0-d, read-only, strided and Fortran-ordered inputs work, and inputs are never modified.
"""

from __future__ import annotations

import decimal
import fractions
import inspect
import math
import warnings

import kernels as K
import numpy as np
import pytest
from contract_cases import inputs as C
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import floats

from vectorizer import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    VectorizeValueError,
    vectorize,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def backend_or_skip(backend: str) -> str:
    if backend == "numba":
        pytest.importorskip("numba")
    return backend


def extremes(dtype) -> np.ndarray:
    """Values at the ends of the dtype's range, zero, one and a few in between."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([True, False, False, True, True, False])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        top = min(int(info.max), 2**63 - 1)  # uint64 above int64 is refused (tested below)
        values = [info.min, 0, 1, top, top - 1, info.min + 1, 7, 100]
        return np.array(values, dtype=dtype)
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, np.nan, np.inf, -np.inf, info.max, -info.max, info.tiny,
                     info.smallest_subnormal, 0.1, -2.5, 1.0], dtype=dtype)


ALL_DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64,
]
CANONICAL = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64}


# -- dtypes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda t: np.dtype(t).name)
def test_every_numeric_dtype_is_read_as_bool_int64_or_float64(dtype):
    a = extremes(dtype)
    b = a[::-1].copy()
    identity = vectorize(C.identity, fallback="error")
    out = identity(a)
    assert out.dtype == CANONICAL[np.dtype(dtype).kind]
    check(identity, C.identity, a)
    # x * 1000 overflows every narrow dtype at once: lanes must compute on Python ints/floats
    check(vectorize(C.mixed, fallback="error"), C.mixed, a, b)
    check(vectorize(C.mixed, fallback="error"), C.mixed, a[:, None], b[:3])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_narrow_floats_compute_in_double_precision(dtype):
    with np.errstate(over="ignore"):  # 3e38 is inf in float16, on purpose
        x = np.array([0.3, 0.1, 1e-3, 65504.0, 3.0e38, np.nan], dtype=dtype)
    check(vectorize(C.plus_tenth, fallback="error"), C.plus_tenth, x)


def test_bools_act_as_python_bools():
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    vf = vectorize(C.bool_arith, fallback="error")
    check(vf, C.bool_arith, a, b)
    assert vf(a, b).dtype == np.int64  # True + True is 2, not True


@pytest.mark.parametrize("value", [np.int8(-7), np.int32(2**31 - 1), np.uint64(2**63 - 1), np.uint8(255),
                                   np.float16(0.1), np.float32(3.4e38), np.bool_(True), 2**63 - 1, -(2**63)],
                         ids=repr)
def test_numpy_and_python_scalars_are_canonical(value):
    check(vectorize(C.identity, fallback="error"), C.identity, value)
    check(vectorize(C.mixed, fallback="error"), C.mixed, value, np.array([0, 1]))


def test_uint64_array_above_int64_is_refused_naming_the_argument():
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeInputError, match=r"'y'.*18446744073709551615"):
        vf(np.array([1, 2]), np.array([3, 2**64 - 1], dtype=np.uint64))
    with pytest.raises(VectorizeInputError, match=r"'y', element \(1, 0\): 9223372036854775808 ") as info:
        vf(np.array([1, 2]), np.array([[3, 4], [2**63, 2**64 - 1]], dtype=np.uint64))
    assert isinstance(info.value, TypeError)


def test_uint64_scalar_above_int64_is_refused_naming_the_argument():
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeInputError, match=r"'y'.*9223372036854775808") as info:
        vf(np.array([1, 2]), np.uint64(2**63))
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**30], ids=str)
def test_python_int_beyond_int64_is_refused_naming_the_argument(value):
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeInputError) as info:
        vf(1, value)
    assert "'y'" in str(info.value) and str(value) in str(info.value)


@pytest.mark.parametrize("value", [[1, 2**64], np.array([1, -(2**70)], dtype=object)], ids=["list", "object-array"])
def test_python_int_beyond_int64_in_an_array_is_refused_naming_argument_and_lane(value):
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeInputError) as info:
        vf(np.array([1, 2]), value)
    message = str(info.value)
    assert "'y'" in message and str(int(value[1])) in message
    assert "1" in message.split(str(int(value[1])))[0]  # the position, before the value


def test_out_of_range_element_lane_is_printed_plainly():
    vf = vectorize(C.identity, fallback="error")
    with pytest.raises(VectorizeInputError) as info:
        vf([[1, 2], [2**64, 3]])
    assert "(1, 0)" in str(info.value) and "np.int64" not in str(info.value)


def test_object_arrays_of_numbers_that_fit_are_accepted():
    """An object array's lanes are its Python numbers themselves (oracle.check reads `.item()`)."""
    ints = np.array([1, 2**62, -(2**63), 2**63 - 1, 0], dtype=object)
    small = np.array([0, 1, 2, -3, 4], dtype=object)
    out = vectorize(C.identity, fallback="error")(ints)
    assert out.dtype == np.int64 and out.tolist() == ints.tolist()
    out = vectorize(C.mixed, fallback="error")(small, small[::-1])
    assert out.dtype == np.int64 and out.tolist() == [C.mixed(a, b) for a, b in zip(small, small[::-1])]
    floats_ = np.array([0.5, -1.5, np.nan, -0.0], dtype=object)
    out = vectorize(C.plus_tenth, fallback="error")(floats_)
    np.testing.assert_array_equal(out, [C.plus_tenth(v) for v in floats_])
    assert vectorize(C.identity)(np.array([True, False], dtype=object)).dtype == np.bool_


REFUSED = {
    "complex": 1j,
    "numpy-complex": np.complex128(1.0),
    "complex-array": np.array([1.0 + 0j, 2.0]),
    "complex64-array": np.array([1.0], dtype=np.complex64),
    "str": "1.0",
    "bytes": b"1",
    "none": None,
    "object-none": np.array([1.0, None], dtype=object),
    "object-str": np.array([1.0, "2"], dtype=object),
    "object-complex": np.array([1.0, 2j], dtype=object),
    "str-array": np.array(["a", "b"]),
    "longdouble-array": np.array([1.0, 2.0], dtype=np.longdouble),
    "clongdouble-array": np.array([1.0], dtype=np.clongdouble),
    "fraction": fractions.Fraction(1, 4),
    "decimal": decimal.Decimal("0.1"),
    "fraction-array": np.array([fractions.Fraction(1, 4)], dtype=object),
    "datetime": np.array(["2020-01-01"], dtype="datetime64[D]"),
    "timedelta": np.timedelta64(3, "s"),
    "datetime-scalar": np.datetime64("2020-01-01"),
    "timedelta-array": np.array([1, 2], dtype="timedelta64[s]"),
    "object-timedelta": np.array([1.0, np.timedelta64(3, "s")], dtype=object),
    "object-longdouble": np.array([1.0, np.longdouble("0.1")], dtype=object),
    "complex64-scalar": np.complex64(1.0),
    "clongdouble-scalar": np.clongdouble(1.0),
    "dict": {"a": 1.0},
    "object": object(),
    "ragged": [[1.0, 2.0], [3.0]],
}


@pytest.mark.parametrize("value", REFUSED.values(), ids=REFUSED.keys())
def test_non_real_inputs_are_refused_naming_the_argument(value):
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeInputError) as info:
        vf(np.array([1.0, 2.0]), value)
    assert isinstance(info.value, TypeError)
    assert "'y'" in str(info.value)
    assert "'x'" not in str(info.value)


def test_longdouble_scalar_is_refused():
    vf = vectorize(C.identity, fallback="error")
    with pytest.raises(VectorizeInputError, match="'x'"):
        vf(np.longdouble("0.1"))


@pytest.mark.parametrize("value", [np.longdouble("0.1"), np.clongdouble(1.0), np.complex128(1.0), 1j,
                                   np.timedelta64(3, "s"), np.datetime64("2020-01-01")], ids=repr)
def test_scalars_are_refused_as_their_arrays_are(value):
    """A NumPy scalar is read by its dtype, exactly as an array of it (and a Python complex as
    a complex array): refused alike, with a VectorizeInputError (a TypeError) naming it."""
    vf = vectorize(C.identity, fallback="error")
    for form in (value, np.array([value])):
        with pytest.raises(VectorizeInputError, match="argument 'x'") as info:
            vf(form)
        assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64], ids=lambda t: np.dtype(t).name)
def test_unsigned_scalars_and_arrays_are_ints(dtype):
    top = min(int(np.iinfo(dtype).max), 2**63 - 1)
    for value in (dtype(top), np.array([0, 7, top], dtype=dtype), np.array([[top], [1]], dtype=dtype)):
        out = vectorize(C.identity, fallback="error")(value)
        assert out.dtype == np.int64 and np.asarray(out).tolist() == np.asarray(value).tolist()
        check(vectorize(C.mixed, fallback="error"), C.mixed, value, 3)


# -- shapes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("shapes", [((3,), (2,)), ((2, 3), (3, 2)), ((4, 1, 2), (3,))], ids=str)
def test_shapes_that_do_not_broadcast_are_refused_naming_both(shapes):
    vf = vectorize(C.mixed, fallback="error")
    with pytest.raises(VectorizeValueError) as info:
        vf(np.zeros(shapes[0]), np.ones(shapes[1]))
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "'x'" in message or "x " in message
    for name, shape in zip("xy", shapes):
        assert f"{name} {shape}" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_broadcasting_gives_the_lanes_of_the_broadcast_shape(backend):
    vf = vectorize(C.mixed, fallback="error", backend=backend_or_skip(backend))
    x = np.array([[-1.0], [0.5], [np.nan]])
    y = np.array([0.0, 1.0, -np.inf, 0.5])
    out = vf(x, y)
    assert out.shape == (3, 4)
    check(vf, C.mixed, x, y)
    check(vf, C.mixed, y, x)
    check(vf, C.mixed, np.array([2.0]), y)  # a size-1 array broadcasts like a scalar
    check(vf, C.mixed, np.array(2.0), y.reshape(2, 2))
    check(vf, C.mixed, 3, np.arange(6).reshape(2, 1, 3))
    check(vectorize(C.both, backend=backend), C.both, x, y)


def test_empty_inputs_give_empty_results_of_the_right_dtype():
    identity = vectorize(C.identity, fallback="error")
    for dtype, expected in [(np.float64, np.float64), (np.float32, np.float64), (np.int8, np.int64),
                            (np.int64, np.int64), (np.bool_, np.bool_)]:
        out = identity(np.zeros(0, dtype=dtype))
        assert out.shape == (0,) and out.dtype == expected, (dtype, out.dtype)
    assert vectorize(C.flags)(np.zeros(0)).dtype == np.bool_
    assert vectorize(C.mixed)(np.zeros(0, dtype=np.int64), 3).dtype == np.int64
    out = vectorize(C.mixed)(np.zeros((0, 3)), np.ones(3))
    assert out.shape == (0, 3) and out.dtype == np.float64
    pair = vectorize(C.both)(np.zeros(0), 1.0)
    assert isinstance(pair, tuple) and [(p.shape, p.dtype) for p in pair] == [((0,), np.float64)] * 2
    check(vectorize(C.both), C.both, np.zeros((2, 0)), np.zeros((1, 0)))
    check(vectorize(K.collatz_steps), K.collatz_steps, np.zeros(0, dtype=np.int64))
    check(vectorize(K.escape_time), K.escape_time, np.zeros(0), np.zeros(0), 50)


# Functions the engine refuses (`try`), so that they run element by element: what do they return
# on an empty batch, where there is no lane to run? Their source says, or the call refuses.
PAIR = (1.0, 2.0)


def pair_by_names(x, *, shift=1.0):
    try:
        lo = x - shift
    finally:
        pass
    result = (lo, lo + 2.0 * shift)
    return result


def pair_from_module_tuple(x):
    try:
        if x > 0.0:
            return x, -x
    finally:
        pass
    return PAIR


def single_by_names(x, n=3):
    try:
        y = x * 2.0
    finally:
        pass
    for _ in range(n):
        y = max(y, 0.5) + math.sqrt(abs(y))
    y += 1
    return y if y > 1.0 else -y


def single_or_pair(x):
    try:
        if x > 0.0:
            return x, x
    finally:
        pass
    return x


def pair_from_a_call(x):
    try:
        q = divmod(x, 2.0)
    finally:
        pass
    return q


def growing_tuple(x):
    try:
        t = ()
    finally:
        pass
    for _ in range(3):
        t = t + (x,)
    return t


@pytest.mark.parametrize("func, arity", [
    (pair_by_names, 2), (pair_from_module_tuple, 2), (single_by_names, None), (C.both, 2), (C.mixed, None),
    (C.keyword_only_overflow, None),
], ids=lambda v: getattr(v, "__name__", repr(v)))
def test_an_empty_batch_that_runs_element_by_element_keeps_the_result_structure(func, arity, monkeypatch):
    for disabled in ("0", "1"):  # the fallback, and VECTORIZER_DISABLE=1 (every function lane by lane)
        monkeypatch.setenv("VECTORIZER_DISABLE", disabled)
        vf = vectorize(func)
        required = [q for q in inspect.signature(func).parameters.values() if q.default is q.empty]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FallbackWarning)
            check(vf, func, *[np.array([1.5, -2.0, 3.0])] * len(required))  # the structure the lanes give
            got = vf(*[np.zeros((0, 2))] * len(required))
        if arity is None:
            assert isinstance(got, np.ndarray) and got.shape == (0, 2)
        else:
            assert isinstance(got, tuple) and [g.shape for g in got] == [(0, 2)] * arity


@pytest.mark.parametrize("func", [single_or_pair, pair_from_a_call, growing_tuple], ids=lambda f: f.__name__)
def test_an_empty_batch_with_an_unknown_result_structure_is_refused(func):
    vf = vectorize(func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        with pytest.raises(VectorizeValueError, match="empty batch.*one value or a tuple is unknown"):
            vf(np.zeros(0))
        check(vf, func, np.array([2.5, 1.0]))  # a batch with lanes runs as the loop does


def test_scalars_and_0d_arrays_give_numpy_scalars():
    mixed = vectorize(C.mixed, fallback="error")
    for args in [(2.0, 1.0), (np.array(2), np.array(5)), (True, False), (np.float32(1.5), 2), (np.array(-0.0), -1)]:
        out = mixed(*args)
        assert isinstance(out, np.generic) and np.ndim(out) == 0, (args, type(out))
        check(mixed, C.mixed, *args)
    assert isinstance(vectorize(C.identity)(True), np.bool_)
    assert isinstance(vectorize(C.flags)(np.array(1.0)), np.bool_)
    pair = vectorize(C.both)(2.0, np.array(3.0))
    assert isinstance(pair, tuple) and all(isinstance(p, np.float64) for p in pair)


def test_lists_and_tuples_are_arrays():
    vf = vectorize(C.mixed, fallback="error")
    check(vf, C.mixed, [1.0, -2.0, 3.5], (0.0, 0.0, 5.0))
    check(vf, C.mixed, [[1, 2], [3, 4]], [0, 3])


# -- memory layouts; inputs are never modified ---------------------------------------------------


def layouts(base: np.ndarray) -> dict[str, np.ndarray]:
    """The same kind of values in every memory layout a caller may pass."""
    grid = base.reshape(4, -1)
    readonly = grid.copy()
    readonly.flags.writeable = False
    return {
        "c-order": grid.copy(),
        "read-only": readonly,
        "step-2": base.copy()[::2],
        "reversed": base.copy()[::-1],
        "transposed": grid.copy().T,
        "fortran": np.asfortranarray(grid),
        "column-slice": grid.copy()[:, 1::2],
        "0-d": np.array(base[3]),
    }


MUTATING = {  # functions that rebind their parameters, with a pool of values for them
    "countdown": (C.countdown, lambda: np.array([3.0, -1.0, 0.0, 7.5, np.nan, -0.0, 1.5, 10.0] * 3)),
    "halve": (C.halve, lambda: np.array([1, 2, 3, -5, 0, 2**62, 77, 1000] * 3)),
    "collatz": (K.collatz_steps, lambda: np.array([1, 6, 27, 97, 5, 2, 3, 12] * 3)),
    "mixed": (C.mixed, lambda: np.array([1.0, -2.0, np.inf, np.nan, 0.0, -0.0, 5.0, 3.0] * 3)),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(MUTATING))
def test_any_layout_gives_the_right_lanes_and_is_never_modified(name, backend):
    func, pool = MUTATING[name]
    vf = vectorize(func, fallback="error", backend=backend_or_skip(backend))
    nargs = func.__code__.co_argcount
    for label, arr in layouts(pool()).items():
        other = [arr[::-1] if arr.ndim else arr for _ in range(nargs - 1)]
        args = [arr, *other]
        snapshot = [(a.tobytes(), a.strides, a.flags.writeable, a.dtype) for a in args]
        base = arr.base.tobytes() if arr.base is not None else None
        check(vf, func, *args)
        assert [(a.tobytes(), a.strides, a.flags.writeable, a.dtype) for a in args] == snapshot, label
        if base is not None:
            assert arr.base.tobytes() == base, label


def test_large_batches_are_never_modified():
    """Above the chunk size the runtime runs chunks on threads: still no writes into inputs."""
    rng = np.random.default_rng(7)
    x = rng.uniform(-3.0, 30.0, 70_000)
    x[::997] = np.nan
    n = rng.integers(-5, 10**5, 70_000)
    x_before, n_before = x.tobytes(), n.tobytes()
    expected = [C.countdown(v) for v in x[:500].tolist()]
    out = vectorize(C.countdown, fallback="error")(x)
    np.testing.assert_array_equal(out[:500], expected)
    vectorize(C.halve, fallback="error")(n)
    assert x.tobytes() == x_before and n.tobytes() == n_before


# -- hostile values everywhere ---------------------------------------------------------------


@SETTINGS
@given(st.sampled_from([np.float16, np.float32, np.float64]), st.lists(floats(), min_size=0, max_size=12),
       st.lists(floats(), min_size=1, max_size=1))
def test_nan_inf_and_signed_zero_in_any_float_dtype(dtype, xs, ys):
    with np.errstate(over="ignore"):  # narrowing huge floats to float16/32 gives inf, on purpose
        x = np.array(xs, dtype=dtype)
    y = np.array(ys * len(xs), dtype=np.float64)
    check(vectorize(C.mixed), C.mixed, x, y)
    check(vectorize(C.hypot_like), C.hypot_like, x, y)
    check(vectorize(C.both), C.both, x, y)
    check(vectorize(C.flags), C.flags, x)


# -- arguments as in the call of the original ------------------------------------------------


def test_keywords_and_defaults_bind_like_the_original():
    vf = vectorize(C.keywords, fallback="error")
    x = np.array([1.0, -2.0, np.nan])
    for kwargs in [{}, {"n": 2}, {"scale": 0.5}, {"n": np.array([1, 2, 3]), "scale": -1.0}]:
        expected = [C.keywords(v, **{k: (w if np.ndim(w) == 0 else w[i].item()) for k, w in kwargs.items()})
                    for i, v in enumerate(x.tolist())]
        np.testing.assert_array_equal(vf(x, **kwargs), expected)
    np.testing.assert_array_equal(vf(x=x, n=4), [C.keywords(v, 4) for v in x.tolist()])
    np.testing.assert_array_equal(vf(scale=2.0, x=x), [C.keywords(v, scale=2.0) for v in x.tolist()])


@pytest.mark.parametrize("args, kwargs", [
    ((), {}),  # missing x
    ((1.0, 2, 3.0), {}),  # scale is keyword-only
    ((1.0,), {"bogus": 1}),  # unknown keyword
    ((1.0,), {"x": 2.0}),  # x given twice
    ((1.0, 2), {"n": 3}),  # n given twice
], ids=["missing", "too-many", "unknown-keyword", "duplicate-x", "duplicate-n"])
def test_bad_calls_raise_type_error_like_the_original(args, kwargs):
    with pytest.raises(TypeError):
        C.keywords(*args, **kwargs)
    vf = vectorize(C.keywords, fallback="error")
    with pytest.raises(TypeError) as info:
        vf(*[np.asarray(a) for a in args], **kwargs)
    assert not isinstance(info.value, VectorizeInputError), "a call error, not an input error"


@pytest.mark.parametrize("func, args", [
    (C.keyword_only_raises, (np.array([1.0, 20.0, 3.0]),)),
    (C.keyword_only_overflow, (np.array([2**62, 5, -(2**62)]),)),
], ids=["raise", "overflow-patch"])
def test_keyword_only_parameters_survive_flag_and_patch(func, args):
    check(vectorize(func, fallback="error"), func, *args)


def test_keyword_only_parameters_without_patching():
    vf = vectorize(C.keyword_only_raises, fallback="error")
    np.testing.assert_array_equal(vf(np.array([1.0, 2.0]), limit=5.0), [2.0, 4.0])


def test_keyword_only_argument_given_by_the_caller_reaches_the_patched_lane():
    with pytest.raises(ValueError) as want:
        C.keyword_only_raises(20.0, limit=5.0)
    with pytest.raises(ValueError) as got:
        vectorize(C.keyword_only_raises, fallback="error")(np.array([1.0, 20.0]), limit=5.0)
    assert str(got.value) == str(want.value)
    b = np.array([3, -7])
    out = vectorize(C.keyword_only_overflow, fallback="error")(np.array([2**62, 5]), b=b)
    assert out.tolist() == [C.keyword_only_overflow(a, b=k) for a, k in zip([2**62, 5], b.tolist())]


def sum_of_rest(x, *rest):
    return x + sum(rest)


def plus_keywords(x, **extra):
    return x + extra.get("y", 0.0)


def test_variadic_parameters_run_through_numpy_vectorize_not_spread_over_lanes():
    """*rest = (3.0, 4.0) is one lane's tuple, not two lanes' values: the engine refuses such a
    function (at decoration with fallback="error"); by default it runs through numpy.vectorize,
    as a drop-in must (issue 31), with a FallbackWarning."""
    x = np.array([1.0, 2.0])
    for func, args, kwargs in ((sum_of_rest, (x, 3.0, 4.0), {}), (plus_keywords, (x,), {"y": 3.0})):
        with pytest.raises(VectorizeError, match=r"'\*args'|'\*\*kwargs'|\*rest|\*\*extra"):
            vectorize(func, fallback="error")(*args, **kwargs)
        for options in ({}, {"otypes": "d"}):
            with pytest.warns(FallbackWarning, match="numpy.vectorize"):
                got = vectorize(func, **options)(*args, **kwargs)
            np.testing.assert_array_equal(got, np.vectorize(func, **options)(*args, **kwargs))


def test_keyword_only_parameters_element_by_element(monkeypatch):
    """The per-element loop (fallback, VECTORIZER_DISABLE=1) calls keyword-only parameters by name."""
    monkeypatch.setenv("VECTORIZER_DISABLE", "1")
    check(vectorize(C.keyword_only_raises), C.keyword_only_raises, np.array([1.0, 20.0, 3.0]))
    check(vectorize(C.keyword_only_overflow), C.keyword_only_overflow, np.array([2**62, 5]))
