"""The performance targets of the benchmark, checked against one run's results.

`scripts/bench.py` puts this table at the top of its Markdown report; on its own it re-reads a
results file:

    python scripts/bench_targets.py bench-results/bench.json
    python scripts/bench_targets.py bench-results/bench.json --jax bench-results/jax.json  # JAX timed apart

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

    def jax_ratios(self, size: int, variant: str) -> dict[str, float]:
        """variant / JAX: paired by round when JAX ran in the same process, else (JAX timed in a
        process of its own, `--jax`) the quotient of the two medians."""
        out = {}
        for k in self.kernels:
            mine, theirs = self.ns(k, size, variant), self.ns(k, size, "jax")
            x = self.ratio(k, size, variant, "jax") or (mine / theirs if mine and theirs else None)
            if x:
                out[k] = x
        return out

    def microseconds_above(self, size: int, variant: str, hands: tuple[str, ...]) -> dict[str, float]:
        """How much longer a call of `size` lanes takes than the fastest hand-written one (µs)."""
        out = {}
        for k in self.kernels:
            mine = self.ns(k, size, variant)
            hand = [v for v in (self.ns(k, size, h) for h in hands) if v]
            if mine and hand:
                out[k] = (mine - min(hand)) * size / 1000
        return out

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


# The targets of issue 50 (exact by default), at 1e5 lanes and more: the default against the
# faster of hand NumPy and hand Numba that returns CPython's values; exact=False against plain
# hand Numba; the default against JAX.
DEFAULT_EVERY, DEFAULT_GEOMEAN, FAST_EVERY, FAST_GEOMEAN, JAX_WINS = 1.1, 1.0, 1.1, 1.0, 14
DEFAULT_VARIANT = "vec_default"  # vectorize(f) with no options: backend="auto", exact=True


def targets(doc: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(target, measured, verdict, misses) rows."""
    res = _Results(doc)
    big = max(res.sizes)
    rows: list[tuple[str, str, str, str]] = []

    def every(label: str, ratios: dict[str, float], bound: float) -> None:
        rows.append((f"{label}: every kernel ≤ {bound:g}×", f"worst {_worst(ratios)}",
                     _verdict(all(x <= bound for x in ratios.values()) if ratios else None),
                     _misses(ratios, lambda x: x <= bound)))

    def geomean(label: str, ratios: dict[str, float], bound: float) -> None:
        geo = _geomean(list(ratios.values()))
        rows.append((f"{label}: geometric mean ≤ {bound:g}×", "–" if geo is None else f"{geo:.2f}×",
                     _verdict(None if geo is None else geo <= bound), "–"))

    for size in [s for s in res.sizes if s >= 100_000]:
        exact = res.ratios(size, DEFAULT_VARIANT, "hand_exact")
        every(f"default / better of hand NumPy and exact hand Numba @{_size(size)}", exact, DEFAULT_EVERY)
        geomean(f"default / better of hand NumPy and exact hand Numba @{_size(size)}", exact, DEFAULT_GEOMEAN)
        fast = res.ratios(size, "vec_fast", "numba")
        every(f"exact=False / plain hand Numba @{_size(size)}", fast, FAST_EVERY)
        geomean(f"exact=False / plain hand Numba @{_size(size)}", fast, FAST_GEOMEAN)
    for size in [s for s in res.sizes if s >= 100_000]:
        jax = res.jax_ratios(size, DEFAULT_VARIANT)
        wins = sum(x < 1 for x in jax.values())
        rows.append((f"default / JAX jit(vmap) @{_size(size)}: faster on ≥ {JAX_WINS} of {len(res.kernels)} kernels",
                     f"faster on {wins} of {len(jax)}" if jax else "–",
                     _verdict(wins >= JAX_WINS if jax else None), _misses(jax, lambda x: x < 1)))
    numpy = res.ratios(big, "vec_numpy", "numpy")
    rows.append((f"NumPy route (exact) / hand NumPy @{_size(big)} (reported)", f"worst {_worst(numpy)}",
                 "reported" if numpy else "no data", "–"))
    numba = res.ratios(big, "vec_numba", "numba")
    rows.append((f"Numba backend / best plain hand Numba @{_size(big)} (reported)", f"worst {_worst(numba)}",
                 "reported" if numba else "no data", "–"))
    return rows


def markdown(doc: dict[str, Any]) -> list[str]:
    out = ["## Targets (from this run)", "",
           "| target | measured | verdict | misses |", "| :-- | :-- | :-- | :-- |"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in targets(doc)]
    out += ["", "Transformation and start-up targets (cold transform ≤ 50 ms, first call with a warm "
            "cache ≤ 10 ms beyond importing NumPy/Numba) are measured by `scripts/bench_startup.py`.", ""]
    return out


def with_jax_from(doc: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """`doc` with its JAX cells taken from `other`, a run of `--variants jax` in a process of its
    own (XLA's threads spin and slow Numba's parallel variants when both run in one process); the
    ratios against JAX are then quotients of medians, the two runs' rounds being unpaired."""
    theirs = {(r["kernel"], r["size"]): r for r in other["results"] if r["variant"] == "jax" and r["status"] == "ok"}
    results = []
    for r in doc["results"]:
        took = theirs.get((r["kernel"], r["size"])) if r["variant"] == "jax" else None
        results.append(dict(took, ratios={}) if took else dict(r, ratios={**r.get("ratios", {}), "jax": None}))
    return dict(doc, results=results)


def jax_table(doc: dict[str, Any]) -> list[str]:
    """Per kernel at the largest size: ns a lane of JAX, and each backend's time against it."""
    res = _Results(doc)
    big = max(res.sizes)
    variants = (("vec_default", "default (exact)"), ("vec_fast", "exact=False"), ("vec_numpy", "NumPy backend"),
                ("vec_numba", "Numba backend"))
    per = {v: res.jax_ratios(big, v) for v, _ in variants}
    out = [f"### Against JAX jit(vmap) at {_size(big)} elements (time ratio; < 1 means vectorizer is faster)", "",
           "| kernel | JAX ns a lane | " + " | ".join(label for _, label in variants) + " |",
           "| :-- | --: |" + " --: |" * len(variants)]
    for k in res.kernels:
        jax = res.ns(k, big, "jax")
        cells = [f"{per[v][k]:.2f}×" if k in per[v] else "–" for v, _ in variants]
        out.append(f"| {k} | {'–' if jax is None else f'{jax:.3g}'} | " + " | ".join(cells) + " |")
    geos = [_geomean(list(per[v].values())) for v, _ in variants]
    out.append("| geometric mean | | " + " | ".join("–" if g is None else f"{g:.2f}×" for g in geos) + " |")
    return out + [""]


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="The benchmark's targets, checked against one run's results.")
    parser.add_argument("results", nargs="?", default="bench-results/bench.json", type=Path,
                        help="a JSON file written by scripts/bench.py --json (default: %(default)s)")
    parser.add_argument("--jax", type=Path, metavar="RUN.json",
                        help="take the JAX cells from this run of `bench.py --variants jax` (timed in "
                        "a process of its own)")
    args = parser.parse_args()
    for path in filter(None, (args.results, args.jax)):
        if not path.is_file():
            parser.error(f"{path}: no such file; write one with: python scripts/bench.py --json {path}")
    doc = json.loads(args.results.read_text())
    if args.jax:
        doc = with_jax_from(doc, json.loads(args.jax.read_text()))
    print("\n".join(markdown(doc) + jax_table(doc)))
