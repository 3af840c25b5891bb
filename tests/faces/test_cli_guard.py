"""The hand-edit guard's message (faces/cli/guard.py): a generated output reformatted by a
formatter is refused with a message that names formatters as the usual cause and gives the
excludes that fix it; the excludes it gives really exclude the generated files (ruff, run for real
on explicitly passed files as pre-commit does; the pre-commit/black regex with `re.search`)."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from vectorizer.faces.cli.guard import output_patterns
from vectorizer.faces.cli.main import main
from vectorizer.faces.cli.standalone import RUNTIME_FILE

SOURCE = textwrap.dedent('''\
    import math
    from vectorizer import vectorize


    @vectorize
    def norm(x: float, y: float) -> float:
        return math.sqrt(x * x + y * y)
    ''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".hg").mkdir()  # a repository boundary: configuration discovery stops here
    monkeypatch.chdir(root)
    return root


def ruff(*args: str) -> None:
    subprocess.run(["ruff", *args], check=True, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_a_formatted_output_is_refused_with_the_formatters_and_the_excludes(project, capsys):
    (project / "kernels.py").write_text(SOURCE)
    assert main(["kernels.py"]) == 0
    out = project / "kernels_batched.py"
    generated = out.read_text()
    ruff("format", "--no-cache", "--line-length", "60", str(out))  # what a pre-commit formatter hook does
    formatted = out.read_text()
    assert formatted != generated
    (project / "kernels.py").write_text(SOURCE.replace("x * x", "x * x + 0.0"))
    capsys.readouterr()
    assert main(["kernels.py"]) == 1
    err = capsys.readouterr().err
    assert "kernels_batched.py was edited by hand (checksum mismatch)" in err and "--force" in err
    for named in ("black", "ruff format", "ruff check --fix", "pre-commit", "exclude:", "force-exclude"):
        assert named in err, named
    assert out.read_text() == formatted

    # The ruff settings the message gives keep ruff off the generated files, even passed by name.
    pyproject = re.search(r"\[tool\.ruff\] (extend-exclude = \[.*\]) and (force-exclude = true)", err)
    assert pyproject is not None, err
    (project / "pyproject.toml").write_text(f"[tool.ruff]\n{pyproject.group(1)}\n{pyproject.group(2)}\n")
    assert main(["--force", "kernels.py"]) == 0
    fresh = out.read_text()
    runtime = (project / RUNTIME_FILE).read_text()
    ruff("format", "--no-cache", "--line-length", "60", str(out), RUNTIME_FILE)
    ruff("check", "--no-cache", "--fix", "--select", "ALL", "--exit-zero", str(out), RUNTIME_FILE)
    assert out.read_text() == fresh and (project / RUNTIME_FILE).read_text() == runtime
    assert main(["--check", "kernels.py"]) == 0


@pytest.mark.parametrize("pattern", ["{stem}_batched.py", "gen_{stem}.py", "{stem}.vz.py"])
def test_the_exclude_regex_matches_the_outputs_and_nothing_else(pattern):
    globs, regex = output_patterns(pattern)
    outputs = [pattern.format(stem="kernels"), f"src/pkg/{pattern.format(stem='a_b')}", RUNTIME_FILE,
               f"src/{RUNTIME_FILE}"]
    for path in outputs:
        assert re.search(regex, path), (regex, path)
        assert any(Path(path).match(g) for g in globs), (globs, path)
    for path in ["kernels.py", "src/kernels_batched.pyi", "src/my_vectorizer_runtime_test.py", "batched.py/x.txt"]:
        assert not re.search(regex, path), (regex, path)
