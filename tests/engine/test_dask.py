"""Vectorized functions on dask arrays (issue 32): values and exceptions against the scalar oracle,
lane by lane, on ragged chunks, with the threaded scheduler and a real LocalCluster of processes."""

from __future__ import annotations

import json
import math
import pickle
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

from oracle import check  # noqa: E402

from vectorizer import (  # noqa: E402
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    vectorize,
)
from vectorizer.backends.numba import jit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCALE = 3.0
HOSTILE = [0.0, -0.0, 1.0, -1.0, 2.5, 1e-310, -5e-324, 1e308, -1.7e308, math.inf, -math.inf, math.nan,
           3.0, 1e16, 0.1, -7.25, 123456.789, 2.0**-1074, 1e-5, 99.0, -100.0]
BIG = [2**63 - 1, -(2**63), 2**62, 3, -3, 0, 2**63 - 2, -(2**63) + 1, 7, 2**53 + 1]


def shrink_core(x: float, k: int) -> float:
    if x != x:
        return -1.0
    n = 0
    while abs(x) > 1.0 and n < k:
        x = x / SCALE
        n += 1
    return x * n if n else math.copysign(0.0, x)


shrink = vectorize(shrink_core)


@vectorize
def polar(x: float, y: float):
    return math.hypot(x, y), x > y, int(x < 0.0) + 2 * int(y < 0.0)


@vectorize
def picky(x: float, y: float) -> float:
    if x < -1.0:
        raise ValueError(f"negative {x} at {y}")
    return 1.0 / (x + y)


@vectorize
def add_ints(a: int, b: int) -> int:
    return a + b


def ragged(n: int, seed: int) -> tuple[int, ...]:
    """Chunks of 1..n//2 lanes, at random cuts."""
    if n < 2:
        return (n,)
    rng = np.random.default_rng(seed)
    cuts = sorted(set(rng.integers(1, n, size=max(1, n // 4)).tolist()))
    edges = [0, *cuts, n]
    return tuple(b - a for a, b in zip(edges, edges[1:]) if b > a)


class OnDask:
    """`vf` as the oracle calls it (NumPy arguments in, NumPy results out), run through dask
    arrays with ragged chunks; the results' dtypes are checked against the graph's promise."""

    def __init__(self, vf, scheduler, seed: int = 0) -> None:
        self.vf, self.scheduler, self.seed = vf, scheduler, seed

    def __call__(self, *args):
        lazy = [da.from_array(a, chunks=tuple(ragged(n, self.seed + i) for i, n in enumerate(a.shape)))
                if isinstance(a, np.ndarray) and a.ndim else a for a in args]
        out = self.vf(*lazy)
        outs = out if isinstance(out, tuple) else (out,)
        assert all(isinstance(o, da.Array) for o in outs), outs
        got = dask.compute(*outs, scheduler=self.scheduler)
        for o, g in zip(outs, got):
            assert o.dtype == g.dtype and o.shape == g.shape, (o, g.dtype, g.shape)
        return tuple(got) if isinstance(out, tuple) else got[0]


def hostile(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([HOSTILE[i] for i in rng.integers(0, len(HOSTILE), n)])


@pytest.mark.parametrize("seed", [1, 2])
def test_values_on_ragged_chunks_threads(seed):
    check(OnDask(shrink, "threads", seed), shrink_core, hostile(97, seed), np.int64(40))
    check(OnDask(shrink, "threads", seed), shrink_core, hostile(60, seed).reshape(6, 10),
          np.arange(10, dtype=np.int64) * 7)


def test_broadcasting_dask_with_numpy_and_scalars():
    x = np.linspace(-3, 3, 35).reshape(5, 7)
    column = np.array([[0.5], [-2.0], [math.nan], [-0.0], [4.0]])
    check(OnDask(polar, "threads"), polar.scalar, x[0], column)  # (7,) with (5, 1): a (5, 7) grid
    check(OnDask(polar, "threads"), polar.scalar, column, 1.5)
    lazy = polar(da.from_array(x[0], chunks=3), column)  # NumPy stays NumPy in the caller's hands
    assert lazy[0].shape == (5, 7) and lazy[0].chunks[1] == (3, 3, 1)


def test_tuple_returns_have_their_dtypes_before_computing():
    x, y = da.from_array(hostile(30, 3), chunks=7), da.from_array(hostile(30, 4), chunks=11)
    r, bigger, quadrant = polar(x, y)
    assert (r.dtype, bigger.dtype, quadrant.dtype) == (np.float64, np.bool_, np.int64)
    assert r.chunks == bigger.chunks == (x + y).chunks != x.chunks  # aligned as Dask's own elementwise ops
    check(OnDask(polar, "threads", 5), polar.scalar, hostile(30, 3), hostile(30, 4))


def test_nothing_runs_until_computed():
    calls = []

    def source(block):
        calls.append(block.shape)
        return block

    x = da.map_blocks(source, da.from_array(np.array([1.0, -5.0, 2.0, 0.0]), chunks=2), meta=np.empty(0))
    out = picky(x, 1.0)  # lane 1 would raise: nothing runs yet
    assert calls == [] and out.dtype == np.float64
    with pytest.raises(ValueError, match="negative -5.0 at 1.0"):
        out.compute(scheduler="threads")
    assert calls


def test_first_failing_lane_in_c_order_across_chunks():
    x = np.zeros(40)
    x[[31, 17, 23]] = -2.0  # three chunks fail; lane 17 is the first
    y = np.ones(40)
    y[5] = -0.0  # 1 / (0.0 + -0.0): ZeroDivisionError at lane 5, before them all
    check(OnDask(picky, "threads", 9), picky.scalar, x, y)
    x[5] = 1.0
    check(OnDask(picky, "threads", 9), picky.scalar, x, y)  # lane 17's ValueError, not 23's or 31's
    with pytest.raises(ValueError) as info:
        picky(da.from_array(x, chunks=6), y).compute(scheduler="threads")
    assert "on lane (17,) of (40,)" in "".join(info.value.__notes__), info.value.__notes__


def test_first_failing_lane_where_blocks_interleave():
    # Blocks (0, 0) and (0, 1) both fail: (1, 0) comes first by blocks, (0, 4) first in C order.
    x = np.zeros((2, 6))
    x[1, 0] = x[0, 4] = -3.0
    with pytest.raises(ValueError, match="negative -3.0") as info:
        picky(da.from_array(x, chunks=(2, 3)), 1.0).compute(scheduler="sync")
    assert "on lane (0, 4) of (2, 6)" in "".join(info.value.__notes__), info.value.__notes__
    check(OnDask(picky, "threads", 3), picky.scalar, x, 1.0)


def test_ints_near_int64_limits_and_refusals():
    a = np.array(BIG, dtype=np.int64)
    check(OnDask(add_ints, "threads", 2), add_ints.scalar, a, np.int64(-1))
    check(OnDask(add_ints, "threads", 2), add_ints.scalar, a, a[::-1].copy())  # overflows: refused
    with pytest.raises(VectorizeOverflowError, match="does not fit in int64"):
        add_ints(da.from_array(a, chunks=3), 1).compute(scheduler="threads")
    b = np.arange(40, dtype=np.int64)
    b[[29, 13, 35]] = 2**63 - 1  # refused in three blocks: lane 13's, named in the whole array
    check(OnDask(add_ints, "threads", 5), add_ints.scalar, b, np.int64(1))
    with pytest.raises(VectorizeOverflowError, match=r"on lane \(13,\)"):
        add_ints(da.from_array(b, chunks=4), 1).compute(scheduler="threads")


@vectorize
def scaled(a: int, b: int) -> int:
    if b < 0:
        raise ValueError(f"negative scale {b}")
    return a * b


def test_a_lane_exception_beats_an_earlier_refusal_in_its_row():
    # Lane (0, 0) overflows int64 (a refusal: the loop raises nothing there); lane (0, 4), in the
    # other block of the row, raises ValueError: the loop's exception, whichever block runs first.
    a = np.ones((2, 6), dtype=np.int64)
    b = np.ones((2, 6), dtype=np.int64)
    a[0, 0], b[0, 0], b[0, 4] = 2**62, 4, -1
    check(scaled, scaled.scalar, a, b)
    for scheduler in ("sync", "threads"):
        with pytest.raises(ValueError, match="negative scale -1") as info:
            scaled(da.from_array(a, chunks=(2, 3)), b).compute(scheduler=scheduler)
        assert "on lane (0, 4) of (2, 6)" in "".join(info.value.__notes__), info.value.__notes__
    check(OnDask(scaled, "threads", 4), scaled.scalar, a, b)


def big_or_small(x: float):
    try:  # try/finally is refused: the function falls back to numpy.vectorize, typed by values
        y = 2**60 + 1 if x > 0 else 3
    finally:
        pass
    return y


def test_a_result_the_promised_dtype_cannot_hold_is_refused_at_its_first_lane():
    vf = vectorize(big_or_small)
    x = -np.ones(9)
    x[[5, 7]] = 2.0
    with pytest.warns(UserWarning, match="try"):  # the fallback says so
        assert vf(x).tolist() == [big_or_small(v) for v in x.tolist()]  # in memory: int64, exact
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lazy = vf(da.from_array(x, chunks=2))
        assert lazy.dtype == np.float64  # promised from empty arrays, before any value is seen
        with pytest.raises(VectorizeOverflowError, match=r"returned 1152921504606846977 on lane \(5,\)"):
            lazy.compute(scheduler="threads")
        x[5] = -1.0  # the first lane it cannot hold moves to the next block
        with pytest.raises(VectorizeOverflowError, match=r"on lane \(7,\)"):
            vf(da.from_array(x, chunks=2)).compute(scheduler="sync")


def test_inputs_refused_as_in_memory():
    with pytest.raises(VectorizeInputError, match="complex"):
        shrink(da.ones(3, dtype=complex), 3)
    big = da.from_array(np.array([1, 2**63 + 5], dtype=np.uint64), chunks=1)
    with pytest.raises(VectorizeInputError, match="does not fit in int64"):
        add_ints(big, 1).compute(scheduler="threads")


def test_nested_functions_run_on_threads_but_do_not_travel():
    @vectorize
    def twice(x: float) -> float:
        return 2.0 * x

    assert twice(da.arange(10.0, chunks=3)).compute(scheduler="threads").tolist() == [2.0 * v for v in range(10)]
    with pytest.raises(VectorizeError, match="not defined at module level"):
        pickle.dumps(twice)


def environ(path: str, **more: str) -> dict[str, str]:
    """This process's environment (VECTORIZER_BLOCK_NUMBA's sitecustomize included), `path` first."""
    import os

    return os.environ | {"PYTHONPATH": os.pathsep.join(p for p in (path, os.environ.get("PYTHONPATH")) if p)} | more


def test_travels_by_source_to_a_process_without_the_module(tmp_path):
    """What a worker on another machine sees: no module file, its own empty cache."""
    module = tmp_path / "remote_kernels.py"
    module.write_text(textwrap.dedent("""\
        import math
        from vectorizer import vectorize

        OFFSET = 0.5

        def helper(x):
            return math.sqrt(abs(x)) + OFFSET

        @vectorize(fallback="error")
        def f(x: float, n: int = 3) -> float:
            while n > 0:
                x = helper(x)
                n -= 1
            return x
        """))
    sent = tmp_path / "f.pickle"
    run = "print(json.dumps(f(np.array([2.0, 9.0, -4.0])).tolist(), separators=',:'), f.backend, 'remote_kernels' in sys.modules)"
    first = subprocess.run([sys.executable, "-c", "import json, pickle, sys, numpy as np; from remote_kernels import f; "
                            f"open({str(sent)!r}, 'wb').write(pickle.dumps(f)); " + run],
                           check=True, capture_output=True, text=True,
                           env=environ(f"{ROOT}:{tmp_path}", VECTORIZER_CACHE_DIR=str(tmp_path / "cache1"))).stdout.split(" ")
    module.unlink()
    second = subprocess.run([sys.executable, "-c", "import json, pickle, sys, numpy as np; "
                             f"f = pickle.load(open({str(sent)!r}, 'rb')); " + run],
                            check=True, capture_output=True, text=True,
                            env=environ(str(ROOT), VECTORIZER_CACHE_DIR=str(tmp_path / "cache2"))).stdout.split(" ")
    expected = []
    for x in (2.0, 9.0, -4.0):
        for _ in range(3):
            x = math.sqrt(abs(x)) + 0.5
        expected.append(x)
    route = "numba" if jit.available() else "numpy"  # the default route, on both ends
    assert first[:-1] == second[:-1] == [json.dumps(expected, separators=",:"), route], (first, second)
    assert second[-1].strip() == "False"  # the module was never imported: its source came along
    assert list((tmp_path / "cache2").rglob("*.py")), "the receiving process generated the code itself"


def test_vectorizer_imports_no_dask_or_xarray_for_numpy_calls(tmp_path):
    (tmp_path / "plain.py").write_text("def f(x):\n    return x * 2.0 + 1.0\n")
    out = subprocess.run([sys.executable, "-c", "import sys, numpy as np, plain; import vectorizer; "
                          "print(vectorizer.vectorize(plain.f)(np.arange(3)).tolist(), "
                          "sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'xarray', 'distributed')))"],
                         check=True, capture_output=True, text=True,
                         env=environ(f"{ROOT}:{tmp_path}")).stdout
    assert out.strip() == "[1.0, 3.0, 5.0] []", out


# -- a real LocalCluster of two worker processes, one per module -------------------------------

@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def _worker_view(digest: str) -> tuple[int, int, bool]:
    """On a worker: (functions rebuilt in this process, specializations of this one, whether it
    parsed the source: False when every specialization came from the disk cache)."""
    from vectorizer.engine.scaleout import travel

    vf = travel._MEMO.get(digest)
    if vf is None:
        return travel.STATS["rebuilt"], 0, False
    return travel.STATS["rebuilt"], len(vf._kernels), vf._generations.current().prepared is not None


def test_local_cluster_values_and_first_failing_lane(client):
    # Few blocks: a task costs a scheduler round trip (~25 ms on this busy 2-core machine).
    shrink(hostile(24, 4), np.int64(30))  # the client makes the code (and auto's route) first: the workers load it
    check(OnDask(shrink, None, 4), shrink_core, hostile(24, 4), np.int64(30))
    check(OnDask(polar, None, 6), polar.scalar, hostile(8, 1), hostile(3, 2).reshape(3, 1))
    x = np.zeros((4, 9))
    x[2, 0] = x[1, 7] = x[3, 3] = -4.0
    check(OnDask(picky, None, 8), picky.scalar, x, 2.0)  # lane (1, 7)
    with pytest.raises(ValueError) as info:
        picky(da.from_array(x, chunks=(2, 3)), 2.0).compute()
    assert "on lane (1, 7) of (4, 9)" in "".join(info.value.__notes__), info.value.__notes__
    from vectorizer.engine.scaleout import travel

    views = client.run(_worker_view, travel.payload(shrink)["digest"])  # the workers share this cache dir:
    assert all(kernels == 1 and not parsed for _, kernels, parsed in views.values()), views  # code loaded


@vectorize(backend="numba")
def orbit(cr: float, ci: float) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 60:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


@pytest.mark.numba
def test_numba_compiles_once_per_worker_process(client):
    from vectorizer.engine.scaleout import travel

    x = np.linspace(-2.0, 1.0, 3000)
    got = orbit(da.from_array(x, chunks=500), 0.25).compute()  # 6 chunks on 2 processes
    assert got.tolist() == [orbit.scalar(v, 0.25) for v in x.tolist()]
    views = client.run(_worker_view, travel.payload(orbit)["digest"])
    assert len(views) == 2 and all(kernels == 1 for _, kernels, _ in views.values()), views
    before = {w: rebuilt for w, (rebuilt, _, _) in views.items()}
    orbit(da.from_array(x[::-1].copy(), chunks=300), 0.25).compute()
    after = client.run(_worker_view, travel.payload(orbit)["digest"])
    assert {w: rebuilt for w, (rebuilt, _, _) in after.items()} == before, (before, after)  # memoized
