#!/usr/bin/env python
"""Benchmark `vectorizer.vmap` on per-example-array kernels, side by side in one process.

`scripts/bench.py` times scalar kernels (one number per lane: its oracle and Python loop read
lanes with `.item()`), so per-example arrays get their own script. For each kernel below, on a
batch of `rows` examples of `dim` elements:

    Python loop       [f(x, ...) for x in X]: the code being replaced (timed on a slice of at
                      most --loop-rows rows and scaled to the batch)
    vectorizer.vmap   vmap(f, in_axes)(X, ...) with the NumPy backend (float loops keep their order)
    vmap reassociate  the same with reassociate=True (float sums in loops may become np.sum)
    JAX jit(vmap)     jax.jit(jax.vmap(f_jax, in_axes)) with x64, inputs on the device (skipped
                      with a note when JAX is not installed)
    hand NumPy        the whole-batch NumPy a competent user writes

Every variant is first checked against the Python loop on the loop's rows ("exact" when
bit-identical, else the largest relative difference, MISMATCH beyond 1e-9); then each is timed:
the median of --repeats samples, a sample being enough calls to last a few milliseconds. The
first call (transformation, compilation) is reported apart. Output: a Markdown table on stdout.
Exit status 1 when a variant disagrees with the loop.

    python scripts/bench_vmap.py                       # 100_000 rows of 16
    python scripts/bench_vmap.py --rows 50 --dim 4     # smoke run
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmark this checkout's vectorizer
    sys.path.insert(0, str(ROOT))

# --------------------------------------------------------------------------------------------
# Kernels: the per-example function (the oracle), its JAX version, a hand-written NumPy version


def distance_to_point(x, p):
    """Distance of one row to a fixed point, by a hand-written loop."""
    s = 0.0
    for i in range(len(x)):
        d = x[i] - p[i]
        s += d * d
    return math.sqrt(s)


def distance_to_point_jax(x, p):
    import jax.numpy as jnp

    d = x - p
    return jnp.sqrt(jnp.sum(d * d))


def distance_to_point_numpy(xs, p):
    d = xs - p
    return np.sqrt(np.einsum("ij,ij->i", d, d))


def line_fit(x, y):
    """Least-squares slope of y against x, by hand-written sums."""
    n = len(x)
    sx = 0.0
    sy = 0.0
    sxy = 0.0
    sxx = 0.0
    for i in range(n):
        sx += x[i]
        sy += y[i]
        sxy += x[i] * y[i]
        sxx += x[i] * x[i]
    return (n * sxy - sx * sy) / (n * sxx - sx * sx)


def line_fit_jax(x, y):
    import jax.numpy as jnp

    n = x.shape[0]
    sx, sy = jnp.sum(x), jnp.sum(y)
    return (n * jnp.sum(x * y) - sx * sy) / (n * jnp.sum(x * x) - sx * sx)


def line_fit_numpy(xs, ys):
    n = xs.shape[1]
    sx, sy = xs.sum(axis=1), ys.sum(axis=1)
    return (n * np.einsum("ij,ij->i", xs, ys) - sx * sy) / (n * np.einsum("ij,ij->i", xs, xs) - sx * sx)


@dataclass(frozen=True)
class Kernel:
    name: str
    func: Callable[..., Any]
    jax: Callable[..., Any]
    numpy: Callable[..., Any]
    in_axes: tuple[int | None, ...]
    inputs: Callable[[int, int, np.random.Generator], tuple[np.ndarray, ...]]


KERNELS = (
    Kernel("distance_to_point", distance_to_point, distance_to_point_jax, distance_to_point_numpy, (0, None),
           lambda rows, dim, rng: (rng.normal(size=(rows, dim)), rng.normal(size=dim))),
    Kernel("line_fit", line_fit, line_fit_jax, line_fit_numpy, (0, 0),
           lambda rows, dim, rng: (rng.uniform(0.0, 10.0, (rows, dim)), rng.normal(size=(rows, dim)))),
)


# --------------------------------------------------------------------------------------------
# Variants


class Skip(Exception):
    pass


def python_loop(k: Kernel) -> Callable[..., np.ndarray]:
    def run(*args: np.ndarray) -> np.ndarray:
        rows = next(a.shape[0] for a, ax in zip(args, k.in_axes) if ax is not None)
        return np.array([k.func(*(a[r] if ax is not None else a for a, ax in zip(args, k.in_axes)))
                         for r in range(rows)])

    return run


def vectorizer_vmap(reassociate: bool) -> Callable[[Kernel], Callable[..., Any]]:
    def build(k: Kernel) -> Callable[..., Any]:
        from vectorizer import vmap

        return vmap(k.func, k.in_axes, reassociate=reassociate, fallback="error")

    return build


def jax_jit_vmap(k: Kernel) -> Callable[..., Any]:
    try:
        jax = importlib.import_module("jax")
    except ImportError as exc:
        raise Skip(f"JAX is not installed ({exc})") from None
    jax.config.update("jax_enable_x64", True)
    fn = jax.jit(jax.vmap(k.jax, in_axes=k.in_axes))
    return lambda *args: fn(*args).block_until_ready()


def jax_prepare(args: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
    import jax

    return tuple(jax.device_put(a) for a in args)


VARIANTS: tuple[tuple[str, Callable[[Kernel], Callable[..., Any]]], ...] = (
    ("Python loop", python_loop),
    ("vectorizer.vmap", vectorizer_vmap(False)),
    ("vmap reassociate", vectorizer_vmap(True)),
    ("JAX jit(vmap)", jax_jit_vmap),
    ("hand NumPy", lambda k: k.numpy),
)


# --------------------------------------------------------------------------------------------
# Timing


def clock(run: Callable[[], Any], repeats: int, target_s: float = 0.005) -> float:
    """Median seconds per call over `repeats` samples of enough calls to last about target_s."""
    start = time.perf_counter()
    run()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(target_s / once))
    samples = []
    for _ in range(repeats):
        gc.disable()
        try:
            start = time.perf_counter()
            for _ in range(number):
                run()
            samples.append((time.perf_counter() - start) / number)
        finally:
            gc.enable()
    return statistics.median(samples)


def agreement(got: Any, want: np.ndarray) -> tuple[bool, str]:
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return False, f"MISMATCH: shape {got.shape} != {want.shape}"
    if np.array_equal(got, want, equal_nan=True):
        return True, "exact"
    with np.errstate(all="ignore"):
        rel = float(np.nanmax(np.abs(got - want) / np.maximum(np.abs(want), 1e-300)))
    return rel <= 1e-9, f"rel {rel:.1e}" if rel <= 1e-9 else f"MISMATCH: rel {rel:.1e}"


def bench_kernel(k: Kernel, rows: int, dim: int, repeats: int, loop_rows: int, seed: int) -> tuple[list[list[str]], bool]:
    rng = np.random.default_rng(seed)
    args = k.inputs(rows, dim, rng)
    head = min(rows, loop_rows)
    head_args = tuple(a[:head] if ax is not None else a for a, ax in zip(args, k.in_axes))
    want = python_loop(k)(*head_args)
    table, ok = [], True
    loop_s = None
    for label, build in VARIANTS:
        row = [k.name, f"{rows} x {dim}", label]
        try:
            fn = build(k)
        except Skip as exc:
            table.append(row + ["skipped", "", "", "", str(exc)])
            continue
        is_loop, is_jax = label == "Python loop", label.startswith("JAX")
        call_args = jax_prepare(args) if is_jax else args
        timed_args = head_args if is_loop else call_args
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            out = fn(*timed_args)
            first = time.perf_counter() - start
            good, check = agreement(np.asarray(out)[:head], want)
            ok &= good
            per_call = clock(lambda fn=fn, a=timed_args: fn(*a), repeats)
        if is_loop:
            per_call *= rows / head  # timed on `head` rows, scaled to the batch
            loop_s = per_call
        speedup = f"{loop_s / per_call:.0f}x" if loop_s else ""
        note = f"timed on {head} rows, scaled" if is_loop and head < rows else ""
        table.append(row + [f"{per_call * 1e3:.3f}", f"{per_call / rows * 1e9:.1f}", speedup,
                            f"{first * 1e3:.1f}", check + (f"; {note}" if note else "")])
    return table, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="examples in the batch")
    parser.add_argument("--dim", type=int, default=16, help="elements per example")
    parser.add_argument("--repeats", type=int, default=7, help="timed samples (the median is kept)")
    parser.add_argument("--loop-rows", type=int, default=5_000, help="rows the Python loop is timed on")
    parser.add_argument("--kernels", default=",".join(k.name for k in KERNELS), help="comma-separated names")
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args(argv)
    if opts.rows < 1 or opts.dim < 2 or opts.repeats < 1 or opts.loop_rows < 1:
        parser.error("--rows, --repeats and --loop-rows must be >= 1 and --dim >= 2")
    chosen = {n.strip() for n in opts.kernels.split(",") if n.strip()}
    unknown = chosen - {k.name for k in KERNELS}
    if unknown:
        parser.error(f"unknown kernel(s): {', '.join(sorted(unknown))}")
    header = ["kernel", "rows x dim", "variant", "median ms/call", "ns/row", "vs loop", "first call ms", "check"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    all_ok = True
    for k in KERNELS:
        if k.name in chosen:
            table, ok = bench_kernel(k, opts.rows, opts.dim, opts.repeats, opts.loop_rows, opts.seed)
            all_ok &= ok
            lines += ["| " + " | ".join(r) + " |" for r in table]
    print("\n".join(lines))
    print(f"\nmedian of {opts.repeats} samples; numpy {np.__version__}, Python {sys.version.split()[0]}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
