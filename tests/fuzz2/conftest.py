"""fuzz2 fixtures: a vectorizer cache of its own, and the run's counts at the end of the session."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):  # noqa: ANN001, ANN201
    """Hundreds of generated programs must not fill the user's (or the suite's) cache."""
    old = os.environ.get("VECTORIZER_CACHE_DIR")
    os.environ["VECTORIZER_CACHE_DIR"] = str(tmp_path_factory.mktemp("fuzz2-cache"))
    yield
    if old is None:
        os.environ.pop("VECTORIZER_CACHE_DIR", None)
    else:
        os.environ["VECTORIZER_CACHE_DIR"] = old


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ANN001, ANN201, ARG001
    from fuzz2.campaign import SUMMARIES

    if SUMMARIES:
        terminalreporter.section("fuzz2: second differential fuzzer")
        for lines in SUMMARIES:
            for line in lines:
                terminalreporter.write_line(line)
