"""How many blocks a dask graph of a vectorized function keeps in memory (issue 32: a worker's
memory is bounded by a few chunks, not by the array).

Dask's schedulers run tasks in the order `dask.order` gives them (the threaded and synchronous
schedulers exactly, distributed by the same priorities). Run that order one task at a time and
count the block-sized results alive at once (inputs, records, outputs: not the small error
tasks): a graph that holds every block until the last one has run shows a count that grows with
the number of blocks. The same script on a real cluster, measuring resident memory, is
`scripts/bench_dask.py`."""

from __future__ import annotations

import math

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pytest.importorskip("dask")
from dask.core import get_dependencies  # noqa: E402
from dask.order import order  # noqa: E402

from vectorizer import vectorize  # noqa: E402

SMALL = ("vectorized-where", "vectorized-first")  # a block's error and its row's earliest one: not arrays


def escape(cr: float, ci: float) -> int:
    zr, zi, n = 0.0, 0.0, 0
    while zr * zr + zi * zi <= 4.0 and n < 50:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def held_at_peak(collection) -> int:
    """The most block-sized results alive at once when `collection`'s graph runs in Dask's order."""
    graph = dict(collection.__dask_graph__())
    priority = order(graph)
    deps = {k: get_dependencies(graph, k) for k in graph}
    waiting = {k: 0 for k in graph}  # how many dependents of k have not run yet
    for ds in deps.values():
        for d in ds:
            waiting[d] += 1
    alive: set = set()
    peak = 0
    for key in sorted(graph, key=priority.__getitem__):
        alive.add(key)
        for d in deps[key]:
            waiting[d] -= 1
            if waiting[d] == 0:
                alive.discard(d)
        peak = max(peak, sum(1 for k in alive if not _small(k)))
    return peak


def _small(key) -> bool:
    name = key[0] if isinstance(key, tuple) else key
    return isinstance(name, str) and (name.startswith(SMALL) or name.startswith("sum"))


def inputs(blocks: tuple[int, ...], chunk: tuple[int, ...]):
    shape = tuple(b * c for b, c in zip(blocks, chunk))
    lane = da.arange(math.prod(shape), chunks=math.prod(chunk), dtype=np.float64).reshape(shape).rechunk(chunk)
    return lane * 1e-3 - 2.0, lane * 7e-4 - 1.0


@pytest.mark.parametrize("blocks, chunk", [((8,), (16,)), ((4, 3), (5, 4))])
def test_blocks_held_do_not_grow_with_the_array(blocks, chunk):
    vf = vectorize(escape)
    small = held_at_peak(vf(*inputs(blocks, chunk)).sum())
    large = held_at_peak(vf(*inputs((blocks[0] * 8, *blocks[1:]), chunk)).sum())
    # The same per-block work in a graph without the error layers: what Dask itself holds.
    plain = held_at_peak(da.map_blocks(vf, *inputs((blocks[0] * 8, *blocks[1:]), chunk), dtype=np.int64).sum())
    per_row = math.prod(blocks[1:])
    assert large == small, (small, large, plain)
    assert large <= plain + 2 * per_row + 2, (large, plain, per_row)


def test_values_and_first_error_unchanged_by_the_order():
    """The graph the counts above describe computes the scalar loop's values (and raises its first
    exception: test_dask.py covers that across chunks)."""
    vf = vectorize(escape)
    cr, ci = inputs((6,), (16,))
    got = vf(cr, ci).compute(scheduler="synchronous")
    want = [escape(a, b) for a, b in zip(cr.compute().tolist(), ci.compute().tolist())]
    assert got.tolist() == want
