"""The test oracle: the scalar function itself, run lane by lane on Python scalars (`.item()`).

`check(vf, f, *args)` runs both and asserts the contract of docs/internals.md:
* the same exception type and message as the first failing lane in C order (with a note naming it);
* otherwise, per lane: ints identical, bools identical, floats bit-identical (NaN matches NaN,
  -0.0 differs from 0.0), or within `ulps` for libm-dependent (Class B) functions;
* a result dtype that can hold every lane: bool, int64, or float64 (ints exactly).
"""

from __future__ import annotations

import math
import os
import re
import struct
import warnings

import numpy as np

INT64 = (-(2**63), 2**63 - 1)


class BigInt(Exception):
    """The scalar function returned an int beyond int64: the batched call must refuse it."""


class Raised:
    def __init__(self, exc: BaseException, lane: tuple) -> None:
        self.exc, self.lane = exc, lane


def lanes(*args, example_ndims=None):
    """Each lane's arguments: Python numbers (`.item()`), or a copy of the lane's own array."""
    arrays = [np.asarray(a) for a in args]
    ndims = example_ndims or [0] * len(arrays)
    lead = [a.shape[: a.ndim - k] for a, k in zip(arrays, ndims)]
    shape = np.broadcast_shapes(*lead)
    arrays = [np.broadcast_to(a, shape + a.shape[a.ndim - k:]) for a, k in zip(arrays, ndims)]
    indices = list(np.ndindex(shape))
    return shape, [tuple(np.array(a[idx]) if k else a[idx].item() for a, k in zip(arrays, ndims)) for idx in indices], indices


class NotReal(Exception):
    """The scalar function returned a complex number: the batched call must refuse it."""


class NotANumber(Exception):
    """The scalar function returned None (or a string): the batched call must refuse it."""


def oracle(f, *args, example_ndims=None, allow_big: bool = False):
    """Each lane's result, or the first lane's exception. An int beyond int64 is a BigInt failure
    unless `allow_big` (it may still be stored, in a float64 result that holds it exactly), a
    complex number a NotReal failure, None or a string a NotANumber one: the first such lane's,
    when no lane raises (a loop raises the first failing lane's exception whatever earlier lanes
    returned)."""
    shape, all_lanes, indices = lanes(*args, example_ndims=example_ndims)
    out = []
    refused = None
    for lane, idx in zip(all_lanes, indices):
        try:
            value = f(*lane)
        except Exception as exc:  # the oracle's own exception is the expected outcome
            return Raised(exc, tuple(int(i) for i in idx))
        if refused is None:
            for v in value if isinstance(value, tuple) else (value,):
                if isinstance(v, complex):
                    refused = Raised(NotReal(v), tuple(int(i) for i in idx))
                elif v is None or isinstance(v, str):
                    refused = Raised(NotANumber(v), tuple(int(i) for i in idx))
                elif isinstance(v, int) and not isinstance(v, bool) and not INT64[0] <= v <= INT64[1] \
                        and not allow_big:  # an int that int64 cannot hold is refused, never wrapped
                    refused = Raised(BigInt(v), tuple(int(i) for i in idx))
                if refused is not None:
                    break
        out.append(value)
    return refused if refused is not None else (shape, out)


def _exact_float(value: int) -> bool:
    """The README's rule for an int in a float64 (mixed int/float) result: stored when exact."""
    try:
        return float(value) == value
    except OverflowError:
        return False


_INEXACT = re.compile(r"returned the int (-?\d+) on lane (\([\d, ]*\)), which float64 cannot hold exactly")


def _inexact_int_refusal(exc: Exception, f, args, example_ndims) -> bool:
    """A result typed int-or-float is float64, so an int that float64 cannot hold exactly is
    refused (README). The static type is invisible to the oracle, whose lanes may all return
    ints: the refusal is right when its lane's int is such an int, in a result slot where no
    earlier lane returned one, and no lane raises (a raising lane's exception wins)."""
    from vectorizer import VectorizeOverflowError

    match = _INEXACT.search(str(exc))
    if not isinstance(exc, VectorizeOverflowError) or match is None:
        return False
    value, lane = int(match[1]), match[2]
    inexact_before: set[int] = set()  # the result slots where an earlier lane gave such an int
    found = False
    _, all_lanes, indices = lanes(*args, example_ndims=example_ndims)
    for one, idx in zip(all_lanes, indices):
        try:
            result = f(*one)
        except Exception:  # noqa: BLE001 - a failing lane: the ordinary check applies
            return False
        results = result if isinstance(result, tuple) else (result,)
        inexact = {k for k, v in enumerate(results) if type(v) is int and not _exact_float(v)}
        if str(tuple(int(i) for i in idx)) == lane:
            if not any(results[k] == value for k in inexact - inexact_before):
                return False
            found = True
        inexact_before |= inexact
    return found


def ulp_distance(a: float, b: float) -> int:
    ia = struct.unpack("<q", struct.pack("<d", a))[0]
    ib = struct.unpack("<q", struct.pack("<d", b))[0]
    ia = ia if ia >= 0 else -(2**63) - ia
    ib = ib if ib >= 0 else -(2**63) - ib
    return abs(ia - ib)


def same_value(expected, got, ulps: int = 0) -> bool:
    if isinstance(expected, bool):
        return isinstance(got, bool) and got is expected
    if isinstance(expected, int):
        return isinstance(got, int | float) and not isinstance(got, bool) and got == expected and (
            isinstance(got, int) or _exact_float(expected))
    if isinstance(got, bool) or not isinstance(got, float):
        return False
    if math.isnan(expected):
        return math.isnan(got)
    if expected == got:
        return math.copysign(1.0, expected) == math.copysign(1.0, got)
    if ulps and math.isfinite(expected) and math.isfinite(got):
        return ulp_distance(expected, got) <= ulps
    return False


def check(vf, f, *args, ulps: int = 0, rel: float = 0.0, example_ndims=None):
    """Assert that vf(*args) keeps the contract against the scalar oracle f. With
    `example_ndims`, each argument's last dimensions are one lane's array (vf.call_lanes)."""
    expected = oracle(f, *args, example_ndims=example_ndims)
    with warnings.catch_warnings():
        # A RuntimeWarning of the batched code (a generated module, vz_<key>, or the engine) is a
        # leak from a lane that would not run; the scalar function, re-run on a flagged lane,
        # warns as the loop does (inf - inf of NumPy scalars), which the oracle lets pass too.
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"(vz_|vectorizer)")
        # An engine bug falls back to the exact element-by-element loop with a FallbackWarning: the
        # values are right, but the test must not pass on the fallback.
        warnings.filterwarnings("error", message=".*a vectorizer bug", category=UserWarning)
        try:
            got = vf.call_lanes(list(args), list(example_ndims)) if example_ndims else vf(*args)
        except Exception as exc:  # compared with the oracle's exception below
            if _inexact_int_refusal(exc, f, args, example_ndims):
                return
            big = isinstance(expected, Raised) and isinstance(expected.exc, BigInt)
            # An int64 result cannot hold it; a float64 one must, when the value is exact there.
            if big and (not _exact_float(expected.exc.args[0]) or "does not fit in int64" in str(exc)):
                from vectorizer import VectorizeOverflowError

                assert isinstance(exc, VectorizeOverflowError), exc
                assert f"lane {expected.lane}" in str(exc) and str(expected.exc.args[0]) in str(exc), (exc, expected.lane)
                return
            if big:  # exact as a float, which a float64 (mixed int/float) result holds: the first
                # lane that raises is a later one
                expected = oracle(f, *args, example_ndims=example_ndims, allow_big=True)
            if isinstance(expected, Raised) and isinstance(expected.exc, NotANumber):
                from vectorizer import VectorizeValueError

                what = "None" if expected.exc.args[0] is None else "a str"
                assert isinstance(exc, VectorizeValueError) and f"returned {what}" in str(exc), exc
                assert f"lane {expected.lane}" in str(exc), (exc, expected.lane)
                return
            if isinstance(expected, Raised) and isinstance(expected.exc, NotReal):
                from vectorizer import VectorizeValueError

                assert isinstance(exc, VectorizeValueError) and "complex" in str(exc), exc
                assert f"lane {expected.lane}" in str(exc), (exc, expected.lane)
                return
            if isinstance(expected, Raised):
                assert type(exc) is type(expected.exc), (exc, expected.exc, expected.lane)
                assert str(exc) == str(expected.exc), (str(exc), str(expected.exc))
                notes = " ".join(getattr(exc, "__notes__", []))
                assert f"lane {expected.lane}" in notes or expected.lane == (), (notes, expected.lane)
                return
            raise AssertionError(f"batched call raised {exc!r} but every lane of the scalar function returned") from exc
    if isinstance(expected, Raised) and isinstance(expected.exc, BigInt) and _exact_float(expected.exc.args[0]):
        # Beyond int64 but exact as a float: a float64 (mixed int/float) result may hold it.
        expected = oracle(f, *args, example_ndims=example_ndims, allow_big=True)
    if isinstance(expected, Raised):
        raise AssertionError(f"scalar function raises {expected.exc!r} on lane {expected.lane}, batched returned {got!r}")
    shape, values = expected
    if not values and isinstance(got, tuple):  # an empty batch of a tuple-returning function
        for column in got:
            _compare([], column, shape, ulps, rel)
    elif values and isinstance(values[0], tuple):
        assert isinstance(got, tuple) and len(got) == len(values[0]), got
        for k, column in enumerate(zip(*values)):
            _compare(list(column), got[k], shape, ulps, rel)
    else:
        _compare(values, got, shape, ulps, rel)


def _compare(values, got, shape, ulps, rel):
    arr = np.asarray(got)
    if not values:  # no lanes: the result's own per-lane shape is unknowable from the oracle
        assert arr.shape[: len(shape)] == shape, (arr.shape, shape)
        return
    if values and isinstance(values[0], np.ndarray | np.generic) and np.ndim(values[0]):
        assert arr.shape == shape + values[0].shape, (arr.shape, shape)
        for idx, expected in zip(np.ndindex(shape), values):
            for e, g in zip(np.ravel(expected).tolist(), np.ravel(arr[idx]).tolist()):
                assert same_value(float(e), float(g), ulps) or (rel and math.isclose(e, g, rel_tol=rel)), (idx, expected, arr[idx])
        return
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    assert arr.shape == shape, (arr.shape, shape)
    if shape == ():
        assert isinstance(got, np.generic), type(got)
    kinds = {type(v) for v in values}
    if arr.dtype == np.bool_:
        assert kinds <= {bool}, kinds
    elif arr.dtype == np.int64:
        assert kinds <= {int, bool}, kinds
    else:
        assert arr.dtype == np.float64, arr.dtype
    for idx, expected in zip(np.ndindex(shape), values):
        value = arr[idx].item()
        if isinstance(expected, bool) and arr.dtype != np.bool_:
            expected = int(expected)
        if isinstance(expected, int) and arr.dtype == np.float64:
            assert _exact_float(expected) and value == expected, (idx, expected, value)
            continue
        if rel and isinstance(expected, float) and isinstance(value, float) and math.isfinite(expected):
            assert math.isclose(expected, value, rel_tol=rel, abs_tol=rel * 1e-300) or same_value(expected, value, ulps), (idx, expected, value)
            continue
        assert same_value(expected, value, ulps), (idx, expected, value, ulp_distance(expected, value) if isinstance(expected, float) and isinstance(value, float) else None)


def numpy_simd_math() -> bool:
    """NumPy's float64 exp/log/pow/sin/... are its AVX-512 SIMD kernels here, a few ulp from the C
    library's (within rules.ULP_BOUND; NPY_DISABLE_CPU_FEATURES turns them off), or the jitter
    switch (libm_jitter.py) moves them as such kernels would: either way NumPy's values of them
    are not CPython's bit for bit."""
    from numpy._core._multiarray_umath import __cpu_features__ as features

    return bool(features.get("AVX512F") and features.get("AVX512_SKX")) or bool(
        os.environ.get("VECTORIZER_TEST_LIBM_JITTER"))


def simd_ulps() -> int:
    """The ulps a NumPy-computed exp/log/pow/... may be from CPython's here: 0 where NumPy calls the
    C library, rules.ULP_BOUND where its SIMD kernels run (`numpy_simd_math`)."""
    from vectorizer.rules.base import ULP_BOUND

    return ULP_BOUND if numpy_simd_math() else 0


class _MovedMath:
    """A module (`math`, or `numpy` for a scalar function that calls np.exp on numbers) with some
    functions' finite nonzero results moved `steps` ulp."""

    def __init__(self, names: tuple[str, ...], steps: int, module=math) -> None:
        self._names, self._steps, self._module = names, steps, module

    def __getattr__(self, name: str):
        real = getattr(self._module, name)
        if name not in self._names:
            return real

        def moved(*args):
            value = real(*args)
            for _ in range(abs(self._steps)):
                if math.isfinite(value) and value != 0.0:  # NumPy's exact cases stay exact too
                    value = math.nextafter(value, math.copysign(math.inf, self._steps))
            return value

        return moved


def libm_ulps(f, *args, names: tuple[str, ...], bound: int | None = None, module: str = "math") -> int:
    """The `ulps` for `check(vf, f, *args)` on the NumPy backend when f's values depend on the
    `math.<names>` results of the lane only through non-decreasing steps (+, * by a positive
    number, a non-decreasing function...): with each such result within `bound` ulp of CPython's
    (rules.ULP_BOUND per operation), every lane lies between f's values with all of them moved
    `bound` ulp down and up (rounding is monotone), so the largest distance from f's own value to
    those two is a bound derived for f. Lanes where f raises or returns a non-float add nothing
    (`check` compares them exactly). f must read `math` (or the `module` named: "np" for NumPy's
    functions called on numbers) as a module global."""
    from vectorizer.rules import scalar as rules

    bound = rules.ULP_BOUND if bound is None else bound
    _, all_lanes, _ = lanes(*args)
    namespace = f.__globals__
    saved = namespace[module]
    worst = 0
    for lane in all_lanes:
        try:
            value = f(*lane)
            if not isinstance(value, float) or not math.isfinite(value):
                continue
            for steps in (-bound, bound):
                namespace[module] = _MovedMath(names, steps, saved)
                edge = f(*lane)
                worst = max(worst, ulp_distance(value, edge) if isinstance(edge, float) and math.isfinite(edge) else 0)
        except Exception:  # noqa: BLE001, S112 - a raising lane is compared exactly by check
            continue
        finally:
            namespace[module] = saved
    return worst


OWN_KERNEL = "NumPy's own"  # the refusal's words where lane code cannot give NumPy's values here


def numba_or_numpy(f, args, **options):
    """`vectorize(f, backend="numba", ...)`, except where the function calls a NumPy function
    whose kernel on this CPU gives other bits than the C library's (core/numpy_kernels.py): there
    the Numba backend must refuse it (checked on `args`), and `backend="auto"` runs NumPy's route,
    whose values are NumPy's."""
    from vectorizer import VectorizeError, vectorize

    vf = vectorize(f, backend="numba", **options)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            vf(*args)
    except VectorizeError as exc:
        if OWN_KERNEL not in str(exc):
            raise
        return vectorize(f, backend="auto", **options)
    except Exception:  # noqa: BLE001, S110 - a lane's own exception: the kernel compiled; check() compares it
        pass
    return vf


def numpy_functions(f, **options):
    """`vectorize(f, backend="numpy", **options)` computing exp, log, pow... with NumPy's own
    functions (exact=False without vector math): the NumPy route as generated modules and a
    process without Numba run it, whose values keep the contract within the ulp bound and whose
    discrete outcomes stay exact. The default (exact=True) computes them as CPython does."""
    from vectorizer import vectorize

    vf = vectorize(f, backend="numpy", **options)
    vf.options = vf.options.replace(exact=False, vector_math=False)
    return vf
