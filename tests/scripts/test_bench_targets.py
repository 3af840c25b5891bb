"""scripts/bench_targets.py judges a run against issue 50's targets: the verdicts follow the
numbers, a miss is named, no data is never "met", and JAX timed in a process of its own is
merged in as a quotient of medians."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.fixture(scope="module")
def bt():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import bench_targets
    finally:
        sys.path.remove(str(SCRIPTS))
    return bench_targets


def _doc(ns: dict[tuple[str, int, str], float], ratios: dict[tuple[str, int, str], dict] | None = None) -> dict:
    kernels = sorted({k for k, _, _ in ns})
    results = [{"kernel": k, "size": n, "variant": v, "status": "ok", "ns_per_element": t,
                "ratios": (ratios or {}).get((k, n, v), {})} for (k, n, v), t in ns.items()]
    return {"config": {"sizes": sorted({n for _, n, _ in ns})}, "results": results,
            "kernels": [{"name": k, "category": "while-loop" if k == "loopy" else "arithmetic"} for k in kernels]}


def _row(rows, start: str):
    found = [r for r in rows if r[0].startswith(start)]
    assert len(found) >= 1, (start, [r[0] for r in rows])
    return found


def test_default_targets_name_the_kernel_that_misses(bt) -> None:
    ratios = {("fast", 10**6, "vec_default"): {"hand_exact": 0.8}, ("slow", 10**6, "vec_default"): {"hand_exact": 1.4}}
    doc = _doc({("fast", 10**6, "vec_default"): 1.0, ("slow", 10**6, "vec_default"): 1.0}, ratios)
    rows = bt.targets(doc)
    every = _row(rows, "default / better of hand NumPy and exact hand Numba @1e6: every kernel ≤ 1.1×")[0]
    assert every[2] == "NOT MET" and every[3] == "slow 1.40×"
    geo = _row(rows, "default / better of hand NumPy and exact hand Numba @1e6: geometric mean")[0]
    assert geo[1] == f"{(0.8 * 1.4) ** 0.5:.2f}×" and geo[2] == "NOT MET"  # 1.06 > 1.0
    fast = _row(rows, "exact=False / plain hand Numba @1e6: every kernel")[0]
    assert fast[2] == "no data"


def test_exact_false_against_plain_hand_numba(bt) -> None:
    ratios = {("a", 10**5, "vec_fast"): {"numba": 1.05}, ("b", 10**5, "vec_fast"): {"numba": 0.9}}
    rows = bt.targets(_doc({("a", 10**5, "vec_fast"): 1.0, ("b", 10**5, "vec_fast"): 1.0}, ratios))
    assert _row(rows, "exact=False / plain hand Numba @1e5: every kernel ≤ 1.1×")[0][2] == "met"
    assert _row(rows, "exact=False / plain hand Numba @1e5: geometric mean")[0][2] == "met"


def test_no_data_is_never_met(bt) -> None:
    rows = bt.targets(_doc({("fast", 10**6, "python"): 100.0}))
    judged = [r for r in rows if r[2] != "reported"]
    assert judged and all(r[2] == "no data" for r in judged), judged


def test_jax_from_a_run_of_its_own(bt) -> None:
    big = 10**6
    main = _doc({("k", big, "vec_default"): 3.0, ("k", big, "vec_numba"): 1.0, ("loopy", big, "vec_default"): 1.0,
                 ("loopy", big, "vec_numba"): 1.0, ("k", big, "jax"): 1.0, ("loopy", big, "jax"): 1.0})
    for r in main["results"]:
        if r["variant"] == "jax":
            r["status"] = "skipped"  # not among --variants
    jax = _doc({("k", big, "jax"): 2.0, ("loopy", big, "jax"): 4.0})
    merged = bt.with_jax_from(main, jax)
    rows = bt.targets(merged)
    default = _row(rows, "default / JAX jit(vmap) @1e6")[0]
    assert default[1] == "faster on 1 of 2" and default[2] == "NOT MET" and default[3] == "k 1.50×"
    table = "\n".join(bt.jax_table(merged))
    assert "| k | 2 | 1.50× | – | – | 0.50× |" in table
    assert bt.targets(main)[[r[0] for r in rows].index(default[0])][2] == "no data"  # the skipped cells
