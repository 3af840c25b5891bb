"""The pytest plugin: a temp test suite (plain `assert`, so pytest rewrites it) importing a
hooked package, run by a child pytest with `--vectorizer-packages`."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KERN = '''\
def collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
'''

CONFTEST = '''\
import mypkg.kern  # imported before any test: the hook must already be on

HOOKED_AT_CONFTEST = hasattr(mypkg.kern.collatz, "scalar")
'''

TESTS = '''\
import os

import numpy as np
import pytest

import conftest
import mypkg.kern as k

HOOK = os.environ["EXPECT_HOOK"] == "1"


def test_dual_mode_as_expected():
    assert conftest.HOOKED_AT_CONFTEST == HOOK
    assert hasattr(k.collatz, "__wrapped__") == HOOK
    assert k.collatz(27) == 111


def test_array_calls():
    if not HOOK:
        pytest.skip("hook off")
    n = np.array([1, 6, 27])
    assert k.collatz(n).tolist() == [k.collatz.scalar(int(v)) for v in n]
    assert type(k.collatz.vectorized).__name__ == "VectorizedFunction"
    assert k.collatz.vectorized.options.backend == os.environ.get("EXPECT_BACKEND", "auto")


def test_assertions_are_still_rewritten():
    with pytest.raises(AssertionError) as info:
        assert k.collatz(6) == 0
    assert "where 8 = " in str(info.value)  # pytest's introspection: this module was rewritten
'''

# A test module inside the hooked package stays pytest's: its assertions are rewritten.
INSIDE = '''\
import pytest


def test_inside_the_hooked_package_rewritten():
    def seven():
        return 7
    with pytest.raises(AssertionError) as info:
        assert seven() == 8
    assert "where 7 = " in str(info.value)
'''


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    for name, text in {"mypkg/__init__.py": "", "mypkg/kern.py": KERN, "mypkg/test_inside.py": INSIDE,
                       "tests/conftest.py": CONFTEST, "tests/test_uses_pkg.py": TESTS,
                       "pytest.ini": "[pytest]\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def pytest_run(root: Path, *args: str, hook: bool, autoload: bool = True, status: int = 0,
               backend: str = "auto") -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "VECTORIZER_DISABLE",
                                                          "PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    # the suite's root first, then this checkout's PYTHONPATH (a worktree's vectorizer, not the installed one)
    env.update(PYTHONPATH=os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p), EXPECT_HOOK="1" if hook else "0", EXPECT_BACKEND=backend)
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == status, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


def test_option_with_the_entry_point(suite: Path) -> None:
    out = pytest_run(suite, "--vectorizer-packages=mypkg", "tests", "mypkg", hook=True)
    assert "4 passed" in out
    assert "vectorizer import hook: mypkg (select=annotated)" in out


def test_option_with_the_plugin_named_by_module(suite: Path) -> None:
    out = pytest_run(suite, "-p", "vectorizer.faces.pytest_plugin", "--vectorizer-packages=mypkg", "tests",
                     hook=True, autoload=False)
    assert "3 passed" in out


def test_ini_key(suite: Path) -> None:
    (suite / "pytest.ini").write_text("[pytest]\nvectorizer-packages = mypkg\n")
    assert "3 passed" in pytest_run(suite, "tests", hook=True)


def test_off_without_the_option(suite: Path) -> None:
    out = pytest_run(suite, "tests", hook=False)
    assert "2 passed, 1 skipped" in out and "vectorizer import hook" not in out


def test_backend_from_pyproject(suite: Path) -> None:
    (suite / "pyproject.toml").write_text('[tool.vectorizer.import-hook]\nbackend = "numpy"\nexact = false\n')
    out = pytest_run(suite, "--vectorizer-packages=mypkg", "tests", hook=True, backend="numpy")
    assert "3 passed" in out
    assert "vectorizer import hook: mypkg (select=annotated, backend=numpy, exact=False)" in out


def test_bad_configuration_is_a_usage_error(suite: Path) -> None:
    out = pytest_run(suite, "--vectorizer-packages=numpy", "tests", hook=True, status=4)
    assert "refusing to hook 'numpy'" in out
    (suite / "pyproject.toml").write_text('[tool.vectorizer.import-hook]\nselect = "some"\n')
    out = pytest_run(suite, "--vectorizer-packages=mypkg", "tests", hook=True, status=4)
    assert "select must be one of" in out
    (suite / "pyproject.toml").write_text('[tool.vectorizer.import-hook]\nbackend = "gpu"\n')
    out = pytest_run(suite, "--vectorizer-packages=mypkg", "tests", hook=True, status=4)
    assert "backend must be one of" in out
