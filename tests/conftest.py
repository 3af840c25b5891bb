"""Shared pytest options: --update-goldens rewrites fixtures/*/expected.*, --fuzz-minutes sets
the long fuzzing budget (also VECTORIZER_FUZZ_MINUTES)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracle.py, strategies.py, kernels.py


def pytest_configure(config):
    # A cache of our own for the whole run: tests never read or write the user's cache, and
    # each run starts cold (tests that exercise the cache set their own directory).
    # Under pytest-xdist (`-n auto`) each worker gets a directory of its own: the workers inherit
    # the controller's environment, and two test processes filling one directory would evict each
    # other's entries (VECTORIZER_CACHE_MAX_MB) while a test reads back what it just wrote.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    made_here = os.environ.get("VECTORIZER_TEST_CACHE_MADE") == os.environ.get("VECTORIZER_CACHE_DIR")
    if "VECTORIZER_CACHE_DIR" not in os.environ or (worker and made_here):
        import tempfile

        os.environ["VECTORIZER_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"vectorizer-test-cache-{worker or ''}")
        os.environ["VECTORIZER_TEST_CACHE_MADE"] = os.environ["VECTORIZER_CACHE_DIR"]


def pytest_collection_modifyitems(config, items):
    # `pip install ".[test]" && python -m pytest -n auto` runs without Numba: the tests that need it (marked
    # `numba`) are skipped, with the reason, rather than deselected, so the report shows them.
    from vectorizer.backends.numba import jit

    if jit.available():
        return
    skip = pytest.mark.skip(reason="needs Numba, which is not installed for this Python (pip install numba)")
    for item in items:
        if item.get_closest_marker("numba") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _generated_modules_are_lint_clean(request):
    """Every module `vectorizer generate` writes under a test's tmp_path, and nobody edited
    afterwards, passes `ruff check --select F`: no undefined name, no unused import."""
    root = request.getfixturevalue("tmp_path") if "tmp_path" in request.fixturenames else None
    yield
    if root is not None:
        from isolation import assert_lint_clean, is_generated

        assert_lint_clean(sorted(p for p in root.rglob("*.py") if p.is_file() and not p.is_symlink() and is_generated(p)))


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", help="rewrite the golden expected outputs")
    parser.addoption("--fuzz-minutes", type=float, default=float(os.environ.get("VECTORIZER_FUZZ_MINUTES", 0)),
                     help="run the differential fuzzer for this many minutes (0: the bounded CI run)")


# -- VECTORIZER_BLOCK_NUMBA=1: run the suite as if Numba were not installed --------------------
# `.ci/run` uses it for its second run (`-m "not numba"`): the package must import, and every
# non-JIT test pass, without Numba. numba and llvmlite are hidden from the import system when this
# conftest is imported, before any test module (or vectorizer itself) can import them, and the
# same code is handed to every Python process the tests start as a `sitecustomize` on PYTHONPATH,
# so subprocess tests run without Numba too.
NUMBA_BLOCKER = """
import os as _os
import sys as _sys

_BLOCKED = ("numba", "llvmlite")


def _blocked(name):
    return any(name == m or name.startswith(m + ".") for m in _BLOCKED)


class NumbaHidingFinder:
    \"\"\"Wraps the path-entry finder of a sys.path directory: numba and llvmlite are not there.

    Hiding them from the path entries (rather than raising in a meta-path finder) gives exactly
    what a missing package gives: `import numba` raises ModuleNotFoundError("No module named
    'numba'"), importlib.util.find_spec("numba") returns None (vectorizer.backends.numba.jit.available() is
    False), and nothing is added to sys.modules.\"\"\"

    def __init__(self, inner):
        self.inner = inner

    def find_spec(self, name, target=None):
        return None if _blocked(name) else self.inner.find_spec(name, target)

    def invalidate_caches(self):
        if hasattr(self.inner, "invalidate_caches"):
            self.inner.invalidate_caches()

    def __getattr__(self, attr):
        return getattr(self.inner, attr)


def _hiding_path_hook(path):
    for hook in _sys.path_hooks:
        if not getattr(hook, "hides_numba", False):
            try:
                return NumbaHidingFinder(hook(path))
            except ImportError:
                continue
    raise ImportError(f"no path hook for {path!r}")


_hiding_path_hook.hides_numba = True  # installed once per process (sitecustomize, then conftest)


def block_numba():
    already = sorted(m for m in _sys.modules if _blocked(m))
    if already:  # too late to pretend it is missing: say so instead of running a false proof
        raise RuntimeError(f"VECTORIZER_BLOCK_NUMBA=1 but {already} is already imported")
    if not any(getattr(hook, "hides_numba", False) for hook in _sys.path_hooks):
        _sys.path_hooks.insert(0, _hiding_path_hook)
    for path, finder in list(_sys.path_importer_cache.items()):
        if finder is not None and type(finder).__name__ != "NumbaHidingFinder":
            _sys.path_importer_cache[path] = NumbaHidingFinder(finder)


if _os.environ.get("VECTORIZER_BLOCK_NUMBA", "") not in ("", "0"):
    block_numba()
"""


def _block_numba_here_and_in_subprocesses() -> None:
    import atexit
    import shutil
    import tempfile

    exec(NUMBA_BLOCKER, globals())  # this process
    site = tempfile.mkdtemp(prefix="vectorizer-no-numba-")
    Path(site, "sitecustomize.py").write_text(NUMBA_BLOCKER)  # the processes tests start
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (site, os.environ.get("PYTHONPATH", "")) if p)
    atexit.register(shutil.rmtree, site, True)


if os.environ.get("VECTORIZER_BLOCK_NUMBA", "") not in ("", "0"):
    _block_numba_here_and_in_subprocesses()

# VECTORIZER_TEST_LIBM_JITTER=1: NumPy's transcendental functions off by an ulp on some inputs, as
# on a CPU with AVX-512 (tests/libm_jitter.py): no test may pin this CPU's last bits. 2, 3, ...
# move other inputs. With Numba present, the default (exact) configuration never calls them for
# `math` functions, so its bits must not move.
if os.environ.get("VECTORIZER_TEST_LIBM_JITTER", "") not in ("", "0"):
    import importlib.util

    if importlib.util.find_spec("numba") is not None:
        # first: Numba's tables of NumPy's ufuncs (its typing and lowering registries, filled at
        # the first compilation) must hold the real ones; jittered, each is then a Python
        # function, which lane code cannot call (a typing error: the NumPy route runs it instead)
        import numba
        import numpy

        numba.njit(lambda x: numpy.exp(x) + numpy.power(x, 2.0))(1.0)
    import libm_jitter

    libm_jitter.install(int(os.environ["VECTORIZER_TEST_LIBM_JITTER"]))


def pytest_make_parametrize_id(config, val, argname):
    """A function or class parameter is named by its name, not its repr: the repr holds an address
    that differs between processes, and pytest-xdist's workers must collect the same test ids."""
    name = getattr(val, "__qualname__", None)
    if callable(val) and isinstance(name, str):
        return name
    return None
