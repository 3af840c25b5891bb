"""The numbers of the README and of docs/performance.md's first screen, generated from the
project's recorded results, never typed:

* `corpus`: what works on real code, from both corpora's latest runs (`scripts/corpus.py run`);
* `readme-speed`: the README's summary of the benchmark, at 1e6 lanes;
* `perf-tables`: one table per configuration (the default, `exact=False`, `backend="numpy"`,
  `backend="numba"`) against the hand-written code it is compared with, at 1e5 and 1e6 lanes,
  from the runs of the exact default committed under docs/runs/ (`scripts/bench.py --json`), one
  per CPU kind;
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
# The runs of the exact default (issue 50): the same commit, NumPy's AVX-512 kernels and AVX2 ones.
RUNS = {"AVX-512": ROOT / "docs/runs/2026-12-06-exact-default-avx512.json",
        "AVX2": ROOT / "docs/runs/2026-12-06-exact-default-avx2.json"}
RUN_PAGE = ROOT / "docs/runs/2026-12-06-exact-default.md"  # what the runs are, their conditions, the misses
SIZES = {"1e5": 100_000, "1e6": 1_000_000}
# A configuration: its title, its README name, its variant in the runs, its baseline among the
# runs' `ratios` (scripts/bench.py's BASELINES: the faster of their variants in each round), that
# baseline in full (performance.md), in short (a column) and as the README names it.
EXACT_HAND = ("the faster of hand-written NumPy (NumPy's own math: not CPython's bits) and hand-written "
              "Numba with CPython's `pow` (CPython's bits)")
PLAIN_NUMBA = "the faster of two plain hand-written Numba kernels (`prange`, `numba.vectorize`)"
CONFIGURATIONS = [
    ("The default, `vectorize(f)` (`backend=\"auto\"`, exact)", "default `vectorize(f)`", "vec_default",
     "hand_exact", EXACT_HAND, "best of hand NumPy and exact hand Numba",
     "the better of hand NumPy (not CPython's bits) and exact hand Numba"),
    ("`exact=False`", "`exact=False`", "vec_fast", "numba", PLAIN_NUMBA, "hand Numba", "plain hand Numba"),
    ("`backend=\"numpy\"` (exact)", "`backend=\"numpy\"`", "vec_numpy", "numpy",
     "hand-written NumPy (NumPy's own math: not CPython's bits)", "hand NumPy", "hand NumPy (not CPython's bits)"),
    ("`backend=\"numba\"` (exact)", "`backend=\"numba\"`", "vec_numba", "numba", PLAIN_NUMBA, "hand Numba",
     "plain hand Numba"),
]
TIMING = re.compile(r"\d[\d,]*(\.\d+)?")


# -- reading the runs ------------------------------------------------------------------------------
def load(kind: str) -> dict:
    return json.loads(RUNS[kind].read_text(encoding="utf-8"))


def ratios(run: dict, variant: str, baseline: str, size: str) -> dict[str, float]:
    """kernel -> the run's ratio of `variant` to `baseline` at `size` lanes, where both have data:
    variant time / baseline time, paired by round (scripts/bench.py's add_ratios)."""
    out = {}
    for r in run["results"]:
        if r["variant"] == variant and r["size"] == SIZES[size] and r["status"] == "ok":
            x = (r.get("ratios") or {}).get(baseline)
            if x is not None:
                out[r["kernel"]] = x
    return out


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def summary(run: dict, variant: str, baseline: str, size: str) -> dict[str, object]:
    """The geometric mean of the time ratios over the kernels with data, and the worst kernel."""
    found = ratios(run, variant, baseline, size)
    if not found:
        raise SystemExit(f"no {variant} / {baseline} ratios at {size} lanes in a run of {', '.join(map(str, RUNS.values()))}")
    worst = max(found, key=found.get)
    return {"ratio": geomean(list(found.values())), "worst": (worst, found[worst]), "kernels": len(found)}


def _x(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.0f}×"


def _loads(runs: list[dict]) -> list[float]:
    """The 1-minute load averages the runs recorded as they started and ended."""
    return [r["machine"]["load_average"][0] for r in runs] + [r["machine"].get("load_average_end", [0])[0] for r in runs]


def _idle(runs: list[dict]) -> bool:
    """No more runnable threads than cores while the runs ran: only the benchmark's own."""
    return max(_loads(runs)) <= min(r["machine"]["usable_cores"] for r in runs)


def _provenance(link: str) -> str:
    """Where the figures come from, and how far to trust them: the load the runs record decides
    between "idle" and "provisional"."""
    runs = [load(k) for k in RUNS]
    repeats = {r["config"]["repeats"] for r in runs}
    cores = {r["machine"]["usable_cores"] for r in runs}
    loads = _loads(runs)
    idle = _idle(runs)
    state = (f"{' and '.join(RUNS)} runs on an idle {'/'.join(map(str, sorted(cores)))}-vCPU VM (1-minute load "
             f"{min(loads):.1f}-{max(loads):.1f}: the benchmark's own threads)") if idle else \
        f"Provisional: {' and '.join(RUNS)} runs on a loaded, shared {'/'.join(map(str, sorted(cores)))}-vCPU VM"
    return (f"{state}, {'/'.join(map(str, sorted(repeats)))} interleaved repeats or more ([the runs]({link})). "
            "\"time ÷\" is the median over the rounds of the two variants' ratio in each round; "
            "below 1× vectorizer is faster. The Python loop was not timed in these runs.")


def _pair(cells: list[dict[str, object]], key: str) -> str:
    if key == "ratio":
        return " / ".join(_x(c["ratio"]) for c in cells)
    return " / ".join(f"{c['worst'][0]}\u00a0{_x(c['worst'][1])}" for c in cells)


def perf_tables() -> str:
    """One table per configuration: a row per batch size; geometric means and the worst kernel on
    both CPU kinds."""
    kinds = list(RUNS)
    runs = [load(k) for k in kinds]
    both = " / ".join(kinds)  # two figures in a cell: one per CPU kind
    out = []
    for name, _, variant, baseline, against, column, _ in CONFIGURATIONS:
        out += [f"**{name}**, against {against} ({both}):", "",
                f"| lanes | time ÷ {column} | worst kernel |", "| :-- | --: | --: |"]
        for size in SIZES:
            cells = [summary(run, variant, baseline, size) for run in runs]
            out.append(f"| {size} | {_pair(cells, 'ratio')} | {_pair(cells, 'worst')} |")
        out.append("")
    count = summary(runs[0], "vec_default", "hand_exact", "1e6")["kernels"]
    out.append(f"Geometric means over the {count} kernels that both sides ran. "
               + _provenance(RUN_PAGE.relative_to(ROOT / "docs").as_posix()))
    return "\n".join(out)


def readme_speed() -> str:
    """The README's few figures: each configuration at 1e6 lanes, on both CPU kinds."""
    kinds = list(RUNS)
    runs = [load(k) for k in kinds]
    both = " / ".join(kinds)
    count = summary(runs[0], "vec_default", "hand_exact", "1e6")["kernels"]
    lines = [f"| {count} kernels, 1e6 lanes | compared with | time ÷ that ({both}) | worst kernel ({both}) |",
             "| :-- | :-- | --: | --: |"]
    for _, name, variant, baseline, _, _, against in CONFIGURATIONS:
        cells = [summary(run, variant, baseline, "1e6") for run in runs]
        lines.append(f"| {name} | {against} | {_pair(cells, 'ratio')} | {_pair(cells, 'worst')} |")
    return "\n".join(lines) + "\n\n" + _provenance(RUN_PAGE.relative_to(ROOT).as_posix())


CORPORA = {  # name -> (its results, what it is)
    "first": (ROOT / "corpus/results/after/results.json", "the project's own corpus (`corpus/selection.py`)"),
    "second": (ROOT / "corpus/second/results/after/results.json",
               "a second corpus from fields the first does not touch, built before issue 51 changed anything "
               "(`corpus/second/selection.py`)"),
}


def corpus() -> str:
    """Both corpora's tables: what works on real code, the one nobody here tuned to included."""
    lines = ["| corpus | backend | functions run | same values and exceptions as the loop | refused (with the reason) "
             "| wrong | crashed | median speed-up over the loop |", "| :-- | :-- | --: | --: | --: | --: | --: | --: |"]
    notes = []
    for name, (path, what) in CORPORA.items():
        doc = json.loads(path.read_text(encoding="utf-8"))
        meta, rows = doc["meta"], doc["summary"]
        for backend in meta["backends"]:
            r = rows[backend]
            lines.append(f"| {name} | {backend} | {r['functions']} | {r['CORRECT']} ({r['correct_pct']}%) "
                         f"| {r['UNSUPPORTED']} | {r['WRONG']} | {r['CRASH']} | {r['median_speedup']}× |")
        packages = [p for p in meta["versions"] if p != "stdlib"]
        notes.append(f"{name}: {len(doc['functions'])} functions from {len(packages)} packages and the standard "
                     f"library, {what}, on {meta['lanes']:,} lanes with hostile values mixed in ({meta['date'][:10]}, "
                     f"vectorizer {meta['commit']}; `{path.parent.relative_to(ROOT)}/results.md`)")
    return "\n".join([*lines, "", "Chosen by a rule written before they were run, not because they pass. "
                       + "; ".join(notes) + "."])


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
    """docs/performance.md's first screen: the time of each configuration against the hand-written
    code it is compared with, per kernel at 1e6 lanes, from the AVX-512 run; two panels side by
    side sharing the kernels: the default and exact=False (left), the two backends (right).
    Sized for a page's width (6.4 in at 110 dpi, ~700 px: shown about 1:1, the text stays ~10 pt)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    run = load("AVX-512")
    bars = {variant: ratios(run, variant, baseline, "1e6") for _, _, variant, baseline, *_ in CONFIGURATIONS}
    kernels = sorted(bars["vec_default"], key=bars["vec_default"].get)
    styles = {"vec_default": ("default ÷ hand NumPy or exact hand Numba", "#0072B2", ""),
              "vec_fast": ("exact=False ÷ plain hand Numba", "#E69F00", "//"),
              "vec_numpy": ("backend=\"numpy\" ÷ hand NumPy", "#009E73", ".."),
              "vec_numba": ("backend=\"numba\" ÷ plain hand Numba", "#CC79A7", "\\\\")}
    fig, axes = plt.subplots(1, 2, figsize=(6.4, 6.2), dpi=110, sharey=True)
    height = 0.4
    for ax, variants in zip(axes, (("vec_default", "vec_fast"), ("vec_numpy", "vec_numba"))):
        for j, variant in enumerate(variants):
            legend, colour, hatch = styles[variant]
            pairs = [(i + (j - 0.5) * height, bars[variant][k]) for i, k in enumerate(kernels) if k in bars[variant]]
            ys, vals = [y for y, _ in pairs], [v for _, v in pairs]
            ax.barh(ys, vals, height=height, color=colour, hatch=hatch, edgecolor="black", linewidth=0.4, label=legend)
            for y, v in pairs:
                ax.text(v * 1.08, y, f"{v:.2f}" if v < 10 else f"{v:.0f}", va="center", fontsize=7.5)
        ax.set_xscale("log")
        ticks = [0.25, 0.5, 1, 2, 4, 8]
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.axvline(1.0, color="black", linewidth=0.9)
        ax.set_xlabel("time ÷ hand-written (log scale)", fontsize=9)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.tick_params(axis="x", labelsize=8.5)
        lo, hi = ax.get_xlim()
        ax.set_xlim(lo, hi * 2.5)  # room for the labels
    axes[0].set_yticks(range(len(kernels)), kernels, fontsize=9)
    axes[0].invert_yaxis()
    cores = run["machine"]["usable_cores"]
    state = "idle" if _idle([run]) else "shared, loaded; provisional"
    fig.suptitle(f"1,000,000 lanes; {cores} vCPUs ({state}), NumPy AVX-512, {run['created'][:10]}", fontsize=9, x=0.55)
    handles = [h for ax in axes for h in ax.get_legend_handles_labels()[0]]
    labels = [t for ax in axes for t in ax.get_legend_handles_labels()[1]]
    fig.legend(handles, labels, loc="upper center", ncol=2, fontsize=7.5, frameon=False, bbox_to_anchor=(0.54, 0.955))
    fig.subplots_adjust(left=0.25, right=0.985, top=0.875, bottom=0.08, wspace=0.06)
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
