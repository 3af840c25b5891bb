"""scripts/bench_targets.py judges a run against issue 33's targets: the verdicts follow the
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


def test_numpy_targets_name_the_kernel_that_misses(bt) -> None:
    ratios = {("fast", 10**6, "vec_numpy"): {"numpy": 0.8}, ("slow", 10**6, "vec_numpy"): {"numpy": 1.4}}
    doc = _doc({("fast", 10**6, "vec_numpy"): 1.0, ("slow", 10**6, "vec_numpy"): 1.0}, ratios)
    rows = bt.targets(doc)
    every = _row(rows, "NumPy backend / hand NumPy @1e6: every kernel ≤ 1.3×")[0]
    assert every[2] == "NOT MET" and every[3] == "slow 1.40×"
    geo = _row(rows, "NumPy backend / hand NumPy @1e6: geometric mean")[0]
    assert geo[1] == f"{(0.8 * 1.4) ** 0.5:.2f}×" and geo[2] == "NOT MET"  # 1.06 > 1.0


def test_no_data_is_never_met(bt) -> None:
    rows = bt.targets(_doc({("fast", 10**6, "python"): 100.0}))
    judged = [r for r in rows if r[2] != "reported"]
    assert judged and all(r[2] == "no data" for r in judged), judged


def test_small_calls_are_judged_in_microseconds_above_the_fastest_hand_version(bt) -> None:
    n = 1000  # ns a lane * 1000 lanes / 1000 = µs a call
    doc = _doc({("a", n, "vec_numba"): 5.0, ("a", n, "numba_prange"): 3.5, ("a", n, "numba_vectorize"): 1.0,
                ("b", n, "vec_numba"): 2.0, ("b", n, "numba_vectorize"): 1.5})
    row = _row(bt.targets(doc), "Numba backend at 1e3 elements")[0]
    assert row[2] == "NOT MET" and row[3] == "a +4.0 µs"  # against numba.vectorize's 1.0, not prange's 3.5
    assert row[1] == "worst a +4.0 µs"


def test_jax_from_a_run_of_its_own(bt) -> None:
    big = 10**6
    main = _doc({("k", big, "vec_numpy"): 3.0, ("k", big, "vec_numba"): 1.0, ("loopy", big, "vec_numpy"): 8.0,
                 ("loopy", big, "vec_numba"): 1.0, ("k", big, "jax"): 1.0, ("loopy", big, "jax"): 1.0})
    for r in main["results"]:
        if r["variant"] == "jax":
            r["status"] = "skipped"  # not among --variants
    jax = _doc({("k", big, "jax"): 2.0, ("loopy", big, "jax"): 4.0})
    merged = bt.with_jax_from(main, jax)
    rows = bt.targets(merged)
    default = _row(rows, "default configuration (NumPy backend) / JAX")[0]
    assert default[2] == "NOT MET" and default[3] == "loopy 2.00×, k 1.50×"
    loops = _row(rows, "Numba backend / JAX @1e6, while-loop kernels")[0]
    assert loops[1] == "0.25×" and loops[2] == "met"
    table = "\n".join(bt.jax_table(merged))
    assert "| k | 2 | 1.50× | 0.50× |" in table
    assert bt.targets(main)[[r[0] for r in rows].index(default[0])][2] == "no data"  # the skipped cells
