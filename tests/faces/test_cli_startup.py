"""The CLI starts without the compiler: `vectorizer --help`, `vectorizer check` and `generate` on
an up-to-date tree import neither NumPy, libcst nor the engine (pre-commit runs the command on
every commit). What a command imports is counted here, in a fresh process; how long it takes is
timed by scripts/bench_cli.py (against `python -c "import numpy"`), which tests do not assert.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "libcst", "vectorizer.api", "vectorizer.pipeline", "vectorizer.engine",
         "vectorizer.faces.cli.standalone", "vectorizer.faces.importhook")
PROBE = textwrap.dedent('''\
    import contextlib, io, json, sys
    from vectorizer.faces.cli.main import main
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(sys.argv[1:])
    print(json.dumps([code, sorted(sys.modules), err.getvalue()]))
    ''')
SOURCE = textwrap.dedent('''\
    import math
    from vectorizer import vectorize


    @vectorize
    def norm(x: float, y: float) -> float:
        return math.sqrt(x * x + y * y)
    ''')
UNSUPPORTED = textwrap.dedent('''\
    from vectorizer import vectorize


    @vectorize
    def safe_inverse(x: float) -> float:
        try:
            return 1.0 / x
        finally:
            x = 0.0
    ''')


def modules_after(argv: list[str], cwd: Path, cache: Path, messages: list[str] | None = None) -> tuple[int, list[str]]:
    """(exit code, modules imported) of the command in a fresh process; its stderr into `messages`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    code, modules, err = json.loads(done.stdout.splitlines()[-1])
    if messages is not None:
        messages.append(err)
    return code, modules


def heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / ".hg").mkdir()
    (root / "pkg" / "kernels.py").write_text(SOURCE)
    (root / "pkg" / "legacy.py").write_text(UNSUPPORTED)  # exported as a per-element loop, with a warning
    return root


@pytest.mark.parametrize("argv", [["--help"], ["generate", "--help"], ["check", "--help"], ["--version"],
                                  ["errors"], ["cache", "dir"]])
def test_help_and_light_commands_import_no_compiler(tree, tmp_path, argv):
    code, modules = modules_after(argv, tree, tmp_path / "cache")
    assert code == 0 and heavy(modules) == []


def test_an_up_to_date_tree_is_checked_without_the_compiler(tree, tmp_path):
    cache = tmp_path / "cache"
    first: list[str] = []
    code, modules = modules_after(["generate", "."], tree, cache, first)  # generates: compiler loaded
    assert code == 0 and "libcst" in modules and (tree / "pkg" / "kernels_batched.py").exists()
    warning = "pkg/legacy.py:6:5: warning[VEC-SYNTAX]: 'try' with 'finally' is not supported"
    assert warning in first[0] and "1 function not batched (per-element loop)" in first[0]
    for argv in (["generate", "."], ["check", "."], ["generate", "--check", "pkg"], ["."]):
        again: list[str] = []
        code, modules = modules_after(argv, tree, cache, again)
        assert code == 0 and heavy(modules) == [], (argv, heavy(modules))
        assert warning in again[0] and "1 function not batched" in again[0], again  # the warning, replayed
    moved: list[str] = []  # from another directory the warning names the file otherwise: generated again
    code, modules = modules_after(["check", "."], tree / "pkg", cache, moved)
    assert code == 0 and "legacy.py:6:5: warning[VEC-SYNTAX]" in moved[0] and "pkg/legacy.py" not in moved[0]
    (tree / "pkg" / "kernels.py").write_text(SOURCE.replace("x * x", "x * x * 1.0"))
    code, modules = modules_after(["check", "."], tree, cache)  # a changed source: generated and compared
    assert code == 1 and "libcst" in modules


def test_the_tool_key_is_remembered_by_the_files_stat(tmp_path):
    """An unchanged install is keyed without reading every file: the digest of the files' bytes is
    remembered under a digest of their names, sizes and times, in a private folder."""
    from vectorizer.faces.cli import incremental

    memo = tmp_path / "cli"
    memo.mkdir(mode=0o700)
    key = incremental.tool_key(memo=memo)
    assert key == incremental.tool_key()  # the same digest as hashing every file
    (note,) = memo.glob("toolkey-*")
    assert note.stat().st_mode & 0o777 == 0o600 and note.read_text() == key
    note.write_text("f" * 64)  # a remembered digest is used as it is ...
    assert incremental.tool_key(memo=memo) == "f" * 64
    note.write_text("not a digest")  # ... and a note that is not one is ignored
    assert incremental.tool_key(memo=memo) == key
