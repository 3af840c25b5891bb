"""Vectorized functions on xarray objects (issue 32): dims broadcast by name, coords kept, lazy
when dask-backed; values against the scalar function lane by lane."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

xr = pytest.importorskip("xarray")
da = pytest.importorskip("dask.array")

from vectorizer import vectorize  # noqa: E402

MAGNUS_A, MAGNUS_B = 17.27, 237.7


@vectorize
def dew_point(t: float, rh: float) -> float:
    if rh <= 0.0:
        raise ValueError(f"relative humidity {rh} at {t}")
    g = MAGNUS_A * t / (MAGNUS_B + t) + math.log(rh / 100.0)
    return MAGNUS_B * g / (MAGNUS_A - g)


@vectorize
def split(x: float, y: float):
    return x - y, x > y


def fields():
    rng = np.random.default_rng(7)
    t = xr.DataArray(rng.uniform(-30, 40, (4, 5)), dims=("time", "x"),
                     coords={"time": np.arange(4), "x": np.linspace(0, 1, 5)}, attrs={"units": "degC"}, name="t2m")
    rh = xr.DataArray(rng.uniform(5, 100, (5, 3)), dims=("x", "level"),
                      coords={"x": np.linspace(0, 1, 5), "level": [1000, 850, 500]})
    return t, rh


def expected_by_name(f, t, rh):
    """The scalar function on each (time, x, level) lane, dims matched by name."""
    tb, rb = xr.broadcast(t, rh)
    tb, rb = tb.transpose("time", "x", "level"), rb.transpose("time", "x", "level")
    return np.array([f(a, b) for a, b in zip(tb.values.ravel().tolist(), rb.values.ravel().tolist())]), tb


@pytest.mark.parametrize("lazy", [False, True])
def test_dims_broadcast_by_name_and_coords_kept(lazy):
    t, rh = fields()
    if lazy:
        t, rh = t.chunk({"time": 3, "x": 2}), rh.chunk({"level": 2})
    out = dew_point(t, rh)
    assert isinstance(out, xr.DataArray) and set(out.dims) == {"time", "x", "level"}
    assert isinstance(out.data, da.Array) is lazy and out.dtype == np.float64
    values, tb = expected_by_name(dew_point.scalar, t, rh)
    got = out.transpose("time", "x", "level")
    assert all(np.array_equal(got[c].values, tb[c].values) for c in ("time", "x", "level"))
    computed = got.values.ravel()
    bound = np.abs(values) * 8 * np.finfo(float).eps + 1e-300  # log through NumPy: a few ulp
    assert np.all(np.abs(computed - values) <= bound), np.max(np.abs(computed - values) / bound)


def test_tuple_returns_and_datasets():
    t, rh = fields()
    diff, bigger = split(t.chunk({"x": 2}), rh)
    tb, rb = xr.broadcast(t, rh)
    assert diff.dtype == np.float64 and bigger.dtype == np.bool_
    assert np.array_equal(diff.transpose(*tb.dims).values, (tb - rb).values)
    assert np.array_equal(bigger.transpose(*tb.dims).values, (tb > rb).values)
    ds = xr.Dataset({"a": t, "b": t * 2.0})
    out, flags = split(ds, 1.0)
    assert isinstance(out, xr.Dataset) and set(out.data_vars) == {"a", "b"}
    assert out["b"].values.tolist() == [[v - 1.0 for v in row] for row in (t * 2.0).values.tolist()]
    assert flags["a"].values.tolist() == [[v > 1.0 for v in row] for row in t.values.tolist()]


def test_first_failing_lane_over_the_whole_array():
    t, rh = fields()
    rh = rh.copy(data=rh.values)
    rh[3, 2] = -1.0  # x = 3, level = 500: lanes (time, 3, 2) fail; time = 0 is the first
    rh[1, 0] = 0.0  # x = 1, level = 1000: lanes (time, 1, 0) fail first in C order
    out = dew_point(t.chunk({"time": 1, "x": 2}), rh.chunk({"level": 1}))
    with pytest.raises(ValueError, match=re.escape(f"relative humidity 0.0 at {t.values[0, 1].item()!r}")) as info:
        out.compute(scheduler="threads")
    assert "on lane (0, 1, 0) of (4, 5, 3)" in "".join(info.value.__notes__), info.value.__notes__
