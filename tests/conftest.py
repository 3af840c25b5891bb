"""Shared pytest options: --update-goldens rewrites fixtures/*/expected.*, --fuzz-minutes sets
the long fuzzing budget (also VECTORIZER_FUZZ_MINUTES)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracle.py, strategies.py, kernels.py


def pytest_configure(config):
    # A cache of our own for the whole run: tests never read or write the user's cache, and
    # each run starts cold (tests that exercise the cache set their own directory).
    if "VECTORIZER_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["VECTORIZER_CACHE_DIR"] = tempfile.mkdtemp(prefix="vectorizer-test-cache-")


def pytest_addoption(parser):
    parser.addoption("--update-goldens", action="store_true", help="rewrite the golden expected outputs")
    parser.addoption("--fuzz-minutes", type=float, default=float(os.environ.get("VECTORIZER_FUZZ_MINUTES", 0)),
                     help="run the differential fuzzer for this many minutes (0: the bounded CI run)")
