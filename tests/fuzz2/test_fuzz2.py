"""fuzz2, the second differential fuzzer (README.md beside this file): its bounded runs, the long
run, the replay of its regression files, and checks of the grammar and of the checker itself."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from fuzz2 import campaign, regressions
from fuzz2.campaign import SUMMARIES
from fuzz2.check import check

CI_SEED = 20_000  # fixed seeds: the bounded runs check the same programs every time
NUMPY_PROGRAMS = int(os.environ.get("VECTORIZER_FUZZ2_PROGRAMS", 70))
NUMBA_PROGRAMS = int(os.environ.get("VECTORIZER_FUZZ2_NUMBA_PROGRAMS", 18))


def _assert_no_new_disagreement(stats: campaign.Stats) -> None:
    SUMMARIES.append(stats.summary())
    assert not stats.failures, "fuzz2 found disagreements:\n" + "\n\n".join(
        f"seed {f['seed']} on {f['backend']}: {f['kind']}\n{f['detail']}\n"
        f"check again: python tests/fuzz2 --programs 1 --seed {f['seed']} --backends {f['backend']}"
        for f in stats.failures)


def test_fuzz2_bounded_numpy():
    stats = campaign.run(range(CI_SEED, CI_SEED + NUMPY_PROGRAMS), ("numpy",), write=False)
    _assert_no_new_disagreement(stats)


@pytest.mark.numba
def test_fuzz2_bounded_numba():
    """The first of the same programs on the Numba backend, which compiles each (~2 s)."""
    stats = campaign.run(range(CI_SEED, CI_SEED + NUMBA_PROGRAMS), ("numba",), write=False)
    _assert_no_new_disagreement(stats)


@pytest.mark.slow
def test_fuzz2_long():
    """VECTORIZER_FUZZ2_MINUTES=M (and/or VECTORIZER_FUZZ2_LONG_PROGRAMS=N) python -m pytest
    tests/fuzz2 -k long -s: fresh seeds (VECTORIZER_FUZZ2_SEED, default from the clock) on both
    backends (VECTORIZER_FUZZ2_BACKENDS), shrinking and writing each new disagreement."""
    minutes = float(os.environ.get("VECTORIZER_FUZZ2_MINUTES", 0))
    programs = int(os.environ.get("VECTORIZER_FUZZ2_LONG_PROGRAMS", 0))
    if not minutes and not programs:
        pytest.skip("the long run needs VECTORIZER_FUZZ2_MINUTES or VECTORIZER_FUZZ2_LONG_PROGRAMS")
    seed = int(os.environ.get("VECTORIZER_FUZZ2_SEED", int(time.time()) % 10**6 * 1000))
    backends = tuple(os.environ.get("VECTORIZER_FUZZ2_BACKENDS", "numpy,numba").split(","))
    deadline = time.monotonic() + minutes * 60 if minutes else None
    stats = campaign.run(range(seed, seed + (programs or 10**9)), backends, deadline=deadline)
    print(f"\nfuzz2 long run from seed {seed}")
    _assert_no_new_disagreement(stats)


FILES = regressions.all_files()


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_regression(path: Path, request):  # noqa: ANN001
    reg = regressions.read(path)
    if reg.backend == "numba":
        request.applymarker(pytest.mark.numba)
        pytest.importorskip("numba")
    if reg.status == "open":
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"open fuzz2 regression {path.name}: {reg.kind}"))
    outcome = check(reg.source, reg.args, reg.backend)
    assert outcome.status != "fail", f"{outcome.kind}\n{outcome.detail}"
