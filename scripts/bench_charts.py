"""The benchmark's charts, one question each (scripts/bench.py --chart DIR, or --from-json RUN.json).

* `speedup.png`: how much faster than the Python loop is each backend, per kernel? One panel per
  size, kernels sorted by the Numba backend's speed-up, a line at 1x: a bar left of it is slower
  than the loop.
* `vs_best.png`: how close to the best hand-written version (hand NumPy, Numba, JAX: whichever is
  fastest for that kernel and size) is each backend? 1x is as fast; right of it is slower.

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies) and
each backend also has its own hatch, so the charts read in greyscale too. Every bar is labelled with
its value; the machine and the run's date are in the title.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

# (variant key, label, Okabe-Ito colour, hatch)
BACKENDS = [
    ("vec_default", "vectorizer, default (exact)", "#009E73", "\\\\"),
    ("vec_numpy", "vectorizer, NumPy backend", "#0072B2", ""),
    ("vec_numba", "vectorizer, Numba backend", "#E69F00", "//"),
]
HAND = ("numpy", "numba", "jax")  # the ratios (bench.BASELINES) whose smallest time is "the best"


def _cells(doc: dict[str, Any]) -> dict[tuple[str, int, str], dict[str, Any]]:
    return {(r["kernel"], r["size"], r["variant"]): r for r in doc["results"] if r.get("status") == "ok"}


def speedup(cell: dict[str, Any] | None) -> float | None:
    """Python loop time / this variant's time (paired rounds: bench.add_ratios)."""
    ratio = (cell or {}).get("ratios", {}).get("python")
    return 1.0 / ratio if ratio else None


def versus_best(cell: dict[str, Any] | None) -> float | None:
    """This variant's time / the fastest hand-written version's (> 1: slower than it)."""
    ratios = [(cell or {}).get("ratios", {}).get(k) for k in HAND]
    found = [r for r in ratios if r]
    return max(found) if found else None  # t / min(base) is the largest of t / base


def _title(doc: dict[str, Any], question: str) -> str:
    machine = doc.get("machine", {})
    cpu = machine.get("cpu") or machine.get("processor") or "unknown CPU"
    simd = f", NumPy's {machine['numpy_simd']} kernels" if machine.get("numpy_simd") else ""
    disabled = machine.get("npy_disable_cpu_features")
    simd += f" (NPY_DISABLE_CPU_FEATURES={disabled})" if disabled else ""
    return f"{question}\n{cpu}{simd}, {doc.get('created', '')[:10]} (scripts/bench.py)"


def _panel(ax, kernels: list[str], values: dict[str, list[float | None]], reference: float, xlabel: str) -> None:
    import numpy as np

    y = np.arange(len(kernels))
    height = 0.8 / len(BACKENDS)
    for j, (key, label, colour, hatch) in enumerate(BACKENDS):
        vals = values[key]
        pos = y + (j - (len(BACKENDS) - 1) / 2) * height
        shown = [v if v else float("nan") for v in vals]
        bars = ax.barh(pos, [v - reference if v == v else 0 for v in shown], height=height * 0.95, left=reference,
                       color=colour, hatch=hatch, edgecolor="black", linewidth=0.4, label=label)
        for bar, v in zip(bars, shown):
            if v == v:
                ax.annotate(f"{v:.3g}x", (v, bar.get_y() + bar.get_height() / 2), xytext=(3 if v >= reference else -3, 0),
                            textcoords="offset points", va="center", ha="left" if v >= reference else "right",
                            fontsize=7)
            else:
                ax.annotate("n/a", (reference, bar.get_y() + bar.get_height() / 2), xytext=(3, 0),
                            textcoords="offset points", va="center", fontsize=7, color="grey")
    ax.axvline(reference, color="black", linewidth=1)
    ax.set_xscale("log")
    # Room on both sides for the labels (a bar left of the line ends at its label, not at the names).
    shown_all = [v for vals in values.values() for v in vals if v] + [reference]
    ax.set_xlim(min(shown_all) / 3.5, max(shown_all) * 3.5)
    ax.set_yticks(y, kernels)
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", which="major", alpha=0.3)


def _figure(doc: dict[str, Any], metric, question: str, xlabel: str, reference: float, path: Path,
            descending: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = _cells(doc)
    sizes = doc["config"]["sizes"]
    names = [k["name"] for k in doc["kernels"]]
    largest = sizes[-1]
    # One order for every panel: by the Numba backend (else NumPy) at the largest size, best first.
    def order(k: str) -> float:
        for key, *_ in reversed(BACKENDS):
            v = metric(cells.get((k, largest, key)))
            if v:
                return -v if descending else v
        return math.inf

    kernels = sorted(names, key=order)
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.6 * len(sizes), 0.36 * len(kernels) + 2.0), squeeze=False,
                             sharey=True)
    for ax, size in zip(axes[0], sizes):
        values = {key: [metric(cells.get((k, size, key))) for k in kernels] for key, *_ in BACKENDS}
        _panel(ax, kernels, values, reference, xlabel)
        ax.set_title(f"{size:,} elements")
    axes[0][0].invert_yaxis()  # the first kernel on top (the panels share the axis: once)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(_title(doc, question), fontsize=10)
    height = fig.get_size_inches()[1]
    fig.tight_layout(rect=(0, 0.5 / height, 1, 1 - 0.45 / height))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def draw_charts(doc: dict[str, Any], out: Path) -> list[Path]:
    """Write the charts of a benchmark run (bench.py's JSON document) into the folder `out`."""
    made = [out / "speedup.png", out / "vs_best.png"]
    _figure(doc, speedup, "How much faster than the Python loop? (right of 1x: faster)",
            "speed-up over the Python loop (log scale)", 1.0, made[0], descending=True)
    _figure(doc, versus_best, "How close to the best hand-written version (hand NumPy, Numba or JAX)? (1x: as fast; left: faster)",
            "time / the fastest hand-written version's (log scale)", 1.0, made[1], descending=False)
    return made
