"""Fuzzing fixtures: an isolated vectorizer cache, and the campaign summary at the end of the run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `pytest` without an installed vectorizer
    sys.path.insert(0, str(ROOT))



@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """Thousands of generated programs must not fill the user's cache directory."""
    old = os.environ.get("VECTORIZER_CACHE_DIR")
    os.environ["VECTORIZER_CACHE_DIR"] = str(tmp_path_factory.mktemp("vectorizer-cache"))
    yield
    if old is None:
        os.environ.pop("VECTORIZER_CACHE_DIR", None)
    else:
        os.environ["VECTORIZER_CACHE_DIR"] = old


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from fuzz.harness import STATS

    if not STATS.counts:
        return
    terminalreporter.section("vectorizer differential fuzzing")
    for line in STATS.summary():
        terminalreporter.write_line(line)
