"""Run generated modules as a user without vectorizer would, and lint them.

`numpy_only_path(dir)` makes a directory that holds NumPy and nothing else (symlinks to NumPy's
entries in its site-packages: the package, its bundled libraries, its metadata), and
`run_isolated` starts `python -I -S` with that directory and the module's own on sys.path: no
site-packages (an installed or editable vectorizer, and every .pth, stay out), no PYTHON*
variables, no current directory (a checkout's `vectorizer/` stays out). The child asserts
that vectorizer cannot be imported, so a setup where it still could fails instead of proving
nothing.

`assert_lint_clean(paths)` runs `ruff check --select F` (undefined names, unused imports and
variables...) on generated modules, with the project's configuration ignored.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

CHECKSUM_LINE = "# vectorizer-checksum: sha256:"


def numpy_only_path(root: Path) -> Path:
    """A directory under `root` whose only importable package is NumPy."""
    site = Path(np.__file__).resolve().parent.parent
    target = root / "numpy-only"
    target.mkdir(exist_ok=True)
    for entry in site.iterdir():
        # numpy, numpy.libs (the wheel's OpenBLAS, found through $ORIGIN/../numpy.libs), metadata
        if entry.name == "numpy" or entry.name.startswith(("numpy.", "numpy-")):
            link = target / entry.name
            if not link.exists():
                link.symlink_to(entry, target_is_directory=entry.is_dir())
    return target


def run_isolated(code: str, cwd: Path, paths: Iterable[Path], env: Mapping[str, str] | None = None,
                 timeout: float = 600) -> subprocess.CompletedProcess:
    """`code` in `python -I -S` with exactly `paths` (and the standard library) to import from."""
    boot = (f"import sys\nsys.path[:0] = {[str(p) for p in paths]!r}\n"
            "import importlib.util\n"
            "assert importlib.util.find_spec('vectorizer') is None, 'vectorizer must not be importable here'\n")
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "TMPDIR", "LANG", "SYSTEMROOT")}
    return subprocess.run([sys.executable, "-I", "-S", "-c", boot + code], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**base, **(env or {})})


def is_generated(path: Path) -> bool:
    """`path` is a module `vectorizer generate` wrote and nobody edited (its checksum holds)."""
    try:
        with open(path, encoding="utf-8") as file:
            head = file.readline() + file.readline()
    except (OSError, UnicodeDecodeError):
        return False  # unreadable (a permissions test's file) or not text: not a generated module
    if CHECKSUM_LINE not in head:
        return False
    from vectorizer.faces.cli.standalone import checksum_ok

    return checksum_ok(path.read_text(encoding="utf-8"))


def assert_lint_clean(paths: Iterable[Path]) -> None:
    paths = [str(p) for p in paths]
    if not paths:
        return
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", "F",
                           "--target-version", "py310", "--output-format", "concise", *paths],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"ruff finds problems in generated modules:\n{done.stdout}{done.stderr}"
