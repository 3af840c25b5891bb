"""Time the `vectorizer` command: its start-up, and `generate` / `check` on a tree of sources.

Builds a tree of source files (the golden fixtures that vectorize, plus examples/escape_time.py,
31 by default) in a temporary directory, generates once, then times fresh processes.

First the start-up table (what pre-commit pays on every commit), each command run --runs times,
the commands interleaved round by round so that a busy neighbour slows them alike, against two
floors measured in the same rounds: `python -c pass` and `python -c "import numpy"`:

    vectorizer --help
    vectorizer generate .   on the unchanged tree (every incremental record fresh: nothing to do)
    vectorizer check .      the same, never writing

Then, unless --startup-only:

    generate      on the unchanged tree (nothing to write)
    --check       on the unchanged tree (exit 0)
    --no-cache    the unchanged tree generated again and compared (no incremental records): the
                  cost of a tree whose sources all changed, where --jobs matters

Each figure is the median over --runs processes (wall time; the second table adds the CPU time of
the process and its workers, which a loaded machine inflates less); the user cache is a fresh
temporary directory, so the first (cold) run is also reported. `--jobs N` passes --jobs N to every
command of the second table. Usage:

    python scripts/bench_cli.py [--files 31] [--runs 5] [--jobs 1] [--startup-only]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_tree(target: Path, files: int) -> int:
    """Copy up to `files` sources that generate cleanly into `target`; return how many."""
    candidates = [ROOT / "examples" / "escape_time.py"]
    candidates += sorted(p / "input.py" for p in (ROOT / "fixtures").iterdir()
                         if (p / "input.py").exists() and (p / "expected.py").exists() and not p.name.startswith("vmap"))
    count = 0
    for source in candidates:
        if count == files:
            break
        name = "escape_time.py" if source.parent.name == "examples" else f"{source.parent.name}.py"
        text = source.read_text()
        if "@vectorize" not in text:  # a fixture's functions are plain: decorate them, as a user would
            text = "from vectorizer import vectorize\n\n" + re.sub(r"^def ", "@vectorize\ndef ", text, flags=re.M)
        (target / name).write_text(text)
        probe = run(["generate", "-q", str(target / name)], target)
        if probe[0] != 0:  # refused functions, per-element fallbacks reported as errors: leave out
            (target / name).unlink()
            (target / f"{Path(name).stem}_batched.py").unlink(missing_ok=True)
            continue
        count += 1
    return count


CPU: list[float] = []  # CPU seconds (user + system, the process and its workers) of each run()


def run(args: list[str], cwd: Path, command: list[str] | None = None) -> tuple[int, float]:
    """Run `python -m vectorizer ARGS` (or `command`) in `cwd`: (exit code, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command or [sys.executable, "-m", "vectorizer", *args], cwd=cwd, capture_output=True,
                          text=True, env=os.environ | {"PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return done.returncode, seconds


STARTUP = [  # (label, argv of `python -m vectorizer`, or a whole command)
    ("python -c pass", None, [sys.executable, "-c", "pass"]),
    ('python -c "import numpy"', None, [sys.executable, "-c", "import numpy"]),
    ("vectorizer --help", ["--help"], None),
    ("vectorizer generate . (up to date)", ["generate", "."], None),
    ("vectorizer check . (up to date)", ["check", "."], None),
]


def startup_table(tree: Path, runs: int) -> list[str]:
    """The start-up rows, as Markdown: medians over `runs` interleaved rounds."""
    times: dict[str, list[float]] = {label: [] for label, _, _ in STARTUP}
    cpu: dict[str, list[float]] = {label: [] for label, _, _ in STARTUP}
    for _ in range(runs):
        for label, argv, command in STARTUP:
            code, seconds = run(argv or [], tree, command)
            if code != 0:
                raise SystemExit(f"{label}: exit {code}")
            times[label].append(seconds)
            cpu[label].append(CPU[-1])
    numpy = statistics.median(times['python -c "import numpy"'])
    rows = ["| command | median (s) | min (s) | max (s) | / import numpy | CPU median (s) |",
            "| :-- | --: | --: | --: | --: | --: |"]
    for label, values in times.items():
        median = statistics.median(values)
        rows.append(f"| `{label}` | {median:.3f} | {min(values):.3f} | {max(values):.3f} | {median / numpy:.2f} "
                    f"| {statistics.median(cpu[label]):.3f} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=31)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="passed to vectorizer generate --jobs")
    parser.add_argument("--startup-only", action="store_true", help="only the start-up table")
    args = parser.parse_args()
    jobs = ["--jobs", str(args.jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        tree, cache = Path(tmp, "tree"), Path(tmp, "cache")
        tree.mkdir()
        if shutil.which("git"):  # a repository, as pre-commit sees one: .gitignore is read (a `git` process)
            subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
        os.environ["VECTORIZER_CACHE_DIR"] = str(cache)
        n = build_tree(tree, args.files)
        shutil.rmtree(cache, ignore_errors=True)  # the first timed run starts cold
        code, cold = run(["generate", *jobs, "."], tree)
        print(f"{n} source files, --jobs {args.jobs}; first generate after the tree was written, cold user cache: "
              f"{cold:.2f} s (exit {code}); load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs\n")
        print("\n".join(startup_table(tree, args.runs)) + "\n")
        if args.startup_only:
            return 0
        for label, cmd in (("generate (unchanged tree)", ["generate", *jobs, "."]),
                           ("--check (unchanged tree)", ["generate", *jobs, "--check", "."]),
                           ("generate --no-cache (all regenerated)", ["generate", *jobs, "--no-cache", "."])):
            times, CPU[:] = [], []
            for _ in range(args.runs):
                code, seconds = run(cmd, tree)
                if code != 0:
                    print(f"{label}: exit {code}", file=sys.stderr)
                    return 1
                times.append(seconds)
            print(f"{label}: median {statistics.median(times):.2f} s over {args.runs} runs "
                  f"(min {min(times):.2f}, max {max(times):.2f}; CPU median {statistics.median(CPU):.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
