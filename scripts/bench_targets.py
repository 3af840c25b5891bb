"""The performance targets of the benchmark, checked against one run's results.

`scripts/bench.py` puts this table at the top of its Markdown report; on its own it re-reads a
results file:

    python scripts/bench_targets.py bench-results/bench.json

Every ratio is variant time / baseline time from the same run: the baselines are timed side by
side, interleaved, and a ratio is the median over the rounds of the two samples' ratio in each
round (see `bench.add_ratios`). A target with no data (a backend or JAX not installed, a size not run) is
reported as such, never as met.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

# Kernel categories (see bench_kernels.py) the NumPy backend's 20x-over-Python target covers.
STRAIGHT_LINE = ("arithmetic", "math", "branches")


def _size(n: int) -> str:
    exp = round(math.log10(n)) if n > 0 else 0
    return f"1e{exp}" if n == 10**exp else f"{n:,}"


def _geomean(xs: list[float]) -> float | None:
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


class _Results:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.index = {(r["kernel"], r["size"], r["variant"]): r for r in doc["results"]}
        self.kernels = {k["name"]: k for k in doc["kernels"]}
        self.sizes = doc["config"]["sizes"]

    def ns(self, kernel: str, size: int, variant: str) -> float | None:
        r = self.index.get((kernel, size, variant))
        return r["ns_per_element"] if r and r["status"] == "ok" else None

    def ratio(self, kernel: str, size: int, variant: str, baseline: str) -> float | None:
        r = self.index.get((kernel, size, variant))
        return r["ratios"].get(baseline) if r and r["status"] == "ok" else None

    def ratios(self, size: int, variant: str, baseline: str, kernels=None) -> dict[str, float]:
        out = {}
        for k in kernels or self.kernels:
            x = self.ratio(k, size, variant, baseline)
            if x:
                out[k] = x
        return out


def _verdict(ok: bool | None) -> str:
    return "no data" if ok is None else "met" if ok else "NOT MET"


def _worst(ratios: dict[str, float], high: bool = True) -> str:
    if not ratios:
        return "–"
    k = max(ratios, key=ratios.get) if high else min(ratios, key=ratios.get)
    return f"{k} {ratios[k]:.2f}×"


def _misses(ratios: dict[str, float], ok) -> str:
    bad = [f"{k} {x:.2f}×" for k, x in sorted(ratios.items(), key=lambda kv: -kv[1]) if not ok(x)]
    return ", ".join(bad) if bad else "–"


def targets(doc: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(target, measured, verdict, misses) rows."""
    res = _Results(doc)
    big = max(res.sizes)
    rows: list[tuple[str, str, str, str]] = []

    numpy = res.ratios(big, "vec_numpy", "numpy")
    geo = _geomean(list(numpy.values()))
    rows.append((f"NumPy backend / hand NumPy @{_size(big)}: every kernel ≤ 1.5×", f"worst {_worst(numpy)}",
                 _verdict(all(x <= 1.5 for x in numpy.values()) if numpy else None),
                 _misses(numpy, lambda x: x <= 1.5)))
    rows.append((f"NumPy backend / hand NumPy @{_size(big)}: geometric mean ≤ 1.2×",
                 "–" if geo is None else f"{geo:.2f}×", _verdict(None if geo is None else geo <= 1.2), "–"))

    for size in [s for s in res.sizes if s >= 100_000]:
        numba = res.ratios(size, "vec_numba", "numba")
        rows.append((f"Numba backend / best hand Numba @{_size(size)}: every kernel ≤ 1.25×",
                     f"worst {_worst(numba)}", _verdict(all(x <= 1.25 for x in numba.values()) if numba else None),
                     _misses(numba, lambda x: x <= 1.25)))

    jax = res.ratios(big, "vec_numba", "jax")
    loops = [k for k, info in res.kernels.items() if "while" in info["category"]]
    g_all = _geomean(list(jax.values()))
    g_loops = _geomean([x for k, x in jax.items() if k in loops])
    rows.append((f"Numba backend / JAX jit(vmap) @{_size(big)}: geometric mean < 1×",
                 "–" if g_all is None else f"{g_all:.2f}×", _verdict(None if g_all is None else g_all < 1), "–"))
    rows.append((f"Numba backend / JAX @{_size(big)}, while-loop kernels: geometric mean ≤ 0.5× (≥ 2× faster)",
                 "–" if g_loops is None else f"{g_loops:.2f}×", _verdict(None if g_loops is None else g_loops <= 0.5), "–"))

    for variant, baseline, label in (("vec_auto", "backends", "auto / faster of the two backends"),
                                     ("vec_auto_vm", "backends_vm",
                                      "auto, vector_math=True / faster of the two backends with it")):
        for size in [s for s in res.sizes if s >= 100_000]:
            auto = res.ratios(size, variant, baseline)
            rows.append((f"{label} @{_size(size)}: every kernel ≤ 1.1×",
                         f"worst {_worst(auto)}", _verdict(all(x <= 1.1 for x in auto.values()) if auto else None),
                         _misses(auto, lambda x: x <= 1.1)))

    straight = [k for k, info in res.kernels.items() if info["category"].split(",")[0].strip() in STRAIGHT_LINE]
    for variant, kernels, least, label in (
            ("vec_numpy", straight, 20, "NumPy backend vs Python loop @{} (arithmetic, math, branches):"),
            ("vec_numpy_vm", straight, 20, "NumPy backend, vector_math=True (opt-in), vs Python loop @{} (same kernels):"),
            ("vec_numba", None, 50, "Numba backend vs Python loop @{}: every kernel"),
            ("vec_numba_vm", None, 50, "Numba backend, vector_math=True (opt-in), vs Python loop @{}: every kernel")):
        speed = {k: 1 / x for k, x in res.ratios(big, variant, "python", kernels).items()}
        rows.append((f"{label.format(_size(big))} ≥ {least}× faster", f"slowest {_worst(speed, high=False)}",
                     _verdict(all(x >= least for x in speed.values()) if speed else None),
                     ", ".join(f"{k} {x:.1f}×" for k, x in speed.items() if x < least) or "–"))

    small = min(res.sizes)
    for variant, label, hand in (("vec_numpy", "NumPy", "numpy"), ("vec_numba", "Numba", "numba_vectorize")):
        calls = {k: res.ns(k, small, variant) for k in res.kernels}
        calls = {k: v * small / 1000 for k, v in calls.items() if v}
        if not calls:
            rows.append((f"{label} backend at {_size(small)} elements: call overhead (reported)", "–", "no data", "–"))
            continue
        light = min(calls, key=calls.get)  # the kernel with the least work: what a call costs
        base = res.ns(light, small, hand)
        base_text = "" if base is None else f" vs {base * small / 1000:.1f} µs hand-written ({hand})"
        rows.append((f"{label} backend at {_size(small)} elements: call overhead (reported)",
                     f"{light}: {calls[light]:.1f} µs a call{base_text}", "reported", "–"))
    return rows


def markdown(doc: dict[str, Any]) -> list[str]:
    out = ["## Targets (from this run)", "",
           "| target | measured | verdict | misses |", "| :-- | :-- | :-- | :-- |"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in targets(doc)]
    out += ["", "Transformation and start-up targets (cold transform ≤ 50 ms, first call with a warm "
            "cache ≤ 10 ms beyond importing NumPy/Numba) are measured by `scripts/bench_startup.py`.", ""]
    return out


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="The benchmark's targets, checked against one run's results.")
    parser.add_argument("results", nargs="?", default="bench-results/bench.json", type=Path,
                        help="a JSON file written by scripts/bench.py --json (default: %(default)s)")
    path = parser.parse_args().results
    if not path.is_file():
        parser.error(f"{path}: no such file; write one with: python scripts/bench.py --json {path}")
    print("\n".join(markdown(json.loads(path.read_text()))))
