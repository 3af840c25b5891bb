"""The README and the performance page state no number a test does not derive (issue 52).

* The blocks `scripts/docs_numbers.py` writes (the corpus table, the speed figures, the
  performance page's tables) equal what it would write from the committed results now.
* The README shows the code of `examples/escape_time.py` and what it prints: the sample of
  results and the generated kernel exactly, the timings by their shape.
* Any other number in the README's prose is one of a few facts checked here against their source
  (the Python version pyproject.toml requires, the ulp bound of the rule table).
* The README stays short: at most 200 lines.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EXAMPLE = ROOT / "examples" / "escape_time.py"


def docs_numbers():
    spec = importlib.util.spec_from_file_location("docs_numbers", ROOT / "scripts" / "docs_numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_fits_on_a_few_screens():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail to docs/"


@pytest.mark.parametrize("name", ["corpus", "readme-speed", "perf-tables"])
def test_generated_blocks_match_the_recorded_results(name):
    module = docs_numbers()
    _, generate = module.GENERATORS[name]
    assert module.block(name) == generate(), f"stale: run python scripts/docs_numbers.py --write ({name})"


def test_a_changed_run_makes_the_blocks_stale(tmp_path, monkeypatch):
    """The speed blocks are read from the committed JSON runs: one ratio changed in a copy of a run
    changes what the script would write, so --check would fail."""
    module = docs_numbers()
    for kind, path in module.RUNS.items():
        doc = json.loads(path.read_text(encoding="utf-8"))
        for r in doc["results"]:
            if r["variant"] == "vec_default" and r["size"] == 1_000_000 and r["status"] == "ok":
                r["ratios"]["hand_exact"] *= 4.0
        copy = tmp_path / path.name
        copy.write_text(json.dumps(doc), encoding="utf-8")
        monkeypatch.setitem(module.RUNS, kind, copy)
    assert module.readme_speed() != module.block("readme-speed")
    assert module.perf_tables() != module.block("perf-tables")


def test_the_default_figures_agree_with_the_runs_own_targets():
    """The README's figure for the default at 1e6 is the geometric mean the run's own target table
    (scripts/bench_targets.py) computes, and the blocks say where it comes from and how far to trust it."""
    module = docs_numbers()
    spec = importlib.util.spec_from_file_location("bench_targets", ROOT / "scripts" / "bench_targets.py")
    targets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(targets)
    readme = module.block("readme-speed")
    row = next(line for line in readme.splitlines() if line.startswith("| default"))
    for kind, path in module.RUNS.items():
        rows = targets.targets(json.loads(path.read_text(encoding="utf-8")))
        measured = next(m for t, m, *_ in rows
                        if t.startswith("default / better of hand NumPy and exact hand Numba @1e6: geometric"))
        assert measured in row, (kind, measured, row)
    for name in ("readme-speed", "perf-tables"):
        text = module.block(name)
        assert module.RUN_PAGE.name in text
        state = "Provisional" if "Provisional" in text else "runs on an idle"
        assert state in text, "the blocks say whether the runs were idle"
        assert "Python loop" not in text.split(state)[0], "no loop figures from these runs"
    assert module.RUN_PAGE.is_file()


def test_the_script_check_mode_passes():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs_numbers.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def code_of_example() -> str:
    text = EXAMPLE.read_text(encoding="utf-8")
    return text.split('"""', 2)[2].lstrip("\n")  # after the module docstring


def test_the_readme_shows_the_example_code():
    readme = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert code_of_example() in blocks, "the README's example is not examples/escape_time.py's code"


@pytest.mark.slow
def test_the_readme_shows_what_the_example_prints(tmp_path):
    module = docs_numbers()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    shown = module.block("example-output")
    body = re.search(r"```text\n(.*?)\n```", shown, re.S).group(1)
    assert module.masked(body) == module.masked(done.stdout.rstrip("\n"))
    lines = done.stdout.splitlines()
    assert lines[2].startswith("route: ")  # the route the default chose, with its reason
    # the kernel only: the lane function and its drivers (Numba), or the array function (NumPy route)
    assert lines[3].startswith(("def _lane_escape_time(", "def escape_time(")) and "_vz_where(cond" not in done.stdout


def test_every_number_in_the_readme_prose_is_derived():
    text = README.read_text(encoding="utf-8")
    text = re.sub(r"<!-- generated: (\S+).*?<!-- end generated: \1 -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    found = [(m.group(), line) for line in text.splitlines() for m in re.finditer(r"(?<![\w.])\d[\d,.]*", line)]
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'requires-python = ">=([\d.]+)"', pyproject).group(1)
    from vectorizer.rules.base import ULP_BOUND

    for number, line in found:
        if number == minimum and "Python" in line:
            continue
        if number == str(ULP_BOUND) and f"{number} ulp" in line:
            continue
        pytest.fail(f"README states {number!r} in {line.strip()!r}: generate it (scripts/docs_numbers.py) or "
                    "derive it in this test")


def test_will_it_work_quotes_the_corpus_runs():
    """Each row of docs/will-it-work.md's corpus table names a committed results file; its counts
    of CORRECT functions per backend are that file's, out of the functions it measured (those
    whose own loop ran past the time limit have no backends' results and are not counted)."""
    text = (ROOT / "docs" / "will-it-work.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| first |") or line.startswith("| second |")]
    assert len(rows) >= 4
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        path = ROOT / "corpus" / re.search(r"`([^`]+results\.json)`", cells[1]).group(1)
        functions = [f for f in json.loads(path.read_text(encoding="utf-8"))["functions"] if "backends" in f]
        for cell, backend in zip(cells[2:4], ("numpy", "numba")):
            correct = sum(f["backends"].get(backend, {}).get("cls") == "CORRECT" for f in functions)
            total = len(functions)
            assert cell == f"{correct} of {total} ({round(100 * correct / total)}%)", (row, backend)
