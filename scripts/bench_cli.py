"""Time `vectorizer generate` and `--check` on a tree whose sources have not changed.

Builds a tree of source files (the golden fixtures that vectorize, plus examples/escape_time.py,
31 by default) in a temporary directory, generates once, then times fresh processes:

    generate      on the unchanged tree (nothing to write)
    --check       on the unchanged tree (exit 0)
    --no-cache    the unchanged tree generated again and compared (no incremental records): the
                  cost of a tree whose sources all changed, where --jobs matters

Each figure is the median over --runs processes (wall time, and the CPU time of the process
and its workers, which a loaded machine inflates less); the user cache is a fresh temporary directory,
so the first (cold) run is also reported. `--jobs N` passes --jobs N to every timed command.
Usage:

    python scripts/bench_cli.py [--files 31] [--runs 5] [--jobs 1]
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


def run(args: list[str], cwd: Path) -> tuple[int, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "vectorizer", *args], cwd=cwd, capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return done.returncode, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=31)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=1, help="passed to vectorizer generate --jobs")
    args = parser.parse_args()
    jobs = ["--jobs", str(args.jobs)]
    with tempfile.TemporaryDirectory() as tmp:
        tree, cache = Path(tmp, "tree"), Path(tmp, "cache")
        tree.mkdir()
        os.environ["VECTORIZER_CACHE_DIR"] = str(cache)
        n = build_tree(tree, args.files)
        shutil.rmtree(cache, ignore_errors=True)  # the first timed run starts cold
        code, cold = run(["generate", *jobs, "."], tree)
        print(f"{n} source files, --jobs {args.jobs}; first generate after the tree was written, cold user cache: "
              f"{cold:.2f} s (exit {code})")
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
