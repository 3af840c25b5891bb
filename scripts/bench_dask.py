#!/usr/bin/env python
"""Vectorized functions on a Dask LocalCluster of worker processes (issue 32).

Two kernels of `bench_kernels.py`: `mandelbrot_escape` (a while loop) and `black_scholes_call`
(log, exp, erfc). For each, over `--size` lanes in chunks of `--chunk`:

    in-memory 1 thread   the vectorized function on one NumPy array, VECTORIZER_THREADS=1
    in-memory threads    the same, with its own threads (the NumPy backend's chunks)
    cluster vectorized   the vectorized function on dask arrays, on a LocalCluster of
                         `--workers` processes of one thread each (VECTORIZER_THREADS=1 there:
                         Dask gives the parallelism), inputs made on the workers, and
                         without distributed's MALLOC_TRIM_THRESHOLD_ (`--keep-malloc-trim`
                         keeps it: NumPy temporaries then fault their pages in on every call)
    cluster numpy        the hand-written NumPy version in `dask.array.map_blocks`, same cluster
    cluster inputs only  the sum of the inputs alone: what making them costs in the cluster rows
                         (the in-memory rows start from arrays already made)
    one process, whole job   the cluster row's graph (make the inputs, run, sum) on Dask's
                         synchronous scheduler in this process, VECTORIZER_THREADS=1
    cluster vectorized, inputs held   the cluster row on inputs persisted in the workers first, as
                         the in-memory rows start from arrays already made (run last: the
                         workers then hold the whole array, so the memory readings come before)

Each cluster run computes `result.sum()` (nothing large returns to the client) and is checked
against the in-memory result's sum. Also reported: the per-chunk overhead of the graph (a run over
`--tiny-chunks` chunks of 16 lanes, against `x + 1` over the same chunks: the extra time a chunk)
and the busiest worker's peak resident memory during each cluster variant, above its level
before the variant (sampled every 2 ms by a thread in each worker, after the worker has returned
its freed memory to the OS), next to the size of one chunk and of the whole array.

    python scripts/bench_dask.py --size 20000000 --chunk 1000000
    python scripts/bench_dask.py --sweep 1e7,4e7,1.6e8 --chunk 1e6   # memory alone, at each size

Times are medians of `--repeat` runs. `--sweep` reads only the two cluster rows' memory at each
size (one chunk size): flat readings mean a worker's memory is bounded by its blocks, not the array.

Sizes of 2e8 lanes need ~1.6 GB per input array for the in-memory rows; `--skip-in-memory` leaves
them out (the cluster rows then stand alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_kernels as bk  # noqa: E402

from vectorizer import vectorize  # noqa: E402

# Irrational multipliers: lane i's value in [0, 1) is frac(i * a), a Weyl sequence (equidistributed,
# like uniform draws). Five NumPy passes a chunk, where a random generator's draw costs several
# times as much: the cluster rows then time the function more than the making of its inputs.
_WEYL = (0.6180339887498949, 0.4142135623730951, 0.7320508075688772, 0.2360679774997898, 0.6457513110645907)


def inputs(kernel: str, n: int, chunk: int):
    """The kernel's arguments as dask arrays, computed on the workers chunk by chunk."""
    import dask.array as da

    lane = da.arange(n, chunks=chunk, dtype=np.float64)
    made = iter(_WEYL)

    def uniform(lo, hi):
        x = lane * next(made)
        return lo + (hi - lo) * (x - da.floor(x))

    if kernel == "mandelbrot_escape":
        return uniform(-2.0, 0.6), uniform(-1.2, 1.2)
    t = uniform(-0.25, 2.0)
    return uniform(50.0, 150.0), uniform(50.0, 150.0), uniform(0.05, 0.6), da.maximum(t, 0.0), uniform(0.0, 0.08)


def timed(fn, repeat: int) -> tuple[float, object]:
    """(median seconds of `repeat` runs, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def on_cluster(fn, repeat: int, warm=None) -> tuple[float, object, float]:
    """(median seconds, result, the busiest worker's peak resident MB above its level before the run)
    of `fn`. Before it, the workers drop what they hold and return freed memory to the OS
    (`watch_rss`), so each variant's peak is its own."""
    from distributed import get_client

    client = get_client()
    if warm is not None:
        warm()  # the workers generate or load the code (and import what the tasks need) first
    before = client.run(watch_rss)
    t, out = timed(fn, repeat)
    after = client.run(peak_rss_mb)
    return t, out, max(after[w] - before[w] for w in after)


def run_kernel(name: str, vf, n: int, chunk: int, repeat: int, skip_in_memory: bool) -> list | None:
    """The four rows of one kernel, or None when the cluster's sum disagrees with the in-memory one."""
    import dask
    import dask.array as da

    numpy_version = getattr(bk, f"{name}_numpy")
    rows, expected = [], None
    lazy = inputs(name, n, chunk)
    dtype = vf(*lazy).dtype
    if not skip_in_memory:
        arrays = dask.compute(*lazy)  # the same values, here
        vf(*(a[:1000] for a in arrays))  # generate and load the code first
        os.environ["VECTORIZER_THREADS"] = "1"
        t1, out = timed(lambda: vf(*arrays), repeat)
        del os.environ["VECTORIZER_THREADS"]
        tt, _ = timed(lambda: vf(*arrays), repeat)
        expected = float(np.sum(out))
        del arrays, out
        rows += [(name, "in-memory 1 thread", t1, None), (name, "in-memory threads", tt, None)]
    warm = lambda: vf(*(a[:10] for a in lazy)).compute()  # noqa: E731
    tv, got, pv = on_cluster(lambda: vf(*lazy).sum().compute(), repeat, warm)
    by_hand = lambda args: da.map_blocks(numpy_version, *args, dtype=dtype)  # noqa: E731
    tn, got_numpy, pn = on_cluster(lambda: by_hand(lazy).sum().compute(), repeat,
                                   lambda: by_hand([a[:10] for a in lazy]).compute())
    ti, _, pi = on_cluster(lambda: dask.compute(*(a.sum() for a in lazy)), repeat,
                           lambda: dask.compute(*(a[:10].sum() for a in lazy)))  # imports on the fresh workers first
    rows += [(name, "cluster vectorized", tv, pv), (name, "cluster numpy", tn, pn),
             (name, "cluster inputs only", ti, pi)]
    agree = expected is None or bool(np.isclose(float(got), expected, rtol=1e-9))
    print(f"# {name}: cluster sum {float(got)!r}, in-memory {expected!r}, numpy map_blocks "
          f"{float(got_numpy)!r}: {'agree' if agree else 'DISAGREE'}")
    return rows if agree else None


def job_rows(name: str, vf, n: int, chunk: int, repeat: int, client) -> list:
    """The whole job (make the inputs, run, sum) in one process, and the cluster on inputs it
    already holds (as the in-memory rows do). After the memory readings: persisted inputs hold
    the whole array in the workers."""
    import dask
    from distributed import wait

    lazy = inputs(name, n, chunk)
    os.environ["VECTORIZER_THREADS"] = "1"
    with dask.config.set(scheduler="synchronous"):
        tj, _ = timed(lambda: vf(*lazy).sum().compute(), repeat)
    del os.environ["VECTORIZER_THREADS"]
    held = client.persist(list(lazy))
    wait(held)
    tp, _, pp = on_cluster(lambda: vf(*held).sum().compute(), repeat, lambda: vf(*(a[:10] for a in held)).compute())
    return [(name, "one process, whole job", tj, None), (name, "cluster vectorized, inputs held", tp, pp)]


def watch_rss() -> float:
    """In a worker: free what glibc keeps of freed memory (malloc_trim), then start (or reset) a
    thread that samples this process's resident memory every 2 ms; the current value in MB.
    (ru_maxrss cannot be reset, and restarting the workers between variants sometimes hung.)"""
    import ctypes
    import gc
    import threading

    import psutil

    gc.collect()
    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # glibc's; elsewhere the reading starts from what the allocator kept
    if trim is not None:
        trim(0)
    proc = psutil.Process()
    state = getattr(sys, "_vz_rss", None)
    now = proc.memory_info().rss
    if state is None:
        state = sys._vz_rss = {"peak": now}  # type: ignore[attr-defined]

        def sample() -> None:
            while True:
                state["peak"] = max(state["peak"], proc.memory_info().rss)
                time.sleep(0.002)

        threading.Thread(target=sample, daemon=True, name="vz-rss").start()
    state["peak"] = now
    return now / 2**20


def peak_rss_mb() -> float:
    """In a worker: the highest resident memory (MB) sampled since `watch_rss`."""
    return sys._vz_rss["peak"] / 2**20  # type: ignore[attr-defined]


def _call(f, *args):
    return f(*args)


def _peak_of(run, lazy) -> float:
    from distributed import get_client

    """The busiest worker's peak MB above its start while `run(*lazy).sum()` computes, after a run
    on one whole chunk on each worker (what a first call loads or imports is not counted)."""
    first = [a.blocks[0] for a in lazy]
    warm = lambda: get_client().gather([get_client().compute(run(*first).sum(), workers=[w])  # noqa: E731
                                        for w in get_client().scheduler_info()["workers"]])
    return on_cluster(lambda: run(*lazy).sum().compute(), 1, warm)[2]


def sweep(kernels: dict, sizes: list[int], chunk: int) -> int:
    """The busiest worker's peak memory (above its start) for the cluster rows at each size, in MB
    and in chunk-sized float64 arrays: bounded memory stays flat as the array grows."""
    import dask.array as da

    print("\n| kernel | lanes | chunks | vectorized: peak MB (chunks) | NumPy in map_blocks: peak MB (chunks) |\n"
          "|---|---|---|---|---|")
    mb = chunk * 8 / 2**20
    for name, vf in kernels.items():
        by_hand = getattr(bk, f"{name}_numpy")
        for n in sizes:
            lazy = inputs(name, n, chunk)
            dtype = vf(*lazy).dtype
            pv = _peak_of(partial(_call, vf), lazy)
            pn = _peak_of(partial(da.map_blocks, by_hand, dtype=dtype), lazy)
            print(f"| {name} | {n:,} | {-(-n // chunk)} | {pv:.0f} ({pv / mb:.1f}) | {pn:.0f} ({pn / mb:.1f}) |", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=2e7, help="lanes (default 2e7; the issue asks 2e8)")
    parser.add_argument("--chunk", type=float, default=1e6, help="lanes a chunk (default 1e6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tiny-chunks", type=int, default=200)
    parser.add_argument("--backend", default="numpy", choices=("numpy", "numba"))
    parser.add_argument("--skip-in-memory", action="store_true")
    parser.add_argument("--kernels", default="mandelbrot_escape,black_scholes_call",
                        help="comma-separated, of mandelbrot_escape and black_scholes_call (default both)")
    parser.add_argument("--sweep", metavar="SIZES",
                        help="memory only: comma-separated sizes (e.g. 1e7,4e7,1.6e8) at one --chunk, the cluster "
                             "rows' peak memory per worker at each (does it grow with the array?)")
    parser.add_argument("--keep-malloc-trim", action="store_true",
                        help="keep distributed's MALLOC_TRIM_THRESHOLD_=65536 for the workers (docs/dask.md)")
    args = parser.parse_args(argv)
    n, chunk = int(args.size), int(args.chunk)

    import cloudpickle
    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    if not args.keep_malloc_trim:  # glibc would return every freed temporary to the OS (docs/dask.md)
        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})
    cloudpickle.register_pickle_by_value(bk)  # the NumPy versions travel by value; vectorized ones by source
    kernels = {name: vectorize(getattr(bk, name), backend=args.backend)
               for name in args.kernels.split(",")}
    print(f"# bench_dask: {n:,} lanes, chunks of {chunk:,} ({-(-n // chunk)} chunks), {args.workers} worker "
          f"processes x 1 thread, backend={args.backend}, {os.cpu_count()} CPUs, median of {args.repeat}")
    print(f"# workers' MALLOC_TRIM_THRESHOLD_: {'65536 (distributed default)' if args.keep_malloc_trim else 'unset'}")
    print(f"# one chunk: {chunk * 8 / 2**20:.0f} MB a float64 array; the whole array {n * 8 / 2**20:.0f} MB")
    rows = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"VECTORIZER_THREADS": "1"}) as cluster, Client(cluster) as client:
        idle = max(client.run(watch_rss).values())
        if args.sweep:
            return sweep(kernels, [int(float(v)) for v in args.sweep.split(",")], chunk)
        for name, vf in kernels.items():
            found = run_kernel(name, vf, n, chunk, args.repeat, args.skip_in_memory)
            if found is None:
                return 1
            rows += found
        tiny = da.ones(args.tiny_chunks * 16, chunks=16)
        (tiny[:16] + 1).sum().compute()  # warm, as the vectorized one below
        t_plain, _ = timed(lambda: (tiny + 1).sum().compute(), args.repeat)
        escape = vectorize(bk.mandelbrot_escape, backend=args.backend)
        escape(tiny[:16], 0.0).compute()  # the code is loaded before the timing
        t_vf, _ = timed(lambda: escape(tiny, 0.0).sum().compute(), args.repeat)
        for name, vf in kernels.items():
            rows += job_rows(name, vf, n, chunk, args.repeat, client)
    print("\n| kernel | variant | seconds | Mlanes/s | vs in-memory 1 thread | peak MB above start, busiest worker |\n"
          "|---|---|---|---|---|---|")
    base = {k: t for k, v, t, _ in rows if v == "in-memory 1 thread"}
    job = {k: t for k, v, t, _ in rows if v == "one process, whole job"}
    for kernel, variant, seconds, peak in sorted(rows, key=lambda r: r[0] != "mandelbrot_escape"):
        ratio = f"{base[kernel] / seconds:.2f}x" if kernel in base else "-"
        print(f"| {kernel} | {variant} | {seconds:.3f} | {n / seconds / 1e6:.1f} | {ratio} | "
              f"{'-' if peak is None else f'{peak:.0f}'} |")
    for kernel, seconds in job.items():
        cluster = next(t for k, v, t, _ in rows if k == kernel and v == "cluster vectorized")
        print(f"{kernel}: the whole job on the cluster {seconds / cluster:.2f}x as fast as in one process")
    print(f"\nper-chunk overhead: {(t_vf - t_plain) / args.tiny_chunks * 1e3:.2f} ms a chunk more than `x + 1` "
          f"({args.tiny_chunks} chunks of 16 lanes: {t_vf:.2f} s vs {t_plain:.2f} s)")
    print(f"resident memory of a worker before any run: {idle:.0f} MB (a chunk: {chunk * 8 / 2**20:.0f} MB "
          f"a float64 array; the array: {n * 8 / 2**20:.0f} MB); peaks are per variant, above its start")
    print(f"dask {dask.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
