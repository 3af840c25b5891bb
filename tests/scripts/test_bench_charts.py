"""scripts/bench_charts.py: the charts of a benchmark run, one question each, drawn from a run's
JSON (`bench.py --from-json RUN.json --chart DIR`, in a real subprocess). The values are a small
synthetic run whose ratios are derived here, so the test knows which kernel must come first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import bench_charts  # noqa: E402

TIMES = {  # kernel -> variant -> seconds per element (python, hand numpy, numba, the two backends)
    "fast_kernel": {"python": 1e-6, "numpy": 2e-9, "numba_prange": 1e-9, "vec_numpy": 4e-9, "vec_numba": 1e-9},
    "slow_kernel": {"python": 1e-6, "numpy": 5e-8, "numba_prange": 1e-8, "vec_numpy": 2e-6, "vec_numba": 5e-7},
}


def _run() -> dict:
    results = []
    for kernel, times in TIMES.items():
        for variant, t in times.items():
            ratios = {"python": t / times["python"], "numpy": t / times["numpy"], "numba": t / times["numba_prange"],
                      "jax": None}
            results.append({"kernel": kernel, "size": 1000, "variant": variant, "status": "ok",
                            "ns_per_element": t * 1e9, "ratios": ratios})
    return {"config": {"sizes": [1000]}, "kernels": [{"name": k} for k in TIMES], "results": results,
            "machine": {"cpu": "Test CPU", "numpy_simd": "AVX2"}, "created": "2026-12-03T00:00:00"}


def test_the_metrics_are_the_run_ratios() -> None:
    cells = {(r["kernel"], r["variant"]): r for r in _run()["results"]}
    assert bench_charts.speedup(cells["fast_kernel", "vec_numba"]) == pytest.approx(1000.0)
    assert bench_charts.speedup(cells["slow_kernel", "vec_numpy"]) == pytest.approx(0.5)  # slower than the loop
    # against the fastest hand-written version (numba here): the largest of the per-baseline ratios
    assert bench_charts.versus_best(cells["slow_kernel", "vec_numpy"]) == pytest.approx(200.0)
    assert bench_charts.versus_best(cells["fast_kernel", "vec_numba"]) == pytest.approx(1.0)
    assert bench_charts.speedup(None) is None and bench_charts.versus_best({"ratios": {}}) is None


def test_charts_from_a_saved_run(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    run = tmp_path / "run.json"
    run.write_text(json.dumps(_run()))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench.py"), "--from-json", str(run),
                           "--chart", str(tmp_path / "charts")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for name in ("speedup.png", "vs_best.png"):
        png = (tmp_path / "charts" / name).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000, name
