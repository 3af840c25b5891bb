#!/usr/bin/env python
"""Time the fixed cost of calling a vectorized function: the dispatch path, not the work (issue 33).

For a few small kernels at a few sizes (Python scalars, then 1-D float64 arrays of 1, 10 and
1,000 elements) it times, interleaved in one process (with `--mixed`, calls that mix such arrays
with Python numbers: `mul_add(x, 0.5)`, `clamp3(x, 0.0, 1.0)`, `d1(spot, 100.0, 0.2, t, 0.01)`):

    vf[numpy] vf[numba] vf[auto]   vectorize(f, backend=...)(*args), the whole call
    kernel[numpy] kernel[numba]    the generated kernel the wrapper calls, called directly with
                                   the arguments it would get (what no wrapper can avoid)
    numpy                          the same expression written with NumPy by hand
    numba.vectorize  njit loop     hand-written Numba (float64 signatures; a loop into np.empty)

Each round times every candidate once, in a shuffled order, with `timeit` (enough calls for
~0.5 ms), by default on this process's CPU clock (time spent descheduled on a shared machine is
not counted; `--clock wall` for wall time); reported: the median time a call over the rounds,
the fastest round (other processes only ever add time: the minimum is the better estimate of
the cost, the median of what a call meets), the spread (interquartile range / median, in %) and the overhead
of each wrapper above its kernel: the median over the rounds of (wrapper - kernel) in the same
round, and the difference of their fastest rounds. Values are checked against the scalar
function first (exit status 1 on a mismatch). Run it twice and compare before quoting.

    python scripts/dispatch_overhead.py                       # 31 rounds, JSON to dispatch_overhead.json
    python scripts/dispatch_overhead.py --rounds 31 --json /tmp/after.json --sizes 1 1000
    python scripts/dispatch_overhead.py --compare /tmp/before.json /tmp/after.json   # the wrappers, side by side
    python scripts/dispatch_overhead.py --mixed --sizes 1 10 1000 --json /tmp/mixed.json   # arrays and numbers
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import statistics
import sys
import time
import timeit
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # measure this checkout's vectorizer
    sys.path.insert(0, str(ROOT))

from vectorizer import vectorize  # noqa: E402


def mul_add(x: float, y: float) -> float:
    return x * y + 1.0


def clamp(x: float) -> float:
    if x < 0.0:
        return 0.0
    elif x > 1.0:
        return 1.0
    return x


def gauss(x: float) -> float:
    return math.exp(-0.5 * x * x)


def _np_mul_add(x, y):
    return x * y + 1.0


def _np_clamp(x):
    return np.where(x < 0.0, 0.0, np.where(x > 1.0, 1.0, x))


def _np_gauss(x):
    return np.exp(-0.5 * x * x)


def clamp3(x: float, lo: float, hi: float) -> float:
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


def d1(spot: float, strike: float, vol: float, t: float, r: float) -> float:
    return (math.log(spot / strike) + (r + 0.5 * vol * vol) * t) / (vol * math.sqrt(t))


def _np_clamp3(x, lo, hi):
    return np.where(x < lo, lo, np.where(x > hi, hi, x))


def _np_d1(spot, strike, vol, t, r):
    return (np.log(spot / strike) + (r + 0.5 * vol * vol) * t) / (vol * np.sqrt(t))


KERNELS: dict[str, tuple[Callable, Callable, int]] = {  # name -> (scalar function, by hand, arity)
    "mul_add": (mul_add, _np_mul_add, 2),
    "clamp": (clamp, _np_clamp, 1),
    "gauss": (gauss, _np_gauss, 1),
}
# Calls mixing arrays and Python numbers (issue 33): name -> (scalar function, by hand, the
# arguments: "a" an array of the size measured (uniform over the range given), else the number)
MIXED: dict[str, tuple[Callable, Callable, tuple]] = {
    "mul_add_s": (mul_add, _np_mul_add, (("a", -0.5, 1.5), 0.5)),  # mul_add(x, 0.5)
    "clamp3": (clamp3, _np_clamp3, (("a", -0.5, 1.5), 0.0, 1.0)),  # clamp(x, 0.0, 1.0)
    "d1": (d1, _np_d1, (("a", 50.0, 150.0), 100.0, 0.2, ("a", 0.1, 2.0), 0.01)),  # d1(spot, 100.0, 0.2, t, 0.01)
}
BACKENDS = ("numpy", "numba", "auto")


def numba_baselines(name: str) -> dict[str, Callable]:
    """numba.vectorize and an @njit loop into np.empty, for `name` (float64 only; a mixed call:
    numba.vectorize alone, given the same arrays and Python numbers)."""
    import numba

    if name in MIXED:
        f, _, pattern = MIXED[name]
        return {"numba.vectorize": numba.vectorize([f"float64({', '.join(['float64'] * len(pattern))})"])(f)}
    scalar = numba.njit(KERNELS[name][0])
    if KERNELS[name][2] == 2:
        @numba.njit
        def loop2(x, y):
            out = np.empty(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = scalar(x[i], y[i])
            return out
        return {"numba.vectorize": numba.vectorize(["float64(float64, float64)"])(KERNELS[name][0]), "njit loop": loop2}

    @numba.njit
    def loop1(x):
        out = np.empty(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = scalar(x[i])
        return out
    return {"numba.vectorize": numba.vectorize(["float64(float64)"])(KERNELS[name][0]), "njit loop": loop1}


def arguments(arity: int | tuple, size: int | None, rng: np.random.Generator) -> tuple:
    """Python floats (size None) or 1-D float64 arrays, spread over every branch of clamp; for a
    mixed call (`arity` the MIXED pattern), its arrays of `size` (one element at size None) and numbers."""
    if isinstance(arity, tuple):
        return tuple(rng.uniform(a[1], a[2], size or 1) if isinstance(a, tuple) else a for a in arity)
    if size is None:
        return tuple(float(v) for v in rng.uniform(-0.5, 1.5, arity))
    return tuple(rng.uniform(-0.5, 1.5, size) for _ in range(arity))


def kernel_of(vf) -> Callable:
    """The generated kernel the last call of `vf` ran (its specialization's entry point)."""
    return vf._generations.current().kernels[vf._last].fn


def kernel_args(args: tuple) -> tuple:
    """What the wrapper hands the kernel: arrays as they are, a Python float as a NumPy scalar."""
    return tuple(np.float64(a) if isinstance(a, float) else a for a in args)


def check(name: str, got: object, f: Callable, args: tuple) -> None:
    n = max((a.size for a in args if isinstance(a, np.ndarray)), default=1)
    lanes = zip(*(a.tolist() if isinstance(a, np.ndarray) else [a] * n for a in args))
    want = [f(*lane) for lane in lanes]
    flat = np.atleast_1d(np.asarray(got)).tolist()
    # NumPy's AVX-512 log/exp are a few ulp from the C library's, and d1 near its zero loses
    # relative digits to cancellation: a tolerance on the scale of its terms (~1), not of its value
    if not all(w == g or (math.isnan(w) and math.isnan(g)) or abs(w - g) <= 1e-14 * (1.0 + abs(w))
               for w, g in zip(want, flat)):
        print(f"MISMATCH {name}: {flat[:5]} vs {want[:5]}", file=sys.stderr)
        sys.exit(1)


def candidates(name: str, size: int | None, rng: np.random.Generator, with_numba: bool) -> tuple[dict, tuple]:
    f, by_hand, arity = KERNELS[name] if name in KERNELS else MIXED[name]
    args = arguments(arity, size, rng)
    out: dict[str, tuple[Callable, tuple]] = {}
    for backend in BACKENDS if with_numba else ("numpy",):
        vf = vectorize(f, backend=backend)
        for _ in range(3):  # compile, then install the short path
            got = vf(*args)
        check(f"vf[{backend}]", got, f, args)
        out[f"vf[{backend}]"] = (vf, args)
        if backend != "auto":
            kernel, kargs = kernel_of(vf), kernel_args(args)
            with np.errstate(all="ignore"):
                kernel(*kargs)
            out[f"kernel[{backend}]"] = (kernel, kargs)
        else:
            out["auto ran"] = vf.backend  # type: ignore[assignment]
    out["numpy"] = (by_hand, args)
    if with_numba and size is not None:
        for label, fn in numba_baselines(name).items():
            check(label, fn(*args), f, args)
            out[label] = (fn, args)
    return out, args


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
CLOCK = CLOCKS["cpu"]


def time_call(fn: Callable, args: tuple, number: int) -> float:
    return timeit.Timer("f(*a)", globals={"f": fn, "a": args}, timer=CLOCK).timeit(number) / number


def measure(cands: dict, rounds: int, budget: float, rng: random.Random) -> dict[str, list[float]]:
    runnable = {k: v for k, v in cands.items() if isinstance(v, tuple)}
    numbers = {}
    for label, (fn, args) in runnable.items():
        once = time_call(fn, args, 50)
        numbers[label] = max(20, min(200_000, int(budget / max(once, 1e-8))))
    times: dict[str, list[float]] = {k: [] for k in runnable}
    for _ in range(rounds):
        order = list(runnable)
        rng.shuffle(order)
        for label in order:
            fn, args = runnable[label]
            times[label].append(time_call(fn, args, numbers[label]))
    return times


def summary(times: dict[str, list[float]], auto_ran: str | None) -> dict[str, dict[str, float]]:
    out = {}
    for label, ts in times.items():
        q = statistics.quantiles(ts, n=4) if len(ts) >= 2 else [ts[0]] * 3
        med = statistics.median(ts)
        row = {"median_us": med * 1e6, "min_us": min(ts) * 1e6, "spread_pct": 100 * (q[2] - q[0]) / med}
        backend = label[3:-1] if label.startswith("vf[") else None
        if backend == "auto":
            backend = auto_ran if auto_ran in ("numpy", "numba") else None
        if backend is not None and f"kernel[{backend}]" in times:
            diffs = [a - b for a, b in zip(ts, times[f"kernel[{backend}]"])]
            row["overhead_us"] = statistics.median(diffs) * 1e6
            row["overhead_min_us"] = (min(ts) - min(times[f"kernel[{backend}]"])) * 1e6
        out[label] = row
    return out


def machine() -> dict[str, object]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        np.show_runtime()
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    try:
        import numba
        numba_version = numba.__version__
    except ImportError:
        numba_version = None
    return {"python": platform.python_version(), "numpy": np.__version__, "numba": numba_version, "cpu": cpu,
            "cores": os.cpu_count(), "platform": platform.platform(), "numpy_runtime": buf.getvalue()}


def compare(before: str, after: str) -> None:
    """The wrappers' rows of two runs side by side: median and fastest round, overhead (median)."""
    a, b = (json.loads(Path(path).read_text())["results"] for path in (before, after))
    print(f"{'kernel/size':16} {'candidate':10} {'median µs before -> after':>26} {'min µs before -> after':>24} "
          f"{'overhead µs before -> after':>28}")
    for case, found in b.items():
        if case not in a:
            continue
        for label, row in found["rows"].items():
            old = a[case]["rows"].get(label)
            if not label.startswith("vf[") or old is None:
                continue
            over = (f"{old['overhead_us']:12.2f} -> {row['overhead_us']:7.2f}"
                    if "overhead_us" in row and "overhead_us" in old else "")
            print(f"{case:16} {label:10} {old['median_us']:15.2f} -> {row['median_us']:7.2f} "
                  f"{old['min_us']:13.2f} -> {row['min_us']:7.2f} {over:>28}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--budget-ms", type=float, default=0.5, help="time of one measurement of one candidate")
    parser.add_argument("--sizes", nargs="+", default=["scalar", "1", "10", "1000"])
    parser.add_argument("--kernels", nargs="+", choices=[*KERNELS, *MIXED],
                        help=f"default: {' '.join(KERNELS)}; with --mixed: {' '.join(MIXED)}")
    parser.add_argument("--mixed", action="store_true",
                        help="calls mixing arrays and Python numbers (MIXED): clamp3(x, 0.0, 1.0), d1(spot, 100.0, 0.2, t, 0.01)...")
    parser.add_argument("--json", default="dispatch_overhead.json", help="where to write the figures")
    parser.add_argument("--no-numba", action="store_true", help="the NumPy backend and NumPy by hand only")
    parser.add_argument("--clock", choices=list(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (time spent descheduled on a shared machine is not counted); "
                             "wall: perf_counter")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="print two runs' JSON side by side")
    opts = parser.parse_args(argv)
    if opts.compare:
        compare(*opts.compare)
        return 0
    global CLOCK
    CLOCK = CLOCKS[opts.clock]
    if opts.kernels is None:
        opts.kernels = list(MIXED if opts.mixed else KERNELS)
    warnings.simplefilter("error")  # a fallback would time the element-by-element loop
    with_numba = not opts.no_numba
    if with_numba:
        try:
            import numba  # noqa: F401
        except ImportError:
            with_numba = False
    info = machine()
    load = os.getloadavg()
    print(f"# {info['cpu']}, {info['cores']} cores; Python {info['python']}, NumPy {info['numpy']}, "
          f"Numba {info['numba']}; load average {load[0]:.2f} at start")
    results: dict[str, dict] = {}
    rng = np.random.default_rng(33)
    shuffle = random.Random(33)
    header = (f"{'kernel':8} {'size':>6}  {'candidate':16} {'median µs':>10} {'min µs':>8} {'spread %':>8} "
              f"{'overhead µs (median, min)':>26}")
    print(header)
    print("-" * len(header))
    for name in opts.kernels:
        for size_text in opts.sizes:
            size = None if size_text == "scalar" else int(float(size_text))
            if size is None and name in MIXED:
                continue  # numbers alone: the scalar kernels' rows measure that path
            cands, _ = candidates(name, size, rng, with_numba)
            auto_ran = cands.get("auto ran")
            rows = summary(measure(cands, opts.rounds, opts.budget_ms / 1e3, shuffle), auto_ran)  # type: ignore[arg-type]
            results[f"{name}/{size_text}"] = {"auto_ran": auto_ran, "rows": rows}
            for label, row in rows.items():
                over = f"{row['overhead_us']:16.2f} {row['overhead_min_us']:9.2f}" if "overhead_us" in row else ""
                print(f"{name:8} {size_text:>6}  {label:16} {row['median_us']:10.2f} {row['min_us']:8.2f} "
                      f"{row['spread_pct']:8.1f} {over}")
            print(f"{'':16}  (auto ran: {auto_ran})" if auto_ran else "")
    load_end = os.getloadavg()
    print(f"# load average {load_end[0]:.2f} at end; spread = interquartile range / median over {opts.rounds} rounds; "
          f"clock: {opts.clock}")
    info["loadavg"] = {"start": load, "end": load_end}
    Path(opts.json).write_text(json.dumps({"machine": info, "rounds": opts.rounds, "budget_ms": opts.budget_ms, "clock": opts.clock,
                                           "results": results}, indent=1) + "\n")
    print(f"# wrote {opts.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
