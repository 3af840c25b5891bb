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


def test_numba_is_a_dependency_where_it_has_wheels():
    """Exact by default needs Numba (its loops over the C library): a dependency, under a marker
    that leaves it out where it has no wheel (PyPy, a Python too new), where the package runs
    NumPy's functions after one InexactWarning. The `numba` extra stays, empty, for old commands."""
    from packaging.requirements import Requirement

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (numba,) = [Requirement(d) for d in config["project"]["dependencies"] if d.startswith("numba")]
    assert numba.marker is not None and numba.marker.evaluate()  # this interpreter gets it
    assert not numba.marker.evaluate({"platform_python_implementation": "PyPy"})
    assert not numba.marker.evaluate({"python_version": "3.15"})
    assert config["project"]["optional-dependencies"]["numba"] == []
