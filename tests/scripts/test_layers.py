"""scripts/check_layers.py: the package's imports go down the layers (DESIGN §4), and the check
fails on a copy of the package with an upward import, a cycle, a module in no layer, an import of
a module that does not exist, or a stale allowlist entry."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_layers.py"


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def package_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "vectorizer"
    shutil.copytree(ROOT / "vectorizer", dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_this_checkout_keeps_its_layers():
    done = check()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok: every import goes down" in done.stdout
    graph = {line.split("->")[0].strip(): line.split("->")[1] for line in done.stdout.splitlines() if " -> " in line
             and line.startswith("  ") and not line.startswith("  vectorizer.")}
    assert "analysis" in graph["passes"] and "rules" in graph["analysis"]  # the graph is the real one
    assert "passes" not in graph["analysis"]


def test_an_upward_lazy_import_fails(tmp_path):
    package = package_copy(tmp_path)
    with open(package / "core" / "types.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef _late():\n    from ..api import vectorize\n\n    return vectorize\n")
    done = check("--package", str(package))
    assert done.returncode == 1
    assert "vectorizer.core.types (core) imports vectorizer.api (top), a layer above it (lazy import)" in done.stderr


def test_a_cycle_within_a_layer_fails(tmp_path):
    package = package_copy(tmp_path)
    with open(package / "errors.py", "a", encoding="utf-8") as f:
        f.write("\nfrom .options import BACKENDS as _B  # noqa\n")
    with open(package / "options.py", "a", encoding="utf-8") as f:
        f.write("\nfrom .errors import VectorizeError as _E  # noqa\n")
    done = check("--package", str(package))
    assert done.returncode == 1 and "import cycle between errors, options" in done.stderr


def test_a_module_in_no_layer_fails(tmp_path):
    package = package_copy(tmp_path)
    (package / "helpers.py").write_text("X = 1\n")
    done = check("--package", str(package))
    assert done.returncode == 1 and "vectorizer.helpers is in no layer" in done.stderr


def test_a_stale_allowlist_entry_fails(tmp_path):
    """An entry that matches no import (the refactor it names is done) must be removed."""
    text, n = re.subn(r"^ALLOWED_UP: (.*) = \{\n", lambda m: m.group(0) + '    ("vectorizer.core.types", '
                      '"vectorizer.api"): "a stale entry",\n', SCRIPT.read_text(encoding="utf-8"), flags=re.M)
    assert n == 1
    script = tmp_path / "check_layers.py"
    script.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), "--package", str(ROOT / "vectorizer")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "allowlist entry vectorizer.core.types -> vectorizer.api matches no import" in done.stderr


def test_an_import_of_a_moved_module_fails(tmp_path):
    package = package_copy(tmp_path)
    (package / "passes" / "late_pass.py").write_text("from ..analysis.types import INT\n")  # core/types.py now
    done = check("--package", str(package))
    assert done.returncode == 1 and "imports vectorizer.analysis.types, which does not exist" in done.stderr
