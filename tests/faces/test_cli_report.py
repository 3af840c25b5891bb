"""`vectorizer report`: per function the import hook selects, whether it vectorizes and why not.

The report's verdict is checked against what really happens: a function it calls vectorized keeps
the contract under `fallback="error"` (oracle: the scalar function lane by lane), and one it calls
element by element is refused there with the same reason.
"""

from __future__ import annotations

import importlib
import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from vectorizer import VectorizeError, vectorize
from vectorizer.faces.cli.main import main

GEO = textwrap.dedent('''\
    import math


    def wrap(x: float) -> float:
        return math.fmod(x + 180.0, 360.0) - 180.0


    def safe_inverse(x: float) -> float:
        try:
            return 1.0 / x
        finally:
            x = 0.0


    def untyped(x):
        return x + 1
    ''')


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "reportpkg").mkdir(parents=True)
    (root / ".hg").mkdir()  # a repository boundary: no configuration above it
    (root / "reportpkg" / "__init__.py").write_text("")
    (root / "reportpkg" / "geo.py").write_text(GEO)
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend(str(root))
    return root


def test_the_report_names_each_selected_function_and_why_not(package, capsys):
    assert main(["report", "reportpkg"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    geo = str(Path("reportpkg") / "geo.py")
    assert lines[0] == f"{geo}:4: wrap: vectorized"
    assert lines[1].startswith(f"{geo}:8: safe_inverse: element by element: {geo}:9:5: error[")
    assert "'try' with 'finally' is not supported" in lines[1]
    assert len(lines) == 2  # `untyped` has no annotations: the hook's default rule leaves it alone
    assert "2 functions selected (annotated): 1 vectorized, 1 element by element." in err

    assert main(["report", "reportpkg", "--select", "all", "--strict"]) == 1  # a path works too
    assert main(["report", str(package / "reportpkg"), "--select", "marked"]) == 0
    assert "0 functions selected" in capsys.readouterr()[1]


def test_the_verdict_is_what_vectorize_does(package, capsys):
    main(["report", "reportpkg", "--select", "all"])
    verdicts = {line.split(": ")[1]: line for line in capsys.readouterr()[0].splitlines()}
    geo = importlib.import_module("reportpkg.geo")
    x = np.array([-540.0, -180.0, -0.0, 0.0, 179.5, 180.0, 1e300, -1e300, math.nan, 5e-324])
    for name in ("wrap", "untyped"):
        assert verdicts[name].endswith(": vectorized")
        f = getattr(geo, name)
        got = vectorize(f, fallback="error")(x)
        for lane, value in zip(x.tolist(), got.tolist()):
            want = f(lane)
            assert value == want or (math.isnan(value) and math.isnan(want)), (name, lane)
    with pytest.raises(ValueError):  # math.fmod(inf, ...) raises in Python: so does the batch
        vectorize(geo.wrap, fallback="error")(np.array([1.0, math.inf]))
    with pytest.raises(VectorizeError) as refused:
        vectorize(geo.safe_inverse, fallback="error")(x)
    assert "'try' with 'finally' is not supported" in str(refused.value)
    assert "'try' with 'finally' is not supported" in verdicts["safe_inverse"]


def test_an_unknown_target_is_a_usage_error(package, capsys):
    assert main(["report", "no_such_package_here"]) == 2
    assert "neither a path nor an importable package" in capsys.readouterr()[1]


def test_the_console_command_runs_in_a_subprocess(package):
    done = subprocess.run([sys.executable, "-m", "vectorizer", "report", "reportpkg"], cwd=package,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wrap: vectorized" in done.stdout and "safe_inverse: element by element" in done.stdout


MANY = textwrap.dedent('''\
    import random


    def noisy(x: float) -> float:
        print(x)
        y = random.random()
        return x + y
    ''')


def test_every_problem_has_its_own_line_with_its_reason(package, capsys):
    (package / "reportpkg" / "noisy.py").write_text(MANY)
    assert main(["report", "reportpkg/noisy.py"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) >= 2, lines  # one line per problem, never "N problems found:" and nothing after it
    for line in lines:
        prefix, _, reason = line.partition(": element by element: ")
        assert prefix == "reportpkg/noisy.py:4: noisy", line
        assert reason.startswith("reportpkg/noisy.py:") and "error[VEC-" in reason and "problems found" not in reason
    assert any("print" in line for line in lines) and any("random" in line for line in lines)


def test_generated_files_are_skipped(package, capsys):
    assert main(["generate", "--functions", "wrap", "reportpkg"]) == 0
    capsys.readouterr()
    assert (package / "reportpkg" / "geo_batched.py").exists()
    assert (package / "reportpkg" / "_vectorizer_runtime.py").exists()
    assert main(["report", "reportpkg", "--select", "all", "-v"]) == 0
    out, err = capsys.readouterr()
    assert "_batched" not in out and "_vectorizer_runtime" not in out
    assert "skipped reportpkg/geo_batched.py (generated by vectorizer)" in err
    assert sorted(line.split(": ")[1] for line in out.splitlines()) == ["safe_inverse", "untyped", "wrap"]
