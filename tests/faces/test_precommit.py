"""The pre-commit hooks: the manifest, its entries run in-process, and end to end with real pre-commit.

The end-to-end test snapshots this checkout (the package, pyproject.toml, README.md and
.pre-commit-hooks.yaml, committed or not) into a temporary git repository, points a user
repository's .pre-commit-config.yaml at it as a local-path repo, and lets pre-commit build the hook
environment (`pip install .`, no extras: no Numba) and run it from `git commit`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from vectorizer.faces.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
SOURCE = textwrap.dedent('''\
    import math
    from vectorizer import vectorize

    RATE = 0.05


    @vectorize
    def discount(cash: float, years: float) -> float:
        if years < 0:
            raise ValueError("negative maturity")
        return cash * math.exp(-RATE * years)
    ''')


def hooks() -> dict[str, dict]:
    return {h["id"]: h for h in yaml.safe_load(MANIFEST.read_text())}


def test_manifest_declares_the_two_hooks():
    found = hooks()
    assert set(found) == {"vectorizer", "vectorizer-check"}
    for hook in found.values():
        assert hook["language"] == "python" and hook["require_serial"] is True
        assert hook["pass_filenames"] is False
        assert shlex.split(hook["entry"])[:2] == ["vectorizer", "generate"]
    assert "--exit-non-zero-on-change" in found["vectorizer"]["entry"]
    assert {"--check", "--diff"} <= set(found["vectorizer-check"]["entry"].split())
    pattern = re.compile(found["vectorizer"]["files"])
    assert all(pattern.search(p) for p in ("a/b.py", "pyproject.toml", "sub/pyproject.toml"))
    assert not any(pattern.search(p) for p in ("a.pyi", "mypyproject.toml", "README.md"))


def test_manifest_is_valid_for_pre_commit():
    clientlib = pytest.importorskip("pre_commit.clientlib")
    assert {h["id"] for h in clientlib.load_manifest(str(MANIFEST))} == {"vectorizer", "vectorizer-check"}


def entry_args(hook_id: str) -> list[str]:
    return shlex.split(hooks()[hook_id]["entry"])[1:]


def test_hook_entries_in_process(tmp_path, monkeypatch, capsys):
    """What pre-commit will run: `vectorizer` fails when it creates or rewrites, `-check` never writes."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PRE_COMMIT", "1")
    (tmp_path / ".hg").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.vectorizer]\nextend-exclude = ["vendor"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "rates.py").write_text(SOURCE)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "third.py").write_text(SOURCE)
    out = tmp_path / "pkg" / "rates_batched.py"

    assert main(entry_args("vectorizer-check")) == 1 and not out.exists()
    assert "+++ b/pkg/rates_batched.py" in capsys.readouterr().out
    assert main(entry_args("vectorizer")) == 1 and out.exists()  # created: fail so it gets staged
    assert main(entry_args("vectorizer")) == 0
    assert main(entry_args("vectorizer-check")) == 0
    assert not (tmp_path / "vendor" / "third_batched.py").exists()
    (tmp_path / "pkg" / "rates.py").write_text(SOURCE.replace("0.05", "0.07"))
    before = out.read_bytes()
    capsys.readouterr()
    assert main(entry_args("vectorizer-check")) == 1 and out.read_bytes() == before
    assert "-RATE = 0.05\n+RATE = 0.07\n" in capsys.readouterr().out
    assert main(entry_args("vectorizer")) == 1 and out.read_bytes() != before


BLOCK_NUMBA = """
import sys
class NoNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("numba is not installed here")
sys.meta_path.insert(0, NoNumba())
from vectorizer.faces.cli.main import main
raise SystemExit(main(sys.argv[1:]))
"""


def test_hooks_work_without_numba(tmp_path):
    (tmp_path / "rates.py").write_text(SOURCE)
    env = {**os.environ, "PRE_COMMIT": "1"}
    for hook_id, expected in (("vectorizer", 1), ("vectorizer-check", 0)):
        done = subprocess.run([sys.executable, "-c", BLOCK_NUMBA, *entry_args(hook_id)], cwd=tmp_path,
                              capture_output=True, text=True, env=env)
        assert done.returncode == expected, done.stderr
    assert (tmp_path / "rates_batched.py").exists()


# -- end to end ----------------------------------------------------------------------------------
def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def snapshot_of_this_checkout(dest: Path) -> str:
    """The working tree's package and hook manifest, committed in a fresh repository; its sha."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(ROOT / "vectorizer", dest / "vectorizer", ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, dest / name)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.com",
                                                 "commit", "-qm", "snapshot"]):
        assert git(dest, *args).returncode == 0
    return git(dest, "rev-parse", "HEAD").stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_pre_commit_end_to_end(tmp_path):
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    hook_repo, user = tmp_path / "hook-repo", tmp_path / "user"
    user.mkdir()
    rev = snapshot_of_this_checkout(hook_repo)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("PRE_COMMIT", None)

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=user, capture_output=True, text=True, env=env, timeout=600)

    assert run("git", "init", "-q").returncode == 0
    (user / ".pre-commit-config.yaml").write_text(textwrap.dedent(f"""\
        repos:
          - repo: {hook_repo}
            rev: {rev}
            hooks:
              - id: vectorizer
              - id: vectorizer-check
        """))
    (user / "pyproject.toml").write_text('[tool.vectorizer]\n')
    (user / "rates.py").write_text(SOURCE)
    assert run(pre_commit, "install").returncode == 0
    run("git", "add", "-A")

    first = run("git", "commit", "-m", "scalar source")
    assert first.returncode != 0, first.stdout + first.stderr
    assert "generated rates_batched.py (from rates.py)" in first.stdout + first.stderr
    assert (user / "rates_batched.py").exists() and run("git", "rev-parse", "HEAD").returncode != 0

    run("git", "add", "rates_batched.py")
    second = run("git", "commit", "-m", "scalar source and batched module")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "rates_batched.py" in run("git", "show", "--name-only", "HEAD").stdout

    (user / "rates.py").write_text(SOURCE.replace("RATE = 0.05", "RATE = 0.07"))
    run("git", "add", "rates.py")
    before = (user / "rates_batched.py").read_bytes()
    check = run(pre_commit, "run", "vectorizer-check")
    assert check.returncode == 1, check.stdout + check.stderr
    shown = check.stdout + check.stderr
    assert "-RATE = 0.05\n+RATE = 0.07\n" in shown and "would generate rates_batched.py" in shown
    assert (user / "rates_batched.py").read_bytes() == before  # the check never writes

    # the hook environment was built from `pip install .` without extras: Numba came with it, a
    # dependency (the generated modules are NumPy code all the same)
    pythons = list((tmp_path / "pre-commit-home").glob("repo*/py_env-*/bin/python"))
    assert pythons, "no hook environment found"
    assert subprocess.run([str(pythons[0]), "-c", "import numba"], capture_output=True).returncode == 0


# -- the documented snippet, as written ------------------------------------------------------------
def documented_snippet() -> str:
    """The YAML block of docs/cli.md between its pre-commit snippet markers, verbatim."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- pre-commit snippet:[^\n]*-->\n```yaml\n(.*?)```\n<!-- end pre-commit snippet -->", text, re.S)
    assert found, "docs/cli.md lost its pre-commit snippet markers"
    return found.group(1)


def test_the_documented_snippet_is_a_valid_local_hook():
    config = yaml.safe_load(documented_snippet())
    (repo,) = config["repos"]
    assert repo["repo"] == "local"  # no placeholder repository, no tag that does not exist
    (hook,) = repo["hooks"]
    assert hook["entry"] == hooks()["vectorizer"]["entry"] and hook["files"] == hooks()["vectorizer"]["files"]
    clientlib = pytest.importorskip("pre_commit.clientlib")
    clientlib.load_config  # noqa: B018 - the module is pre-commit's own schema
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(documented_snippet())
    try:
        clientlib.load_config(f.name)  # raises on anything pre-commit would reject
    finally:
        os.unlink(f.name)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_documented_snippet_works_over_the_installed_package(tmp_path):
    """On a fresh machine as the docs describe it: this checkout installed (`pip install .`, into a
    new venv that sees this interpreter's NumPy and libcst), the snippet pasted as written, and
    `git commit` run by real pre-commit."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    if pre_commit is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit)")
    venv, user = tmp_path / "venv", tmp_path / "user"
    snapshot_of_this_checkout(tmp_path / "checkout")
    assert subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)]).returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PRE_COMMIT", "VIRTUAL_ENV")}
    env |= {"PATH": str(venv / "bin") + os.pathsep + env["PATH"], "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
            "PRE_COMMIT_COLOR": "never", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                              str(tmp_path / "checkout")], capture_output=True, text=True, env=env, timeout=600)
    assert install.returncode == 0, install.stderr
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import vectorizer; print(vectorizer.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path)
    assert str(venv) in where.stdout, where.stdout + where.stderr  # the installed copy, not this checkout

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, cwd=user, capture_output=True, text=True, env=env, timeout=600)

    user.mkdir()
    assert run("git", "init", "-q").returncode == 0
    (user / ".pre-commit-config.yaml").write_text(documented_snippet())
    (user / "rates.py").write_text(SOURCE)
    assert run(pre_commit, "install").returncode == 0
    run("git", "add", "-A")
    first = run("git", "commit", "-m", "scalar source")
    assert first.returncode != 0 and "generated rates_batched.py (from rates.py)" in first.stdout + first.stderr
    run("git", "add", "-A")
    second = run("git", "commit", "-m", "scalar source and batched module")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "rates_batched.py" in run("git", "show", "--name-only", "HEAD").stdout
