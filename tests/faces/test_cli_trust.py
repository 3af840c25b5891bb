"""What the CLI reads and runs (issue 49, rows 13 and 14).

* A symbolic link that leaves the project is never read: a walk skips it, naming it; a file named
  on the command line is a failure; an output that is such a link is neither read nor diffed
  (`secrets.py -> /etc/passwd` once printed the target's first line in its syntax error).
* A file CPython itself cannot parse (too deeply nested for its parser) is the file's failure,
  exit 1, as a syntax error is, never exit 123 ("a bug in vectorizer").
* `vectorizer report pkg.mod` finds the module's file without importing anything: the package's
  `__init__.py` is not run (the docs say the report runs nothing).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vectorizer.faces.cli.main import main

SOURCE = textwrap.dedent('''\
    from vectorizer import vectorize


    @vectorize
    def twice(x: float) -> float:
        return 2.0 * x
    ''')
SECRET = "root:x:0:0:the secret first line:/root:/bin/bash\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".hg").mkdir()  # the repository boundary: the project's root
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET)
    monkeypatch.chdir(root)
    for var in ("NO_COLOR", "FORCE_COLOR", "CI", "PRE_COMMIT"):
        monkeypatch.delenv(var, raising=False)
    return root


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


needs_symlinks = pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32",
                                    reason="symbolic links need privileges on Windows")


@needs_symlinks
def test_a_walk_skips_a_symlink_that_leaves_the_project(project, capsys):
    (project / "kernels.py").write_text(SOURCE)
    os.symlink(project.parent / "outside" / "passwd", project / "secrets.py")
    code, shown = run(capsys, "generate", "-v", ".")
    assert code == 0, shown
    assert "secret first line" not in shown and "root:x" not in shown
    assert "skipped secrets.py (a symbolic link that leaves the project)" in shown
    assert (project / "kernels_batched.py").exists() and not (project / "secrets_batched.py").exists()
    for command in (["generate", "--check", "."], ["report", ".", "--select", "all"]):
        code, shown = run(capsys, *command)
        assert code == 0 and "secret first line" not in shown, (command, shown)


@needs_symlinks
def test_a_named_symlink_that_leaves_the_project_fails_unread(project, capsys):
    os.symlink(project.parent / "outside" / "passwd", project / "secrets.py")
    for command in (["generate", "secrets.py"], ["show", "secrets.py::f"], ["report", "secrets.py"]):
        code, shown = run(capsys, *command)
        assert code == 1, (command, shown)
        assert "secret first line" not in shown and "root:x" not in shown, (command, shown)
        assert "secrets.py is a symbolic link that leaves the project" in shown, (command, shown)


@needs_symlinks
def test_an_output_that_links_out_of_the_project_is_neither_read_nor_diffed(project, capsys):
    (project / "kernels.py").write_text(SOURCE)
    os.symlink(project.parent / "outside" / "passwd", project / "kernels_batched.py")
    code, shown = run(capsys, "generate", "--diff", ".")
    assert code == 1 and "secret first line" not in shown, shown
    assert "kernels_batched.py is a symbolic link that leaves the project" in shown
    code, shown = run(capsys, "generate", "--force", ".")
    assert code == 1 and "secret first line" not in shown, shown
    assert (project.parent / "outside" / "passwd").read_text() == SECRET  # never written through


@needs_symlinks
def test_a_symlink_inside_the_project_is_read_once(project, capsys):
    (project / "kernels.py").write_text(SOURCE)
    os.symlink(project / "kernels.py", project / "alias.py")
    code, shown = run(capsys, "generate", ".")
    assert code == 0, shown
    outputs = [project / "alias_batched.py", project / "kernels_batched.py"]
    assert [p.exists() for p in outputs].count(True) == 1  # the same file, read once


# CPython's parser gives up on these (RecursionError, MemoryError): the file fails, as a syntax error does
TOO_DEEP = {
    "a long chain": "x" + " + x" * 100_000,
    "nested unary minus": "-" * 100_000 + "x",
}


@pytest.mark.parametrize("expression", TOO_DEEP.values(), ids=TOO_DEEP.keys())
def test_a_file_cpython_cannot_parse_fails_like_a_syntax_error(project, capsys, expression):
    text = f"{SOURCE}\n\n@vectorize\ndef deep(x: float) -> float:\n    return {expression}\n"
    with pytest.raises((RecursionError, MemoryError, SyntaxError)):
        compile(text, "deep.py", "exec")  # CPython itself cannot
    (project / "deep.py").write_text(text)
    (project / "good.py").write_text(SOURCE)
    code, shown = run(capsys, "generate", ".")
    assert code == 1, shown
    assert "deep.py:" in shown and "CPython cannot parse" in shown and "bug in vectorizer" not in shown
    assert len(shown) < 2_000  # the line is not echoed whole
    assert (project / "good_batched.py").exists()
    for command in (["show", "deep.py::deep"], ["report", "deep.py"]):
        code, shown = run(capsys, *command)
        assert code == 1 and "CPython cannot parse" in shown and "internal error" not in shown, (command, shown)


# -- report runs nothing ----------------------------------------------------------------------------
def make_package(root: Path, marker: Path) -> None:
    for folder in (root / "runpkg", root / "runpkg" / "sub"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write({folder.name!r})\n")
    (root / "runpkg" / "sub" / "mod.py").write_text("def f(x: float) -> float:\n    return x + 1.0\n")
    (root / "runpkg" / "top.py").write_text("def g(x: float) -> float:\n    return x * 2.0\n")


@pytest.mark.parametrize("target", ["runpkg.sub.mod", "runpkg.top", "runpkg.sub", "runpkg"])
def test_report_of_a_module_name_imports_nothing(tmp_path, target):
    marker = tmp_path / "ran.txt"
    make_package(tmp_path / "src", marker)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "vectorizer", "report", target], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), f"report {target} ran {marker.read_text()!r}"
    expected = {"runpkg.sub.mod": ["f"], "runpkg.top": ["g"], "runpkg.sub": ["f"], "runpkg": ["f", "g"]}[target]
    found = sorted(line.split(": ")[1] for line in done.stdout.splitlines())
    assert found == expected, done.stdout


def test_report_of_a_missing_submodule_is_a_usage_error(tmp_path):
    marker = tmp_path / "ran.txt"
    make_package(tmp_path / "src", marker)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "vectorizer", "report", "runpkg.nothere"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2 and "neither a path nor an importable package" in done.stderr
    assert not marker.exists()
