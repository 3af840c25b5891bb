#!/usr/bin/env python
"""Benchmark vectorizer against what a user would otherwise write, side by side in one process.

For each kernel of `bench_kernels.py` and each size, every variant below is checked against the
scalar oracle (the kernel itself, run on Python scalars) on a sample of lanes, then timed:
variants are interleaved within each repeat (in an order shuffled afresh each round; a 5 ms
pause before each sample lets the last variant's spinning worker threads park), each
sample runs the variant enough times to last a few milliseconds, and the median sample is kept.
Ratios pair the samples of each round (the median of the per-round ratios: `add_ratios`).

    python        the Python loop over the scalar function (timed on a slice, scaled)
    np.vectorize  np.vectorize(f, otypes=[...]) (timed on a slice, scaled)
    numpy         the hand-written NumPy version
    numba prange  the scalar code under @njit, driven by njit(parallel=True) + prange
    numba exact   the same with C's pow where CPython calls it (`x ** 2` under @njit is x * x):
                  hand-written Numba that returns CPython's values
    numba ufunc   the scalar code under numba.vectorize (serial CPU target)
    jax           jax.jit(jax.vmap(f)) with lax control flow, x64 (inputs already on device)
    vec default   vectorizer, vectorize(f): backend="auto", exact=True (CPython's bits)
    vec fast      vectorizer, vectorize(f, exact=False): speed over the last bit
    vec numpy     vectorizer, backend="numpy" (exact)
    vec jax       vectorizer, backend="jax", exact=False: NumPy in, NumPy out, all included
    vec jax dev   the same kernel's device compute alone (inputs already on device, as `jax`)
    vec jax xfer  its transfers alone (inputs put on the devices, results copied back)
    vec numba     vectorizer, backend="numba"  (skipped with a note while unavailable)
    memcpy floor  np.copyto of as many bytes as the kernel's inputs and output together

The first call of each variant at each size is timed apart: it includes Numba/JAX compilation and
vectorizer's transformation, reported separately as first-call overhead (first call minus the
median call). Results are printed as Markdown (per-element times and ratios) and written as JSON;
`--chart DIR` also draws the charts, one question each (scripts/bench_charts.py: speed-up over the
Python loop; time against the best hand-written version), and `--from-json RUN.json --chart DIR`
redraws them from a saved run (needs matplotlib: pip install "vectorizer[bench]").

Exit status: 0 when every variant that ran agrees with the oracle, 1 when any disagrees (each is
named), 2 for a usage error. `--quick` is a smoke test (a few kernels, small sizes): its numbers
are not meant to be compared.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):  # benchmark this checkout's vectorizer and kernels
    if _path not in sys.path:
        sys.path.insert(0, _path)

import bench_kernels  # noqa: E402
import bench_targets  # noqa: E402
from bench_kernels import Kernel  # noqa: E402

SCHEMA = "vectorizer-bench/1"
FULL_SIZES = (1_000, 100_000, 1_000_000)
QUICK_SIZES = (1_000, 10_000)
FULL_REPEATS = 5
QUICK_REPEATS = 3
MIN_REPEATS = 3
BUDGET_S = 12.0  # per kernel, size and variant: timed samples beyond MIN_REPEATS stop past this
# Rounds go on past --repeats (full runs), up to EXTRA_ROUNDS times as many, while a kernel and
# size's rounds took under ROUNDS_S in all: a memory-bound kernel's ~1 ms calls at 1e6 scatter by
# +-40% from sample to sample on this VM, and the median of 9 paired ratios of two variants that
# run the very same compiled code (auto and the Numba backend, smoothstep) read 1.25x in a full
# run; the two kernels benchmarked alone right after read at most 1.08x.
EXTRA_ROUNDS = 3
ROUNDS_S = 4.0
STATUSES = ("ok", "skipped", "refused", "mismatch", "error")


class Skip(Exception):
    """A variant that cannot run here (a missing package or backend): skipped with a note."""


class Refused(Exception):
    """vectorizer refused the kernel (a VectorizeError): reported with its text, not a failure."""


# ---------------------------------------------------------------------------------------------
# Variants


@dataclass
class Impl:
    """A variant built for one kernel."""

    fn: Callable[..., Any]
    prepare: Callable[[tuple[np.ndarray, ...]], tuple[Any, ...]] = tuple  # untimed, per size
    finish: Callable[[Any], Any] = lambda out: out  # timed (e.g. JAX's block_until_ready)
    to_numpy: Callable[[Any], np.ndarray] = np.asarray
    note: str = ""
    after_first_call: Callable[[], str] | None = None  # a note known only after the first calls


@dataclass(frozen=True)
class Variant:
    key: str
    label: str
    description: str
    build: Callable[[Kernel], Impl]
    scaled: bool = False  # timed on a slice of the lanes and scaled (the slow per-element loops)
    verify: bool = True  # False for the memcpy floor, which computes nothing
    compiled: bool = False  # has a compile/transform step worth reporting


def build_python(kernel: Kernel) -> Impl:
    f, dtype = kernel.func, kernel.dtype

    def loop(*arrays: np.ndarray) -> np.ndarray:
        return np.array([f(*lane) for lane in zip(*(a.tolist() for a in arrays))], dtype=dtype)

    return Impl(loop)


def build_np_vectorize(kernel: Kernel) -> Impl:
    return Impl(np.vectorize(kernel.func, otypes=[kernel.dtype]))


def build_numpy(kernel: Kernel) -> Impl:
    return Impl(kernel.numpy)


def _numba() -> Any:
    try:
        return importlib.import_module("numba")
    except ImportError as exc:
        raise Skip(f"numba is not installed ({exc})") from None


def build_numba_prange(kernel: Kernel) -> Impl:
    return Impl(bench_kernels.numba_prange(_numba(), kernel))


def build_numba_exact(kernel: Kernel) -> Impl:
    return Impl(bench_kernels.numba_prange_exact(_numba(), kernel))


def build_numba_ufunc(kernel: Kernel) -> Impl:
    return Impl(bench_kernels.numba_ufunc(_numba(), kernel))


_JAX: Any = None


def _jax() -> Any:
    global _JAX
    if _JAX is None:
        try:
            jax = importlib.import_module("jax")
        except ImportError as exc:
            raise Skip(f"JAX is not installed ({exc}); pip install jax jaxlib to compare") from None
        jax.config.update("jax_enable_x64", True)
        _JAX = jax
    return _JAX


def build_jax(kernel: Kernel) -> Impl:
    jax = _jax()
    fn = jax.jit(jax.vmap(kernel.jax))
    return Impl(fn, prepare=lambda arrays: tuple(jax.device_put(a) for a in arrays),
                finish=lambda out: out.block_until_ready())


def _vectorizer_builder(backend: str, **options: bool) -> Callable[[Kernel], Impl]:
    def build(kernel: Kernel) -> Impl:
        from vectorizer import VectorizeError, vectorize

        try:
            vf = vectorize(kernel.func, backend=backend, fallback="error", **options)
        except VectorizeError as exc:
            raise Refused(_error_text(exc)) from None
        except (ValueError, TypeError) as exc:
            raise Skip(f'vectorize(backend="{backend}") is not available yet: {exc}') from None
        except ImportError as exc:
            raise Skip(f'vectorize(backend="{backend}") needs a missing package: {exc}') from None
        reported = str(getattr(vf, "backend", backend))
        if backend == "numba" and "numba" not in reported:
            raise Skip(f'vectorize(backend="numba") is accepted but the function reports '
                       f'backend {reported!r}: the Numba backend is not implemented yet')

        def after() -> str:  # the route the cost model took, and why (the same in every process)
            route = vf.backend
            return f"route {route} ({getattr(route, 'why', '')})" if backend == "auto" else ""
        return Impl(vf, after_first_call=after)

    return build


def _vec_jax(kernel: Kernel) -> Any:
    from vectorizer import VectorizeError, vectorize

    try:
        import jax  # noqa: F401
    except ImportError as exc:
        raise Skip(f"JAX is not installed ({exc}): pip install 'vectorizer[jax]'") from None
    try:
        return vectorize(kernel.func, backend="jax", exact=False, fallback="error")
    except VectorizeError as exc:
        raise Refused(_error_text(exc)) from None


def build_vec_jax_device(kernel: Kernel) -> Impl:
    import bench_jax

    vf = _vec_jax(kernel)
    state: dict[str, Any] = {}

    def prepare(arrays: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
        state["kernel"], placed = bench_jax.device_inputs(vf, arrays)
        return (placed,)

    return Impl(lambda placed: bench_jax.compute(state["kernel"], placed), prepare=prepare,
                note="device compute only: every chunk's compiled function, inputs on the devices")


def build_vec_jax_transfer(kernel: Kernel) -> Impl:
    import bench_jax

    vf = _vec_jax(kernel)
    state: dict[str, Any] = {}

    def prepare(arrays: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
        state["kernel"], placed = bench_jax.device_inputs(vf, arrays)
        return arrays, bench_jax.compute(state["kernel"], placed)

    return Impl(lambda arrays, results: bench_jax.transfer(state["kernel"], arrays, results), prepare=prepare,
                note="transfers only: inputs to the devices, results back")


def build_memcpy(kernel: Kernel) -> Impl:
    out_itemsize = np.dtype(kernel.dtype).itemsize

    def prepare(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
        nbytes = sum(a.nbytes for a in arrays) + arrays[0].size * out_itemsize
        src = np.ones(nbytes, np.uint8)
        return np.empty_like(src), src

    return Impl(np.copyto, prepare=prepare)


VARIANTS: tuple[Variant, ...] = (
    Variant("python", "Python loop", "list comprehension over the scalar function on Python "
            "scalars (tolist), timed on a slice and scaled", build_python, scaled=True),
    Variant("np_vectorize", "np.vectorize", "np.vectorize(f, otypes=[dtype]), timed on a slice "
            "and scaled", build_np_vectorize, scaled=True),
    Variant("numpy", "hand NumPy", "hand-written NumPy (np.where/np.select, loops over the "
            "active lanes)", build_numpy),
    Variant("numba_prange", "numba prange", "scalar code under @njit, njit(parallel=True) + "
            "prange driver", build_numba_prange, compiled=True),
    Variant("numba_exact", "numba exact", "numba prange with C's pow (ctypes) where CPython calls "
            "pow: hand-written Numba that returns CPython's values", build_numba_exact, compiled=True),
    Variant("numba_vectorize", "numba.vectorize", "scalar code under numba.vectorize (serial "
            "CPU ufunc)", build_numba_ufunc, compiled=True),
    Variant("jax", "JAX jit(vmap)", "jax.jit(jax.vmap(f)) with lax.cond/while_loop/fori_loop, "
            "x64, inputs on device", build_jax, compiled=True),
    Variant("vec_default", "vectorizer default", "vectorize(f): backend='auto', exact=True (the route "
            "the cost model picks; CPython's bits)", _vectorizer_builder("auto"), compiled=True),
    Variant("vec_fast", "vectorizer exact=False", "vectorize(f, exact=False): NumPy's SIMD math, vector "
            "math, x * x, LLVM's pow", _vectorizer_builder("auto", exact=False), compiled=True),
    Variant("vec_numpy", "vectorizer numpy", 'vectorize(f, backend="numpy") (exact)',
            _vectorizer_builder("numpy"), compiled=True),
    Variant("vec_numba", "vectorizer numba", 'vectorize(f, backend="numba")',
            _vectorizer_builder("numba"), compiled=True),
    Variant("vec_jax", "vectorizer jax", 'vectorize(f, backend="jax", exact=False): NumPy in and out, '
            "transfers, device compute and the re-run of flagged lanes", _vectorizer_builder("jax", exact=False),
            compiled=True),
    Variant("vec_jax_device", "vectorizer jax (device)", "the same kernel's device compute alone, inputs on "
            "the devices", build_vec_jax_device, verify=False, compiled=True),
    Variant("vec_jax_transfer", "vectorizer jax (transfers)", "its transfers alone: inputs to the devices, "
            "results back", build_vec_jax_transfer, verify=False),
    Variant("memcpy", "memcpy floor", "np.copyto of as many bytes as inputs + output (reads and "
            "writes that many bytes)", build_memcpy, verify=False),
)
# Each ratio's baseline: the faster of its variants in each round. `hand_exact`: what a user
# would write that returns CPython's values (hand NumPy is the user's other choice, whatever its bits).
BASELINES = {"numpy": ("numpy",), "numba": ("numba_prange", "numba_vectorize"), "jax": ("jax",),
             "python": ("python",), "hand_exact": ("numpy", "numba_exact"), "backends": ("vec_numpy", "vec_numba")}


def _error_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    notes = getattr(exc, "__notes__", None)
    if notes:
        text += "\n" + "\n".join(notes)
    return text


# ---------------------------------------------------------------------------------------------
# Verification


def sample_lanes(n: int, count: int) -> np.ndarray:
    """The lanes checked against the oracle: the first ones and an even spread over the rest
    (all of them when count is 0)."""
    if n <= count or count == 0:
        return np.arange(n)
    head = np.arange(count // 2)
    spread = np.linspace(0, n - 1, count - head.size).round().astype(np.int64)
    return np.unique(np.concatenate([head, spread]))


def oracle(kernel: Kernel, arrays: tuple[np.ndarray, ...], lanes: np.ndarray) -> np.ndarray:
    values = [kernel.func(*(a[i].item() for a in arrays)) for i in lanes.tolist()]
    return np.array(values, dtype=kernel.dtype)


def compare(kernel: Kernel, got: Any, want: np.ndarray, lanes: np.ndarray) -> dict[str, Any]:
    """Agreement of a variant's values with the oracle's on the sampled lanes."""
    got = np.asarray(got)
    report: dict[str, Any] = {"lanes": int(want.size), "dtype": str(got.dtype)}
    if got.shape != want.shape:
        report.update(ok=False, mismatches=int(want.size), why=f"shape {got.shape} != {want.shape}")
        return report
    if kernel.out in ("int", "bool"):
        integral = got.dtype.kind in "biu" or bool(np.all(np.isfinite(got) & (got == np.round(got))))
        bad = ~(got == want) if integral else np.ones(want.shape, bool)
        report["rule"] = "exact"
    else:
        g, w = got.astype(np.float64), want
        with np.errstate(all="ignore"):
            close = np.abs(g - w) <= kernel.atol + kernel.rtol * np.abs(w)
            same_special = (np.isnan(g) & np.isnan(w)) | ((g == w) & ~np.isfinite(w))
            bad = ~(close & np.isfinite(w) | same_special)
            finite = np.isfinite(g) & np.isfinite(w) & (w != 0)
            rel = np.abs(g - w)[finite] / np.abs(w[finite])
        report["rule"] = f"|got-want| <= {kernel.atol:g} + {kernel.rtol:g}*|want|; nan == nan"
        report["max_rel_err"] = float(rel.max()) if rel.size else 0.0
    mismatches = np.flatnonzero(bad)
    report["mismatches"] = int(mismatches.size)
    report["ok"] = not mismatches.size
    if mismatches.size:
        report["examples"] = [{"lane": int(lanes[i]), "got": got[i].item(), "want": want[i].item()}
                              for i in mismatches[:5]]
    return report


# ---------------------------------------------------------------------------------------------
# Timing


@dataclass
class Cell:
    """One (kernel, size, variant): what happened and how long it took."""

    kernel: str
    size: int
    variant: str
    status: str = "ok"
    note: str = ""
    lanes_timed: int = 0
    number: int = 1  # calls per timed sample
    samples_s: list[float] = field(default_factory=list)  # per call of lanes_timed lanes
    first_call_s: float | None = None
    build_s: float | None = None  # constructing the variant (only at the kernel's first size)
    verify: dict[str, Any] | None = None
    run: Callable[[], Any] | None = None  # transient: the timed call

    @property
    def median_s(self) -> float | None:
        return statistics.median(self.samples_s) if self.samples_s else None

    @property
    def ns_per_element(self) -> float | None:
        m = self.median_s
        return None if m is None else m / self.lanes_timed * 1e9

    def to_json(self) -> dict[str, Any]:
        ns = self.ns_per_element
        overhead = None
        if self.first_call_s is not None and self.median_s is not None:
            overhead = max(self.first_call_s + (self.build_s or 0.0) - self.median_s, 0.0)
        return {
            "kernel": self.kernel, "size": self.size, "variant": self.variant,
            "status": self.status, "note": self.note,
            "lanes_timed": self.lanes_timed, "scaled": self.lanes_timed not in (0, self.size),
            "number": self.number, "samples_s": self.samples_s, "median_s": self.median_s,
            "ns_per_element": ns, "seconds_for_size": None if ns is None else ns * self.size * 1e-9,
            "build_s": self.build_s, "first_call_s": self.first_call_s,
            "first_call_overhead_s": overhead, "verify": self.verify, "ratios": {},
        }


# Before each sample: the previous variant's worker threads (Numba's OpenMP pool, XLA's) spin for
# a while after a parallel region and take cores from the next variant. Measured on 2 cores: a
# NumPy-backend call on two threads right after a Numba prange call, 35.7 ms; after a 5 ms pause,
# 31.1 ms, as after no Numba call at all (29.4-31.8; zeta_partial, 1e5 lanes).
PAUSE_S = 0.005


def _clock(run: Callable[[], Any], number: int) -> float:
    time.sleep(PAUSE_S)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            run()
        return (time.perf_counter() - start) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def calls_per_sample(timed_call: Callable[[], float], target_s: float) -> int:
    """How many calls one timed sample makes, from calls after the first (a first call can include
    a compilation: a second of compiling once left smoothstep's parallel kernels one call a sample
    at 1e5, every sample paying the threads' wake-up). The fastest call counts, of at least three
    and of as many as fit in `target_s`: one slow call (a page fault, a late thread wake-up) would
    otherwise leave a variant few calls a sample, each sample then paying the threads' wake-up
    (poly_horner at 1e5 on the Numba backend: 11 calls a sample, with three calls timed, instead
    of ~120, read 1.72x the same kernel written by hand). A call of more than a second is timed
    once: a sample is one call anyway."""
    seconds = timed_call()
    if seconds < 1.0:
        calls = [seconds, timed_call(), timed_call()]
        while sum(calls) < target_s:
            calls.append(timed_call())
        seconds = min(calls)
    return max(1, min(100_000, math.ceil(target_s / max(seconds, 1e-9))))


# --variants: the variants to run (None: all). JAX belongs in a process of its own when Numba's
# parallel variants are timed: XLA's and OpenMP's thread pools wait for work by spinning, and on
# 2 cores they take turns (measured: poly_horner at 1e5 on the Numba backend, 73 ns an element in
# a run with JAX, against 0.9 ns for numba.vectorize and ~1 ns in a run without it).
SELECTED: set[str] | None = None


class Bench:
    def __init__(self, kernels: Sequence[Kernel], sizes: Sequence[int], repeats: int,
                 verify_lanes: int, target_s: float, slice_target_s: float,
                 log: Callable[[str], None], budget_s: float = BUDGET_S, max_repeats: int | None = None) -> None:
        self.kernels, self.sizes, self.repeats = kernels, sizes, repeats
        self.max_repeats = max(repeats, max_repeats or repeats)
        self.verify_lanes, self.target_s, self.slice_target_s = verify_lanes, target_s, slice_target_s
        self.log, self.budget_s = log, budget_s
        self.cells: list[Cell] = []
        self.failures: list[str] = []

    def run(self) -> None:
        for kernel in self.kernels:
            self.run_kernel(kernel)

    def run_kernel(self, kernel: Kernel) -> None:
        impls: dict[str, Impl | Exception] = {}
        build_times: dict[str, float] = {}
        for variant in VARIANTS:
            if SELECTED is not None and variant.key not in SELECTED:
                impls[variant.key] = Skip("not among --variants")
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    impls[variant.key], build_times[variant.key] = _timed(lambda v=variant: v.build(kernel))
            except (Skip, Refused) as exc:
                impls[variant.key] = exc
            except Exception as exc:  # a baseline that fails to build is a bug in the suite
                impls[variant.key] = exc
        for size in self.sizes:
            self.run_size(kernel, size, impls, build_times)

    def run_size(self, kernel: Kernel, size: int, impls: dict[str, Impl | Exception],
                 build_times: dict[str, float]) -> None:
        arrays = kernel.inputs(size, kernel.seed)
        lanes = sample_lanes(size, self.verify_lanes)
        start = time.perf_counter()
        want = oracle(kernel, arrays, lanes)
        oracle_s = time.perf_counter() - start
        cells = []
        for variant in VARIANTS:
            cell = Cell(kernel.name, size, variant.key)
            self.cells.append(cell)
            impl = impls[variant.key]
            if isinstance(impl, Exception):
                self._not_run(kernel, variant, cell, impl)
                continue
            if size == self.sizes[0]:
                cell.build_s = build_times.get(variant.key)
            try:
                self._prepare(kernel, variant, impl, cell, arrays, lanes, want)
            except Refused as exc:
                cell.status, cell.note = "refused", str(exc)
                impls[variant.key] = exc
                continue
            except Exception as exc:
                cell.status, cell.note = "error", _error_text(exc)
                self.failures.append(f"{kernel.name} n={size} {variant.label}: raised {_error_text(exc)}")
                continue
            if cell.status == "ok":
                cells.append(cell)
        self._measure(cells)
        summary = ", ".join(f"{c.variant} {c.ns_per_element:.3g}" for c in cells if c.samples_s)
        self.log(f"{kernel.name} n={size:,} (oracle {oracle_s:.2f}s): ns/element {summary}")

    def _not_run(self, kernel: Kernel, variant: Variant, cell: Cell, exc: Exception) -> None:
        if isinstance(exc, Skip):
            cell.status, cell.note = "skipped", str(exc)
        elif isinstance(exc, Refused):
            cell.status, cell.note = "refused", str(exc)
        else:
            cell.status, cell.note = "error", f"building the variant raised {_error_text(exc)}"
            if cell.size == self.sizes[0]:
                self.failures.append(f"{kernel.name} {variant.label}: {cell.note}")

    def _prepare(self, kernel: Kernel, variant: Variant, impl: Impl, cell: Cell,
                 arrays: tuple[np.ndarray, ...], lanes: np.ndarray, want: np.ndarray) -> None:
        """Warm up, verify, and choose how many lanes and calls one timed sample covers."""
        size = arrays[0].size
        notes = [impl.note] if impl.note else []

        def call(args: tuple[Any, ...]) -> Any:
            return impl.finish(impl.fn(*args))

        if variant.scaled:  # the per-element loops: verify on the sampled lanes, time a slice
            got = impl.to_numpy(call(impl.prepare(tuple(a[lanes] for a in arrays))))
            cell.verify = compare(kernel, got, want, lanes)
            probe = min(size, 200)
            _, probe_s = _timed(lambda: call(impl.prepare(tuple(a[:probe] for a in arrays))))
            per_lane = max(probe_s / probe, 1e-9)
            m = int(min(size, max(min(size, 1000), self.slice_target_s / per_lane)))
            args = impl.prepare(tuple(a[:m] for a in arrays))
            _, cell.first_call_s = _timed(lambda: call(args))
            cell.lanes_timed = m
            if m < size:
                notes.append(f"timed on {m:,} of {size:,} lanes, scaled")
        else:
            args = impl.prepare(arrays)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    out, cell.first_call_s = _timed(lambda: call(args))
                except Exception as exc:
                    if _is_refusal(exc):
                        raise Refused(_error_text(exc)) from None
                    raise
            notes += sorted({f"{type(w.message).__name__}: {w.message}" for w in caught
                             if not issubclass(w.category, (RuntimeWarning, DeprecationWarning))})
            cell.lanes_timed = size
            if variant.verify:
                cell.verify = compare(kernel, impl.to_numpy(out)[lanes], want, lanes)
        cell.note = "; ".join(notes)
        if cell.verify is not None and not cell.verify["ok"]:
            cell.status = "mismatch"
            v = cell.verify
            self.failures.append(
                f"{kernel.name} n={size:,} {variant.label}: {v['mismatches']} of {v['lanes']} sampled "
                f"lanes disagree with the scalar oracle, e.g. {v.get('examples', v.get('why'))}")
            return
        cell.run = lambda: call(args)
        cell.number = calls_per_sample(lambda: _timed(cell.run)[1], self.target_s)
        if impl.after_first_call is not None:  # the route auto took
            cell.note = "; ".join(filter(None, [cell.note, impl.after_first_call()]))

    def _measure(self, cells: list[Cell]) -> None:
        """Every repeat times each variant once, in an order shuffled afresh each round (seeded, so
        a rerun uses the same orders): no variant always runs right after the same other one,
        whose worker threads or cache footprint would then bias it the same way every round. A
        variant whose samples already took `budget_s` stops after MIN_REPEATS samples (the slow
        loops at 1e6 elements would otherwise dominate the run time). Rounds go on past
        `repeats`, up to `max_repeats`, while all of them took under ROUNDS_S."""
        order = random.Random(len(cells))
        started = time.perf_counter()
        for r in range(self.max_repeats):
            if r >= self.repeats and time.perf_counter() - started > ROUNDS_S:
                break
            for cell in order.sample(cells, len(cells)):
                assert cell.run is not None
                spent = sum(cell.samples_s) * cell.number
                if len(cell.samples_s) >= MIN_REPEATS and spent > self.budget_s:
                    continue
                cell.samples_s.append(_clock(cell.run, cell.number))
        for cell in cells:
            cell.run = None


def _is_refusal(exc: BaseException) -> bool:
    """A VectorizeError raised while transforming (not a lane's runtime error) is a refusal."""
    try:
        from vectorizer import (
            VectorizeError,
            VectorizeInputError,
            VectorizeOverflowError,
            VectorizeValueError,
        )
    except ImportError:
        return False
    runtime = (VectorizeInputError, VectorizeOverflowError, VectorizeValueError)
    return isinstance(exc, VectorizeError) and not isinstance(exc, runtime)


# ---------------------------------------------------------------------------------------------
# Results: ratios, JSON, Markdown, chart


def add_ratios(results: list[dict[str, Any]]) -> None:
    """ratio = this variant's time / the baseline's time (> 1: slower than the baseline), paired by
    round: the median over the repeats of (this variant's sample / the baseline's sample of the
    same round; the faster one's where a baseline has two variants). The rounds are interleaved,
    so a round's samples are taken within a fraction of a second of each other, and a change in
    the machine's speed between rounds (on this VM whole rounds run ~1.6x slower at times) cancels
    out; a ratio of the two medians can pick one variant's fast samples and the other's slow ones.
    With fewer than MIN_REPEATS rounds in common, it is the ratio of the medians."""
    by_key: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for r in results:
        by_key.setdefault((r["kernel"], r["size"]), {})[r["variant"]] = r
    for group in by_key.values():
        for r in group.values():
            r["ratios"] = {name: _ratio(r, [group[k] for k in keys if k in group])
                           for name, keys in BASELINES.items()}


def _per_element(r: dict[str, Any]) -> list[float]:
    return [t / r["lanes_timed"] for t in r["samples_s"]] if r["ns_per_element"] is not None else []


def _ratio(r: dict[str, Any], baselines: list[dict[str, Any]]) -> float | None:
    mine = _per_element(r)
    bases = [b for b in map(_per_element, baselines) if b]
    if not mine or not bases:
        return None
    rounds = min(len(mine), *map(len, bases))
    if rounds >= MIN_REPEATS:
        return statistics.median(mine[i] / min(b[i] for b in bases) for i in range(rounds))
    return statistics.median(mine) / min(statistics.median(b) for b in bases)


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    info = {"cpu": cpu, "cores": os.cpu_count(), "usable_cores": usable,
            "platform": platform.platform(), "load_average": None}
    if hasattr(os, "getloadavg"):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    info.update(simd_info())
    return info


def simd_info() -> dict[str, Any]:
    """Which SIMD kernels NumPy runs here: its math kernels differ between AVX2 and AVX-512 (a few
    ulp, and by position), so every figure says which were active (and NPY_DISABLE_CPU_FEATURES)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        return {}
    active = sorted(name for name, on in features.items() if on)
    level = "AVX-512" if features.get("AVX512_SKX") else "AVX2" if features.get("AVX2") else "below AVX2"
    return {"numpy_simd": level, "numpy_cpu_features": active,
            "npy_disable_cpu_features": os.environ.get("NPY_DISABLE_CPU_FEATURES", "")}


def parallel_info() -> dict[str, Any]:
    """Threads used by the parallel variants (known once they have run)."""
    info: dict[str, Any] = {}
    nb = sys.modules.get("numba")
    if nb is not None:
        info["numba_threads"] = nb.config.NUMBA_NUM_THREADS
        try:
            info["numba_threading_layer"] = nb.threading_layer()
        except ValueError:  # no parallel function has run
            info["numba_threading_layer"] = None
    return info


def _version(module: str) -> str | None:
    try:
        return str(importlib.import_module(module).__version__)
    except Exception:
        return None


def versions() -> dict[str, Any]:
    out: dict[str, Any] = {"python": platform.python_version()}
    for name in ("numpy", "numba", "jax", "jaxlib", "scipy", "vectorizer"):
        out[name] = _version(name)
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10)
        out["vectorizer_git"] = commit.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        out["vectorizer_git"] = None
    return out


def fmt_ns(x: float | None) -> str:
    if x is None:
        return "–"
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.0f}×" if x >= 100 else f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def fmt_size(n: int) -> str:
    exp = round(math.log10(n)) if n > 0 else 0
    return f"1e{exp}" if n == 10**exp else f"{n:,}"


def _table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    marks = [":--" if a == "l" else "--:" for a in align]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(marks) + " |"] + [
        "| " + " | ".join(row) + " |" for row in rows]


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "–"
    if r["status"] != "ok":
        return r["status"]
    return fmt_ns(r["ns_per_element"]) + ("*" if r["scaled"] else "")


def markdown_header(doc: dict[str, Any]) -> str:
    m, v, c = doc["machine"], doc["versions"], doc["config"]
    lines = [
        "# vectorizer benchmark",
        "",
        f"- machine: {m['cpu']}, {m['cores']} cores ({m['usable_cores']} usable), {m['platform']}"
        + (f", load average at start {m['load_average']}" if m.get("load_average") else ""),
        "- versions: " + ", ".join(f"{k} {v[k]}" for k in
                                   ("python", "numpy", "numba", "jax", "jaxlib", "scipy", "vectorizer")
                                   if v.get(k)) + (f" ({v['vectorizer_git']})" if v.get("vectorizer_git") else ""),
        f"- sizes: {', '.join(fmt_size(s) for s in c['sizes'])}; median of {c['repeats']} "
        + (f"(up to {c['max_repeats']} while a kernel and size's rounds take under {ROUNDS_S:g} s) "
           if c.get("max_repeats", c["repeats"]) > c["repeats"] else "")
        + f"interleaved repeats after warm-up (a variant stops at {MIN_REPEATS} once its samples took "
        f"{c['budget_s']:g} s); {'QUICK smoke run: numbers not comparable' if c['quick'] else 'full run'}",
    ]
    return "\n".join(lines) + "\n"


def markdown_body(doc: dict[str, Any]) -> str:
    results, sizes = doc["results"], doc["config"]["sizes"]
    kernels = [k["name"] for k in doc["kernels"]]
    labels = {v["key"]: v["label"] for v in doc["variants"]}
    keys = [v["key"] for v in doc["variants"]]
    index = {(r["kernel"], r["size"], r["variant"]): r for r in results}
    big = sizes[-1]
    out: list[str] = bench_targets.markdown(doc)

    out += [f"## Per-element time at n = {fmt_size(big)} (ns; lower is better)", ""]
    rows = [[k] + [_cell(index.get((k, big, key))) for key in keys] for k in kernels]
    out += _table(["kernel"] + [labels[k] for k in keys], rows)
    out += ["", "`*` timed on a slice of the lanes and scaled. `–`/status: not timed (see notes).", ""]

    out += ["## vectorizer vs the baselines (time ratio; < 1 means vectorizer is faster)", "",
            "Each ratio is the median over the interleaved rounds of the two samples' ratio in that round, "
            "so it can differ from the quotient of the medians above.", ""]
    header = ["kernel"]
    pairs = [("vec_default", "hand_exact"), ("vec_fast", "numba"), ("vec_default", "jax"),
             ("vec_numpy", "numpy"), ("vec_numba", "numba"), ("vec_jax", "jax"), ("vec_jax_device", "jax")]
    for s in sizes:
        header += [f"{labels[a].replace('vectorizer ', 'vec ')} / {b} @{fmt_size(s)}" for a, b in pairs]
    rows = []
    for k in kernels:
        row = [k]
        for s in sizes:
            for a, b in pairs:
                r = index.get((k, s, a))
                row.append(fmt_ratio(r["ratios"].get(b)) if r and r["status"] == "ok" else "–")
        rows.append(row)
    geo = ["geometric mean"]
    for s in sizes:
        for a, b in pairs:
            xs = [index[(k, s, a)]["ratios"].get(b) for k in kernels if (k, s, a) in index]
            xs = [x for x in xs if x]
            geo.append(fmt_ratio(math.exp(sum(map(math.log, xs)) / len(xs))) if xs else "–")
    rows.append(geo)
    # drop all-empty columns (e.g. a backend that is not available)
    keep = [i for i in range(len(header)) if i == 0 or any(row[i] != "–" for row in rows)]
    out += _table([header[i] for i in keep], [[row[i] for i in keep] for row in rows])
    out += [""]

    first = sizes[0]
    out += [f"## Per-call time at n = {fmt_size(first)} (µs per call)", "",
            "In brackets: the part not explained by per-element work, t(n) - n·t_element at the "
            "next size (call, dispatch and thread start-up overhead; for loops over the active "
            "lanes also the per-iteration cost, paid for the slowest lane).", ""]
    rows = []
    for k in kernels:
        row = [k]
        for key in keys:
            r = index.get((k, first, key))
            if r is None or r["status"] != "ok":
                row.append(_cell(r))
                continue
            text = f"{r['ns_per_element'] * first / 1000:.1f}"
            if r["scaled"]:
                text += "*"
            fixed = r.get("fixed_overhead_us")
            if fixed is not None:
                text += f" ({fixed:.1f})"
            row.append(text)
        rows.append(row)
    out += _table(["kernel"] + [labels[k] for k in keys], rows)
    out += [""]

    compiled = [v["key"] for v in doc["variants"] if v["compiled"]]
    out += ["## First-call overhead: transform / compile (s; first call + construction - median call)",
            "", "JAX compiles once per input shape, so it pays at every size "
            f"({' / '.join(fmt_size(s) for s in sizes)}); the others pay once, at the first size.", ""]
    rows = []
    for k in kernels:
        row = [k]
        for key in compiled:
            per_size = [index.get((k, s, key)) for s in sizes]
            vals = [r["first_call_overhead_s"] if r and r["status"] == "ok" else None for r in per_size]
            if key == "jax":
                row.append(" / ".join("–" if x is None else f"{x:.2f}" for x in vals))
            else:
                r0 = per_size[0]
                row.append(f"{vals[0]:.2f}" if vals[0] is not None else _cell(r0))
        rows.append(row)
    out += _table(["kernel"] + [labels[k] for k in compiled], rows)
    out += [""]

    out += ["## Per kernel: ns/element at each size; ratios at n = " + fmt_size(big)
            + " (variant time / baseline time)", ""]
    header = ["variant"] + [f"ns/el @{fmt_size(s)}" for s in sizes] + [
        "× hand NumPy", "× best Numba", "× JAX", "× Python loop"]
    kinfo = {k["name"]: k for k in doc["kernels"]}
    for k in kernels:
        info = kinfo[k]
        out += [f"### {k} ({info['category']}; {info['out']})", "", info["summary"]
                + (f" — {info['note']}" if info["note"] else ""), ""]
        rows = []
        for key in keys:
            row = [labels[key]] + [_cell(index.get((k, s, key))) for s in sizes]
            r = index.get((k, big, key))
            ratios = r["ratios"] if r and r["status"] == "ok" else {}
            row += [fmt_ratio(ratios.get(b)) for b in ("numpy", "numba", "jax", "python")]
            rows.append(row)
        out += _table(header, rows)
        out += [""]
        remarks: dict[str, list[str]] = {}
        for key in keys:
            for s in sizes:
                r = index.get((k, s, key))
                if r and r["status"] == "ok":
                    for part in r["note"].split("; "):
                        if part and not part.startswith("timed on") and part not in remarks.setdefault(key, []):
                            remarks[key].append(part)
        out += [f"- {labels[key]}: {'; '.join(parts)}" for key, parts in remarks.items() if parts]
        if any(remarks.values()):
            out += [""]

    notes = doc["notes"]
    if notes:
        out += ["## Notes", ""] + [f"- {n}" for n in notes] + [""]
    if doc["failures"]:
        out += ["## DISAGREEMENTS WITH THE SCALAR ORACLE", ""] + [f"- {f}" for f in doc["failures"]] + [""]
    m = doc["machine"]
    load = m.get("load_average_end")
    out += [f"Total benchmark time: {doc['total_seconds']:.0f} s"
            + (f"; load average at the end {load}" if load else "")
            + (f"; Numba: {m['numba_threads']} threads, {m['numba_threading_layer']} layer"
               if m.get("numba_threads") else "") + ".", ""]
    return "\n".join(out)


def collect_notes(results: list[dict[str, Any]], labels: dict[str, str], kernels: list[str]) -> list[str]:
    """One line per distinct (variant, note) that explains a status other than ok."""
    seen: dict[tuple[str, str, str], list[str]] = {}
    for r in results:
        if r["status"] in ("skipped", "refused", "error") and r["note"]:
            key = (r["variant"], r["status"], r["note"])
            names = seen.setdefault(key, [])
            if r["kernel"] not in names:
                names.append(r["kernel"])
    notes = []
    for (variant, status, note), names in seen.items():
        first_line = note.strip().splitlines()
        text = " ".join(line.strip() for line in first_line[:6])
        where = "all kernels" if len(names) == len(kernels) else ", ".join(names)
        notes.append(f"{labels[variant]} {status} ({where}): {text}")
    return notes


def fixed_overheads(results: list[dict[str, Any]], sizes: Sequence[int]) -> None:
    if len(sizes) < 2:
        return
    first, second = sizes[0], sizes[1]
    index = {(r["kernel"], r["size"], r["variant"]): r for r in results}
    for r in results:
        if r["size"] != first or r["status"] != "ok":
            continue
        nxt = index.get((r["kernel"], second, r["variant"]))
        if nxt and nxt["status"] == "ok":
            fixed = first * (r["ns_per_element"] - nxt["ns_per_element"]) / 1000
            r["fixed_overhead_us"] = max(fixed, 0.0)


# ---------------------------------------------------------------------------------------------
# Command line


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(float(s)) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must be numbers like 1e3,1e5: {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("sizes must be positive")
    return sorted(set(sizes))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmark vectorizer against the Python loop, np.vectorize, hand-written "
        "NumPy, Numba and JAX, and a memory-bandwidth floor.")
    parser.add_argument("--quick", action="store_true",
                        help="a small subset of kernels at small sizes (a smoke test, ~20 s)")
    parser.add_argument("--sizes", type=parse_sizes,
                        help="comma-separated element counts (default 1e3,1e5,1e6; quick: 1e3,1e4)")
    parser.add_argument("--kernels", help="comma-separated kernel names (default: all, or the quick "
                        "subset); see --list")
    parser.add_argument("--repeats", type=int, help=f"timed repeats per variant (default "
                        f"{FULL_REPEATS}; quick: {QUICK_REPEATS}); a full run goes on to {EXTRA_ROUNDS}x "
                        f"as many while a kernel and size's rounds take under {ROUNDS_S:g} s")
    parser.add_argument("--budget", type=float, default=BUDGET_S,
                        help=f"seconds of timed samples per kernel, size and variant after which "
                        f"it stops at {MIN_REPEATS} repeats (default {BUDGET_S:g})")
    parser.add_argument("--verify-lanes", type=int, default=2000,
                        help="lanes per kernel and size checked against the scalar oracle; 0 checks "
                        "every lane (default 2000)")
    parser.add_argument("--json", type=Path, default=Path("bench-results/bench.json"),
                        help="where to write the results (default bench-results/bench.json)")
    parser.add_argument("--markdown", type=Path, help="also write the Markdown report here")
    parser.add_argument("--chart", type=Path, metavar="DIR",
                        help="draw the charts (speedup.png, vs_best.png: scripts/bench_charts.py) into DIR "
                        "(needs matplotlib)")
    parser.add_argument("--from-json", type=Path, metavar="RUN.json",
                        help="run nothing: draw --chart (default DIR: docs/) from a saved run's JSON")
    parser.add_argument("--variants", help="comma-separated variant keys to run (default: all): e.g. "
                        "--variants jax in a process of its own (JAX's threads slow Numba's parallel "
                        "variants in the same process)")
    parser.add_argument("--list", action="store_true", help="list the kernels and exit")
    args = parser.parse_args(argv)
    if args.variants:
        keys = {v.key for v in VARIANTS}
        chosen = {k.strip() for k in args.variants.split(",") if k.strip()}
        if not chosen or chosen - keys:
            parser.error(f"unknown variant(s) {', '.join(sorted(chosen - keys))}; known: {', '.join(sorted(keys))}")
        global SELECTED
        SELECTED = chosen
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.verify_lanes < 0:
        parser.error("--verify-lanes must be 0 (all lanes) or more")
    known = bench_kernels.by_name()
    if args.kernels:
        names = [n.strip() for n in args.kernels.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown:
            parser.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(known)}")
        args.kernel_list = [known[n] for n in names]
    else:
        args.kernel_list = [k for k in bench_kernels.KERNELS if k.quick or not args.quick]
    args.sizes = args.sizes or list(QUICK_SIZES if args.quick else FULL_SIZES)
    args.repeats = args.repeats or (QUICK_REPEATS if args.quick else FULL_REPEATS)
    args.max_repeats = args.repeats * (1 if args.quick else EXTRA_ROUNDS)  # quick rounds go on
    if args.from_json is not None and args.chart is None:
        args.chart = Path("docs")
    if args.chart is not None:
        try:
            importlib.import_module("matplotlib")
        except ImportError:
            parser.error('--chart needs matplotlib, which is not installed: '
                         'pip install "vectorizer[bench]" (or pip install matplotlib)')
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json is not None:
        from bench_charts import draw_charts

        for path in draw_charts(json.loads(args.from_json.read_text()), args.chart):
            print(f"wrote {path}")
        return 0
    if args.list:
        for k in bench_kernels.KERNELS:
            print(f"{k.name:20} {k.category:26} {'quick ' if k.quick else '      '}{k.summary}")
        return 0
    started = time.perf_counter()
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "statuses": list(STATUSES),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": [Path(sys.argv[0]).name] + list(sys.argv[1:] if argv is None else argv),
        "machine": machine_info(),
        "versions": versions(),
        "config": {"quick": args.quick, "sizes": args.sizes, "repeats": args.repeats,
                   "max_repeats": args.max_repeats,
                   "min_repeats": MIN_REPEATS, "budget_s": args.budget,
                   "kernels": [k.name for k in args.kernel_list], "verify_lanes": args.verify_lanes,
                   "numpy_erfc": bench_kernels.NUMPY_ERFC},
        "variants": [{"key": v.key, "label": v.label, "description": v.description,
                      "scaled": v.scaled, "verified": v.verify, "compiled": v.compiled}
                     for v in VARIANTS],
        "kernels": [{"name": k.name, "category": k.category, "summary": k.summary,
                     "params": list(k.params), "out": k.out, "rtol": k.rtol, "atol": k.atol,
                     "note": k.note} for k in args.kernel_list],
    }
    print(markdown_header(doc), flush=True)

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    bench = Bench(args.kernel_list, args.sizes, args.repeats, args.verify_lanes,
                  target_s=0.002 if args.quick else 0.01,
                  slice_target_s=0.005 if args.quick else 0.05, log=log, budget_s=args.budget,
                  max_repeats=args.max_repeats)
    with np.errstate(all="ignore"):
        bench.run()

    results = [c.to_json() for c in bench.cells]
    add_ratios(results)
    fixed_overheads(results, args.sizes)
    labels = {v.key: v.label for v in VARIANTS}
    doc["results"] = results
    doc["failures"] = bench.failures
    doc["notes"] = collect_notes(results, labels, doc["config"]["kernels"])
    doc["total_seconds"] = time.perf_counter() - started
    if hasattr(os, "getloadavg"):
        doc["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    doc["machine"].update(parallel_info())
    body = markdown_body(doc)
    print(body)

    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(_strict_json(doc), indent=1, allow_nan=False) + "\n")
    log(f"wrote {args.json}")
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown_header(doc) + "\n" + body)
        log(f"wrote {args.markdown}")
    if args.chart:
        from bench_charts import draw_charts

        for path in draw_charts(json.loads(json.dumps(_strict_json(doc))), args.chart):
            log(f"wrote {path}")
    if bench.failures:
        print("FAILED: variants disagree with the scalar oracle:", file=sys.stderr)
        for failure in bench.failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    return 0


def _strict_json(obj: Any) -> Any:
    """Plain JSON: NumPy scalars as Python numbers, non-finite floats as the strings "nan", "inf"."""
    if isinstance(obj, dict):
        return {str(k): _strict_json(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_strict_json(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, Path):
        return str(obj)
    return obj


if __name__ == "__main__":
    sys.exit(main())
