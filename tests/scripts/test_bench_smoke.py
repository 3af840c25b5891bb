"""Smoke test of scripts/bench.py --quick: it runs, every variant agrees with the scalar oracle,
and the JSON has the documented structure. No timing is asserted (CI machines are noisy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench.py"
STATUSES = {"ok", "skipped", "refused", "mismatch", "error"}
VARIANTS = {"python", "np_vectorize", "numpy", "numba_prange", "numba_exact", "numba_vectorize", "jax",
            "vec_default", "vec_fast", "vec_numpy", "vec_numba", "vec_jax", "vec_jax_device", "vec_jax_transfer", "memcpy"}


def test_bench_quick_runs_and_writes_json(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    out = tmp_path / "bench.json"
    markdown = tmp_path / "bench.md"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", str(out), "--markdown", str(markdown)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
    assert "| kernel |" in proc.stdout and markdown.read_text().startswith("# vectorizer benchmark")

    doc = json.loads(out.read_text())
    assert doc["schema"] == "vectorizer-bench/1"
    for key in ("created", "command", "machine", "versions", "config", "variants", "kernels",
                "results", "failures", "notes", "total_seconds"):
        assert key in doc, key
    assert {"cpu", "cores"} <= doc["machine"].keys()
    assert {"python", "numpy", "numba", "jax", "vectorizer"} <= doc["versions"].keys()
    assert doc["config"]["quick"] is True and doc["failures"] == []
    assert {v["key"] for v in doc["variants"]} == VARIANTS

    sizes, kernels = doc["config"]["sizes"], doc["config"]["kernels"]
    assert kernels and sizes and [k["name"] for k in doc["kernels"]] == kernels
    cells = {(r["kernel"], r["size"], r["variant"]): r for r in doc["results"]}
    assert len(cells) == len(doc["results"]) == len(kernels) * len(sizes) * len(VARIANTS)
    for (kernel, size, variant), r in cells.items():
        assert kernel in kernels and size in sizes and variant in VARIANTS
        assert r["status"] in STATUSES
        assert r["status"] not in ("mismatch", "error"), r
        assert set(r["ratios"]) == {"numpy", "numba", "jax", "python", "hand_exact", "backends"}
        if r["status"] != "ok":
            assert r["note"], r  # every variant that did not run says why
            continue
        assert r["ns_per_element"] > 0 and r["median_s"] > 0 and r["samples_s"]
        assert 0 < r["lanes_timed"] <= size and r["first_call_s"] is not None
        if variant in ("memcpy", "vec_jax_device", "vec_jax_transfer"):  # parts of a call: vec_jax verifies it
            assert r["verify"] is None
        else:  # checked against the scalar oracle before it was timed
            assert r["verify"]["ok"] is True and r["verify"]["lanes"] > 0

    # the baselines that need only NumPy and Numba always run; vectorizer's NumPy backend runs
    # or (if it refuses a kernel) says why
    for kernel in kernels:
        for size in sizes:
            for variant in ("python", "np_vectorize", "numpy", "numba_prange", "numba_exact", "numba_vectorize",
                            "memcpy"):
                assert cells[(kernel, size, variant)]["status"] == "ok", (kernel, size, variant)
            assert cells[(kernel, size, "vec_numpy")]["status"] in ("ok", "refused")
            default = cells[(kernel, size, "vec_default")]  # the default: its route, and why, noted
            assert default["status"] == "ok" and "route " in default["note"], default


def test_variants_runs_only_the_chosen_ones(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--kernels", "poly_horner", "--sizes", "1e3",
         "--variants", "numpy,vec_numpy", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    cells = {r["variant"]: r for r in json.loads(out.read_text())["results"]}
    assert set(cells) == VARIANTS
    assert cells["numpy"]["status"] == cells["vec_numpy"]["status"] == "ok"
    for variant in VARIANTS - {"numpy", "vec_numpy"}:
        assert cells[variant]["status"] == "skipped" and "--variants" in cells[variant]["note"], cells[variant]


def test_an_unknown_variant_is_a_usage_error() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--variants", "numpy,nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown variant(s) nope" in proc.stderr, proc.stderr


def _bench_module():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import bench
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return bench


def _cell(variant: str, samples: list[float], lanes: int = 1000) -> dict:
    return {"kernel": "k", "size": 1000, "variant": variant, "lanes_timed": lanes, "samples_s": samples,
            "ns_per_element": 1.0}  # any number: the cell ran


def test_ratios_pair_the_samples_of_each_round() -> None:
    """The machine runs whole rounds fast or slow; a ratio of medians could pick one variant's fast
    samples and the other's slow ones, the paired ratio cannot."""
    bench = _bench_module()
    fast, slow = 1.0, 1.6
    rounds = [fast, fast, slow, slow, slow, fast, slow]  # 4 slow rounds of 7: every median is slow
    mine = _cell("vec_numba", [1.1 * r for r in rounds])
    hand = _cell("numba_prange", [r if i != 4 else fast for i, r in enumerate(rounds)])  # its 5th is fast
    other = _cell("numba_vectorize", [2.0 * r for r in rounds])
    python = _cell("python", [50.0 * r for r in rounds[:3]], lanes=10)  # 3 rounds, on a slice of 10 lanes
    results = [mine, hand, other, python]
    bench.add_ratios(results)
    # medians: mine 1.1 * 1.6, hand 1.0 (4 fast samples of 7): their quotient would read 1.76
    assert mine["ratios"]["numba"] == pytest.approx(1.1)
    assert hand["ratios"]["numba"] == pytest.approx(1.0)
    assert other["ratios"]["numba"] == pytest.approx(2.0)  # numba_prange is the faster of the pair
    # 3 rounds in common (MIN_REPEATS): paired per lane, 1.1 r / 1000 lanes against 50 r / 10 lanes
    assert mine["ratios"]["python"] == pytest.approx((1.1 / 1000) / (50.0 / 10))
    assert mine["ratios"]["jax"] is None and mine["ratios"]["numpy"] is None


def test_ratios_of_medians_with_too_few_rounds_in_common() -> None:
    bench = _bench_module()
    mine = _cell("vec_numba", [2.0, 2.0, 2.0, 2.0])
    hand = _cell("numba_prange", [1.0, 4.0])  # stopped after 2 samples: no pairing
    bench.add_ratios([mine, hand])
    assert mine["ratios"]["numba"] == pytest.approx(2.0 / 2.5)  # median 2.0 against median 2.5


@pytest.mark.parametrize(("calls", "want", "made"), [
    ([0.004, 0.001, 0.002, 0.003], 10, 4),  # calls until they took a sample's time: 10 ms / 1 ms
    ([0.5, 0.001, 0.5], 10, 3),  # one slow call (a late thread wake-up) does not decide
    ([0.003, 0.003, 0.003, 0.0025], 4, 4),  # nor do three: a fourth fits in 10 ms, and counts
    ([0.05, 0.02, 0.03], 1, 3),  # slower than a sample: one call a sample
    ([3.0], 1, 1),  # more than a second: timed once
])
def test_calls_per_sample_from_the_fastest_call(calls, want, made) -> None:
    bench = _bench_module()
    readings = iter(calls)
    timed = []

    def call() -> float:
        timed.append(None)
        return next(readings)

    assert bench.calls_per_sample(call, 0.010) == want and len(timed) == made
