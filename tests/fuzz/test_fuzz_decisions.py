"""Targeted fuzzing of exact discrete outcomes (fuzz/decisions.py) on the NumPy and Numba backends.

    python -m pytest tests/fuzz/test_fuzz_decisions.py                 # bounded: NumPy, then 3 on Numba
    VECTORIZER_FUZZ_BACKENDS=numpy,numba VECTORIZER_FUZZ_DECISIONS_MINUTES=15 \
        python -m pytest tests/fuzz/test_fuzz_decisions.py -k long -s
    VECTORIZER_FUZZ_JOBS=4 ...   # the long run in 4 processes (interleaved seeds), one per core

`VECTORIZER_FUZZ_BACKENDS` names the backends each program is checked on (default numpy), as for
the general fuzzer; the bounded Numba run checks a few programs on Numba whatever it says (each
compiles, about a second).
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter

import pytest

from fuzz import decisions
from fuzz.decisions import backends, check, random_program

BOUNDED = int(os.environ.get("VECTORIZER_FUZZ_DECISIONS_EXAMPLES", "6"))
NUMBA_SEEDS = range(1000, 1000 + int(os.environ.get("VECTORIZER_FUZZ_DECISIONS_NUMBA_EXAMPLES", "3")))


@pytest.mark.parametrize("seed", range(BOUNDED))
def test_decisions_bounded(seed: int) -> None:
    text = random_program(seed)
    failure = check(text, seed, {})
    assert failure is None, f"{failure}\n--- program ---\n{text}"


@pytest.mark.numba
def test_decisions_bounded_numba() -> None:
    pytest.importorskip("numba")
    stats: dict = {}
    for seed in NUMBA_SEEDS:
        text = random_program(seed)
        failure = check(text, seed, stats, ("numba",))
        assert failure is None, f"{failure}\n--- program ---\n{text}"
    # Refused programs check nothing: most of these seeds must have run on Numba itself.
    assert stats.get("checks-numba", 0) - stats.get("numba-fallback", 0) >= (len(NUMBA_SEEDS) + 1) // 2, stats


@pytest.mark.slow
def test_decisions_long(tmp_path) -> None:
    minutes = float(os.environ.get("VECTORIZER_FUZZ_DECISIONS_MINUTES", "0"))
    if minutes <= 0:
        pytest.skip("set VECTORIZER_FUZZ_DECISIONS_MINUTES=N for a long run")
    base = int(os.environ.get("VECTORIZER_FUZZ_SEED", random.randrange(2**32)))
    jobs = max(1, int(os.environ.get("VECTORIZER_FUZZ_JOBS", "1")))
    print(f"\ndecisions fuzzing on {', '.join(backends())} from seed {base} for {minutes} minutes"
          f"{f' in {jobs} processes' if jobs > 1 else ''}", flush=True)
    start = time.monotonic()
    if jobs == 1:
        stats: dict = {}
        failures, last = decisions.campaign(base, 1, minutes * 60, stats)
        ranges = [(base, last)]
    else:
        stats, failures, ranges = decisions.campaign_jobs(base, jobs, minutes * 60, tmp_path)
    print(summary(stats, ranges, jobs, len(failures), time.monotonic() - start))
    assert not failures, "\n\n".join(failures[:5])


def summary(stats: dict, ranges: list[tuple[int, int]], jobs: int, failed: int, seconds: float) -> str:
    seeds = ", ".join(f"{a}..{b}" + (f" step {jobs}" if jobs > 1 else "") for a, b in ranges)
    lines = [f"decisions fuzzing: seeds {seeds}, {stats.get('programs', 0)} programs, "
             f"{stats.get('checks', 0)} checks, {failed} failed, {seconds:.0f} s "
             f"(scalar oracle {stats.get('seconds-scalar', 0.0):.0f} s)"]
    for b in backends():
        ran, spent = stats.get(f"programs-{b}", 0), stats.get(f"seconds-{b}", 0.0)
        lines.append(f"  {b}: {ran} programs checked, {stats.get(f'checks-{b}', 0)} checks, "
                     f"{stats.get(f'refused-{b}', 0)} refused, {spent:.0f} s"
                     + (f" ({(ran + stats.get(f'refused-{b}', 0)) / spent:.2f} programs/s)" if spent else ""))
    if stats.get("numba-fallback"):
        lines.append(f"  Numba could not compile (NumPy ran them): {stats['numba-fallback']}")
    for reason, n in (stats.get("reasons") or Counter()).most_common(8):
        lines.append(f"  {n:6d}  refused: {reason}")
    if decisions.WRITTEN:
        lines += [f"  regression written: {p}" for p in decisions.WRITTEN]
    return "\n".join(lines)


def test_a_disagreement_is_written_as_a_replayable_regression(tmp_path, monkeypatch) -> None:
    """The reproducer of a real backend's disagreement: a regression file with the program, the
    backend and the exact inputs, which test_fuzz.py's replay runs; none for the simulated NumPy."""
    from fuzz import harness

    monkeypatch.setattr(harness, "REGRESSIONS", tmp_path)
    monkeypatch.setattr(decisions, "WRITTEN", [])
    seed = 2
    text = random_program(seed)
    x, k = decisions.inputs(seed)
    report = decisions.reproducer(text, seed, "numpy", "lane 3: 1 != 2", True, x, k)
    assert report.startswith(f"numpy backend, seed {seed}: lane 3") and f"VECTORIZER_FUZZ_SEED={seed} " in report
    (path,) = tmp_path.glob("reg_*.py")
    assert f"regression written: {path}" in report
    reg = harness.read_regression(path)
    assert (reg.backend, reg.status, reg.classb) == ("numpy", "open", False)
    assert [a.tobytes() for a in reg.args] == [x.tobytes(), k.tobytes()]  # -0.0 and NaN bits too
    assert harness.replay(reg).status in ("pass", "refused")  # this program agrees: the replay says so
    decisions.reproducer(text, seed, "numpy", "simulated AVX-512", False, x, k)
    assert len(list(tmp_path.glob("reg_*.py"))) == 1
