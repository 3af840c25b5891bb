"""PEP 561: the package ships `py.typed`, and pyproject's package data puts it in the wheel
(`pip wheel . --no-deps` lists it; building a wheel here is left to the release check)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_py_typed_is_in_the_package_and_its_package_data():
    assert (ROOT / "vectorizer" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["vectorizer"]
