"""Closures and lambdas on dask arrays (issue 49, row 16): a working result, or a refusal that
names the reason, never "ran element by element on an empty batch" for a batch nobody passed.
(Closures compile since issue 51: their cells are read as module globals are.)

What failed: a dask call learns the number and dtypes of the results by calling the function on
empty arrays before computing (engine/scaleout/graph.py). A function that runs element by element
has no lane there to show them, so a closure (its free variable is not a module global) and a
lambda whose source cannot be read (two lambdas on one line) ended in the empty-batch error. And a
lambda that does travel, sent as the `def` it stands for (frontend/lambdas.py), had that text
written over its file's lines in the linecache of every process that unpickled it (with a
LocalCluster, the user's own process: its scheduler unpickles the graph), so that no function of
the file could be read there any more, the lambda itself included. Threads, then a real
LocalCluster of worker processes, as tests/engine/test_dask.py.
"""

from __future__ import annotations

import linecache
import pickle

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

from vectorizer import VectorizeError, vectorize  # noqa: E402


def make_scaler(k: float):
    @vectorize
    def scaled(x):
        return x * k

    return scaled


scale_by_3 = make_scaler(3.0)
doubled = vectorize(lambda x: x * 2.0); halved = vectorize(lambda x: x / 2.0)  # noqa: E702, E731
shifted = vectorize(lambda x: x + 1.5); NOTE = "a lambda sharing its line"  # noqa: E702, E731


@vectorize
def cube(x: float) -> float:
    return x * x * x


X = np.array([1.0, -2.0, 0.5, 3.0, -0.0, 7.25])
VECTORIZED = ("numpy", "numba")  # the routes of the default backend, auto: not element by element


def lazy(x: np.ndarray):
    return da.from_array(x, chunks=4)


def test_a_closure_runs_lazily_reading_its_cell():
    """A closure's free variable is what its cell holds (issue 51): the closure compiles, so a lazy
    call knows its results' number and dtypes, and runs on Dask's threaded scheduler."""
    got = scale_by_3(lazy(X)).compute(scheduler="threads")
    assert got.tolist() == [3.0 * v for v in X.tolist()] == scale_by_3(X).tolist()
    assert scale_by_3.backend in VECTORIZED


def test_a_lambda_that_cannot_be_read_is_refused_naming_why():
    for vf in (doubled, halved):
        with pytest.warns(UserWarning), \
                pytest.raises(VectorizeError, match="cannot take Dask.*2 lambdas start on that line") as info:
            vf(lazy(X))
        assert "empty batch" not in str(info.value)


def test_a_lambda_sharing_its_line_runs_and_travels_without_hiding_its_file():
    assert shifted(lazy(X)).compute(scheduler="threads").tolist() == [v + 1.5 for v in X.tolist()]
    before = list(linecache.getlines(__file__))
    again = pickle.loads(pickle.dumps(shifted))  # what a process receiving the graph does
    assert again(X).tolist() == [v + 1.5 for v in X.tolist()] and again.backend in VECTORIZED
    assert linecache.getlines(__file__) == before  # this file's lines are still its own
    fresh_cube, fresh_shifted = vectorize(cube.scalar), vectorize(shifted.scalar)  # read from the file again
    assert fresh_cube(lazy(X)).compute(scheduler="threads").tolist() == [v ** 3 for v in X.tolist()]
    assert fresh_shifted(X).tolist() == [v + 1.5 for v in X.tolist()]
    assert fresh_cube.backend in VECTORIZED and fresh_shifted.backend in VECTORIZED


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def _rebuilt_backends() -> list[str]:
    """On a worker: the backend of each function rebuilt there (none runs element by element)."""
    from vectorizer.engine.scaleout import travel

    return sorted(vf.backend for vf in travel._MEMO.values())


def test_on_a_local_cluster(client):
    assert shifted(lazy(X)).compute().tolist() == [v + 1.5 for v in X.tolist()]
    fresh_cube = vectorize(cube.scalar)  # the client process read this file after the lambda travelled
    assert fresh_cube(lazy(X)).compute().tolist() == [v ** 3 for v in X.tolist()]
    assert fresh_cube.backend in VECTORIZED
    with pytest.raises(Exception) as info:  # a closure compiles, but stays in this process (dask wraps the reason)
        make_scaler(2.0)(lazy(X)).compute()
    reasons, exc = [], info.value
    while exc is not None:
        reasons.append(str(exc))
        exc = exc.__cause__ or exc.__context__
    assert any("cannot be sent to another process" in r and "not defined at module level" in r for r in reasons), reasons
    views = client.run(_rebuilt_backends)
    assert all(backends and "python" not in backends for backends in views.values()), views
