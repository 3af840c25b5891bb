"""The numbers of the README and of docs/performance.md's first screen, generated from the
project's recorded results, never typed:

* `corpus`: what works on real code, from corpus/results/results.json (`scripts/corpus.py run`);
* `readme-speed`: the README's summary of those, at 1e6 lanes;
* `perf-tables`: one table per configuration (NumPy backend, Numba backend, auto), from the full
  benchmark runs committed under docs/runs/ (`scripts/bench.py --markdown`), one per CPU kind;
* `example-output`: what `python examples/escape_time.py` prints (its timings are this machine's);
* the chart of docs/performance.md (`--chart`, needs matplotlib), from the AVX-512 run.

Each block sits in its file between `<!-- generated: NAME (scripts/docs_numbers.py) -->` and
`<!-- end generated: NAME -->`. Usage:

    python scripts/docs_numbers.py --check      # exit 1 if a block differs from what it would write
    python scripts/docs_numbers.py --write      # rewrite the blocks (runs the example: ~10 s)
    python scripts/docs_numbers.py --chart docs/

tests/scripts/test_docs_numbers.py runs --check, and checks the example's block against a fresh
run of the example with the timings left out.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = {"AVX-512": ROOT / "docs/runs/bench-2026-12-04-44e71e2-avx512.md",
        "AVX2": ROOT / "docs/runs/bench-2026-12-04-fc7dc55-avx2.md"}
SIZES = ("1e3", "1e5", "1e6")
HAND_NUMBA = ("numba prange", "numba.vectorize")
CONFIGURATIONS = [  # (name, variant in the runs, what it is compared with, its column, the comparators' variants)
    ("NumPy backend (`backend=\"numpy\"`, today's default)", "vectorizer numpy", "hand-written NumPy",
     "hand NumPy", ("hand NumPy",)),
    ("Numba backend (`backend=\"numba\"`)", "vectorizer numba", "the faster of two hand-written Numba kernels",
     "hand Numba", HAND_NUMBA),
    ("`backend=\"auto\"`", "vectorizer auto", "the fastest hand-written version (NumPy or Numba)", "best hand-written",
     ("hand NumPy", *HAND_NUMBA)),
]
TIMING = re.compile(r"\d[\d,]*(\.\d+)?")


# -- reading the runs ------------------------------------------------------------------------------
def per_element(run: Path) -> dict[str, dict[str, dict[str, float]]]:
    """kernel -> variant -> size -> ns a lane, from a run's per-kernel tables."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    kernel = None
    for line in run.read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            kernel = line[4:].split()[0]
            out[kernel] = {}
        elif kernel and line.startswith("| ") and not line.startswith(("| variant", "| :--")):
            cells = [c.strip() for c in line.strip("|").split("|")]
            values = {}
            for size, cell in zip(SIZES, cells[1:4]):
                number = cell.rstrip("*").replace(",", "")
                if re.fullmatch(r"\d+(\.\d+)?", number):
                    values[size] = float(number)
            out[kernel][cells[0]] = values
    return out


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def summary(run: Path, variant: str, comparators: tuple[str, ...], size: str) -> dict[str, object]:
    """Speed-up over the Python loop and time against the comparators, over the run's kernels."""
    speedups, ratios = {}, {}
    for kernel, rows in per_element(run).items():
        mine = rows[variant][size]
        speedups[kernel] = rows["Python loop"][size] / mine
        ratios[kernel] = mine / min(rows[c][size] for c in comparators)
    slowest = min(speedups, key=speedups.get)
    worst = max(ratios, key=ratios.get)
    return {"speedup": geomean(list(speedups.values())), "slowest": (slowest, speedups[slowest]),
            "ratio": geomean(list(ratios.values())), "worst": (worst, ratios[worst]), "kernels": len(ratios)}


def _x(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.0f}×"


def perf_tables() -> str:
    """One table per configuration: a row per batch size; geometric means on both CPU kinds, and
    the slowest / worst kernel of the first (the chart's run)."""
    kinds = list(RUNS)
    both = " / ".join(kinds)  # two figures in a cell: one per CPU kind
    out = []
    for name, variant, against, column, comparators in CONFIGURATIONS:
        out += [f"**{name}**, against the Python loop and {against} ({both}; the kernels named are "
                f"the {kinds[0]} run's):", "",
                f"| lanes | × faster than the loop | slowest kernel | time ÷ {column} | worst kernel |",
                "| :-- | --: | --: | --: | --: |"]
        for size in SIZES:
            cells = [summary(RUNS[k], variant, comparators, size) for k in kinds]
            first = cells[0]
            out.append(f"| {size} | {' / '.join(_x(c['speedup']) for c in cells)} "
                       f"| {first['slowest'][0]}\u00a0{_x(first['slowest'][1])} "
                       f"| {' / '.join(_x(c['ratio']) for c in cells)} | {first['worst'][0]}\u00a0{_x(first['worst'][1])} |")
        out.append("")
    count = summary(RUNS[kinds[0]], "vectorizer numpy", ("hand NumPy",), "1e6")["kernels"]
    out.append(f"Geometric means over the {count} kernels; \"time ÷\" below 1× means vectorizer is faster. "
               "From the full runs " + " and ".join(f"[{k}](runs/{RUNS[k].name})" for k in kinds)
               + " (per-element medians; the Python loop timed on a slice of the lanes at 1e5 and 1e6).")
    return "\n".join(out)


def readme_speed() -> str:
    """The README's few figures: each configuration at 1e6 lanes, on both CPU kinds."""
    kinds = list(RUNS)
    count = summary(RUNS[kinds[0]], "vectorizer numpy", ("hand NumPy",), "1e6")["kernels"]
    lines = [f"| {count} kernels, 1e6 lanes | faster than the Python loop ({' / '.join(kinds)}) "
             f"| time ÷ hand-written code ({' / '.join(kinds)}) |", "| :-- | --: | --: |"]
    for name, variant, _, column, comparators in CONFIGURATIONS:
        cells = [summary(RUNS[k], variant, comparators, "1e6") for k in kinds]
        lines.append(f"| {name.split(' (')[0]} | {' / '.join(_x(c['speedup']) for c in cells)} "
                     f"| {' / '.join(_x(c['ratio']) for c in cells)} ({column}) |")
    return "\n".join(lines)


def corpus() -> str:
    doc = json.loads((ROOT / "corpus/results/results.json").read_text(encoding="utf-8"))
    meta, rows = doc["meta"], doc["summary"]
    packages = [p for p in meta["versions"] if p != "stdlib"]
    total = len(doc["functions"])
    lines = ["| backend | functions run | same values and exceptions as the loop | refused (with the reason) "
             "| wrong | crashed | median speed-up over the loop |", "| :-- | --: | --: | --: | --: | --: | --: |"]
    for backend in meta["backends"]:
        r = rows[backend]
        lines.append(f"| {backend} | {r['functions']} | {r['CORRECT']} ({r['correct_pct']}%) | {r['UNSUPPORTED']} "
                     f"| {r['WRONG']} | {r['CRASH']} | {r['median_speedup']}× |")
    lines += ["", f"{total} functions from {len(packages)} pure-Python packages and the standard library, chosen by "
              "a rule written before they were run (`corpus/selection.py`), each on "
              f"{meta['lanes']:,} lanes with hostile values mixed in ({meta['date'][:10]}, vectorizer "
              f"{meta['commit']}; `corpus/results/results.md`)."]
    return "\n".join(lines)


def example_output() -> str:
    import os
    import platform
    import time

    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, str(ROOT / "examples/escape_time.py")], capture_output=True, text=True,
                          check=True, cwd=ROOT, env=_env())
    return ("```text\n" + done.stdout.rstrip("\n") + "\n```\n\n"
            f"(One run on {_cpu() or platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}, "
            f"{time.strftime('%Y-%m-%d')}: `python scripts/docs_numbers.py --write`.)")


def _cpu() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT)}


GENERATORS = {"corpus": ("README.md", corpus), "readme-speed": ("README.md", readme_speed),
              "perf-tables": ("docs/performance.md", perf_tables), "example-output": ("README.md", example_output)}


# -- the blocks in the files -------------------------------------------------------------------
def pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated: {re.escape(name)} \(scripts/docs_numbers.py\) -->\n)(.*?)"
                      rf"(\n<!-- end generated: {re.escape(name)} -->)", re.S)


def block(name: str) -> str:
    """The block's current text in its file."""
    file, _ = GENERATORS[name]
    found = pattern(name).search((ROOT / file).read_text(encoding="utf-8"))
    if found is None:
        raise SystemExit(f"{file}: no generated block {name!r}")
    return found.group(2)


def write(name: str, text: str) -> bool:
    file, _ = GENERATORS[name]
    path = ROOT / file
    old = path.read_text(encoding="utf-8")
    if not pattern(name).search(old):
        raise SystemExit(f"{file}: no generated block {name!r}")
    new = pattern(name).sub(lambda m: m.group(1) + text + m.group(3), old)
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old


def masked(text: str) -> str:
    """The example's output with its timings (the line that reports them) reduced to their shape."""
    return "\n".join(TIMING.sub("N", line) if line.startswith("first call") else line for line in text.splitlines())


# -- the chart ---------------------------------------------------------------------------------
CHART = "performance-summary.png"


def chart(folder: Path) -> Path:
    """docs/performance.md's first screen: two panels side by side sharing the kernels, at 1e6
    lanes, from the AVX-512 run: how many times faster than the Python loop, and the time against
    hand-written code (NumPy backend: hand NumPy; Numba backend: the faster hand Numba kernel).
    Sized for a page's width (6.4 in at 110 dpi, ~700 px: shown about 1:1, the text stays ~10 pt)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    data = per_element(RUNS["AVX-512"])
    kernels = sorted(data, key=lambda k: data[k]["Python loop"]["1e6"] / data[k]["vectorizer numba"]["1e6"])
    backends = [("vectorizer numpy", "NumPy backend", "#0072B2", "", ("hand NumPy",)),
                ("vectorizer numba", "Numba backend", "#E69F00", "//", HAND_NUMBA)]
    panels = [("× faster than the loop", lambda r, v, c: r["Python loop"]["1e6"] / r[v]["1e6"],
               lambda v: f"{v:.1f}" if v < 10 else f"{v:.0f}", [1, 10, 100, 1000]),
              ("time ÷ hand-written", lambda r, v, c: r[v]["1e6"] / min(r[x]["1e6"] for x in c),
               lambda v: f"{v:.2f}", [0.25, 0.5, 1, 2])]
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 5.6), dpi=110, sharey=True)
    height = 0.4
    for ax, (label, value, text, ticks) in zip(axes, panels):
        for j, (variant, legend, colour, hatch, comparators) in enumerate(backends):
            vals = [value(data[k], variant, comparators) for k in kernels]
            ys = [i + (0.5 - j) * height for i in range(len(kernels))]
            ax.barh(ys, vals, height=height, color=colour, hatch=hatch, edgecolor="black", linewidth=0.4, label=legend)
            for y, v in zip(ys, vals):
                ax.text(v * 1.06, y, text(v), va="center", fontsize=8)
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.axvline(1.0, color="black", linewidth=0.9)
        ax.set_xlabel(label + " (log scale)", fontsize=9.5)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.tick_params(axis="x", labelsize=8.5)
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 2.5)  # room for the labels
    axes[0].set_yticks(range(len(kernels)), kernels, fontsize=9.5)
    axes[0].invert_yaxis()
    run = RUNS["AVX-512"].name.removesuffix(".md")
    commit = run.split("-")[4]  # bench-YYYY-MM-DD-<commit>-<kind>
    fig.suptitle(f"1,000,000 lanes; AMD EPYC, 2 cores, AVX-512 (run of {commit})", fontsize=9.5, x=0.55)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=2, fontsize=9, frameon=False, bbox_to_anchor=(0.6, 0.925))
    fig.subplots_adjust(left=0.25, right=0.985, top=0.865, bottom=0.085, wspace=0.06)
    path = folder / CHART
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if a block (the example's aside) is stale")
    mode.add_argument("--write", action="store_true", help="rewrite every block")
    mode.add_argument("--chart", metavar="DIR", type=Path, help=f"draw {CHART} into DIR")
    args = parser.parse_args()
    if args.chart:
        print(chart(args.chart))
        return 0
    stale = []
    for name, (file, generate) in GENERATORS.items():
        if args.write:
            if write(name, generate()):
                print(f"rewrote {name} in {file}")
        elif name != "example-output" and block(name) != generate():
            stale.append(f"{file}: the block {name!r} is stale: python scripts/docs_numbers.py --write")
    print("\n".join(stale) or "ok", file=sys.stderr if stale else sys.stdout)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
