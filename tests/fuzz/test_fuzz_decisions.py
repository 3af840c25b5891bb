"""Targeted fuzzing of exact discrete outcomes on the NumPy backend (fuzz/decisions.py).

    python -m pytest tests/fuzz/test_fuzz_decisions.py                 # bounded: a few seconds
    VECTORIZER_FUZZ_DECISIONS_MINUTES=15 python -m pytest tests/fuzz/test_fuzz_decisions.py -k long -s
"""

from __future__ import annotations

import os
import random
import time

import pytest

from fuzz.decisions import check, random_program

BOUNDED = int(os.environ.get("VECTORIZER_FUZZ_DECISIONS_EXAMPLES", "6"))


@pytest.mark.parametrize("seed", range(BOUNDED))
def test_decisions_bounded(seed: int) -> None:
    text = random_program(seed)
    failure = check(text, seed, {})
    assert failure is None, f"{failure}\n--- program ---\n{text}"


@pytest.mark.slow
def test_decisions_long() -> None:
    minutes = float(os.environ.get("VECTORIZER_FUZZ_DECISIONS_MINUTES", "0"))
    if minutes <= 0:
        pytest.skip("set VECTORIZER_FUZZ_DECISIONS_MINUTES=N for a long run")
    base = int(os.environ.get("VECTORIZER_FUZZ_SEED", random.randrange(2**32)))
    stats: dict = {}
    failures = []
    start = time.monotonic()
    seed = base
    while time.monotonic() - start < minutes * 60:
        text = random_program(seed)
        failure = check(text, seed, stats)
        if failure is not None:
            failures.append(f"seed {seed}: {failure}\n{text}")
        seed += 1
    print(f"\ndecisions fuzzing: seeds {base}..{seed - 1}, {stats.get('programs', 0)} programs, "
          f"{stats.get('checks', 0)} checks, {stats.get('refused', 0)} refused, {len(failures)} failed, "
          f"{time.monotonic() - start:.0f} s")
    assert not failures, "\n\n".join(failures[:5])
