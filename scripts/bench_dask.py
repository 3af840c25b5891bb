#!/usr/bin/env python
"""Vectorized functions on a Dask LocalCluster of worker processes (issue 32).

Two kernels of `bench_kernels.py`: `mandelbrot_escape` (a while loop) and `black_scholes_call`
(log, exp, erfc). For each, over `--size` lanes in chunks of `--chunk`:

    in-memory 1 thread   the vectorized function on one NumPy array, VECTORIZER_THREADS=1
    in-memory threads    the same, with its own threads (the NumPy backend's chunks)
    cluster vectorized   the vectorized function on dask arrays, on a LocalCluster of
                         `--workers` processes of one thread each (VECTORIZER_THREADS=1 there:
                         Dask gives the parallelism), inputs generated on the workers, and
                         without distributed's MALLOC_TRIM_THRESHOLD_ (`--keep-malloc-trim`
                         keeps it: NumPy temporaries then fault their pages in on every call)
    cluster numpy        the hand-written NumPy version in `dask.array.map_blocks`, same cluster

Each cluster run computes `result.sum()` (nothing large returns to the client) and is checked
against the in-memory result's sum. Also reported: the per-chunk overhead of the graph (a run over
`--tiny-chunks` chunks of 16 lanes, against `x + 1` over the same chunks: the extra time a chunk)
and each worker's peak resident memory (ru_maxrss) after the runs, next to the size of one chunk
and of the whole array.

    python scripts/bench_dask.py --size 20000000 --chunk 1000000

Sizes of 2e8 lanes need ~1.6 GB per input array for the in-memory rows; `--skip-in-memory` leaves
them out (the cluster rows then stand alone).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_kernels as bk  # noqa: E402

from vectorizer import vectorize  # noqa: E402


def inputs(kernel: str, n: int, chunk: int):
    """The kernel's arguments as dask arrays, generated on the workers."""
    import dask.array as da

    rng = da.random.default_rng(0)

    def uniform(lo, hi):
        return rng.uniform(lo, hi, n, chunks=chunk)

    if kernel == "mandelbrot_escape":
        return uniform(-2.0, 0.6), uniform(-1.2, 1.2)
    t = uniform(-0.25, 2.0)
    return uniform(50.0, 150.0), uniform(50.0, 150.0), uniform(0.05, 0.6), da.maximum(t, 0.0), uniform(0.0, 0.08)


def timed(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


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
        rows += [(name, "in-memory 1 thread", t1), (name, "in-memory threads", tt)]
    vf(*(a[:10] for a in lazy)).compute()  # the workers generate or load the code first
    tv, got = timed(lambda: vf(*lazy).sum().compute(), repeat)
    tn, got_numpy = timed(lambda: da.map_blocks(numpy_version, *lazy, dtype=dtype).sum().compute(), repeat)
    rows += [(name, "cluster vectorized", tv), (name, "cluster numpy", tn)]
    agree = expected is None or bool(np.isclose(float(got), expected, rtol=1e-9))
    print(f"# {name}: cluster sum {float(got)!r}, in-memory {expected!r}, numpy map_blocks "
          f"{float(got_numpy)!r}: {'agree' if agree else 'DISAGREE'}")
    return rows if agree else None


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=2e7, help="lanes (default 2e7; the issue asks 2e8)")
    parser.add_argument("--chunk", type=float, default=1e6, help="lanes a chunk (default 1e6)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tiny-chunks", type=int, default=200)
    parser.add_argument("--backend", default="numpy", choices=("numpy", "numba"))
    parser.add_argument("--skip-in-memory", action="store_true")
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
               for name in ("mandelbrot_escape", "black_scholes_call")}
    print(f"# bench_dask: {n:,} lanes, chunks of {chunk:,} ({-(-n // chunk)} chunks), {args.workers} worker "
          f"processes x 1 thread, backend={args.backend}, {os.cpu_count()} CPUs, best of {args.repeat}")
    print(f"# workers' MALLOC_TRIM_THRESHOLD_: {'65536 (distributed default)' if args.keep_malloc_trim else 'unset'}")
    print(f"# one chunk: {chunk * 8 / 2**20:.0f} MB a float64 array; the whole array {n * 8 / 2**20:.0f} MB")
    rows = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"VECTORIZER_THREADS": "1"}) as cluster, Client(cluster) as client:
        for name, vf in kernels.items():
            found = run_kernel(name, vf, n, chunk, args.repeat, args.skip_in_memory)
            if found is None:
                return 1
            rows += found
        tiny = da.ones(args.tiny_chunks * 16, chunks=16)
        t_plain, _ = timed(lambda: (tiny + 1).sum().compute(), args.repeat)
        t_vf, _ = timed(lambda: kernels["mandelbrot_escape"](tiny, 0.0).sum().compute(), args.repeat)
        peaks = client.run(peak_rss_mb)
    print("\n| kernel | variant | seconds | Mlanes/s | vs in-memory 1 thread |\n|---|---|---|---|---|")
    base = {k: t for k, v, t in rows if v == "in-memory 1 thread"}
    for kernel, variant, seconds in rows:
        ratio = f"{base[kernel] / seconds:.2f}x" if kernel in base else "-"
        print(f"| {kernel} | {variant} | {seconds:.3f} | {n / seconds / 1e6:.1f} | {ratio} |")
    print(f"\nper-chunk overhead: {(t_vf - t_plain) / args.tiny_chunks * 1e3:.2f} ms a chunk more than `x + 1` "
          f"({args.tiny_chunks} chunks of 16 lanes: {t_vf:.2f} s vs {t_plain:.2f} s)")
    print("peak resident memory per worker: " + ", ".join(f"{v:.0f} MB" for v in peaks.values())
          + f" (a chunk: {chunk * 8 / 2**20:.0f} MB; the array: {n * 8 / 2**20:.0f} MB)")
    print(f"dask {dask.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
