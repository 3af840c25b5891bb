#!/usr/bin/env python
"""Start-up costs, each measured in fresh Python processes (a warm process hides them).

    transform   cold transform of each kernel: first call minus a steady call, in a process where
                NumPy, libcst and vectorizer are already imported and the disk cache is empty;
                median over fresh processes (at least 3, half of --runs)
    warm start  a fresh process with a warm disk cache: the time from after `import numpy` (and
                `import numba` for the Numba backend) to the end of the first call, which
                includes importing vectorizer and decorating; median over fresh processes. The
                same call made again (steady) is reported beside it: the kernel's own work, the
                part of the first call that is not start-up
    njit warm   the same for a hand-written `@njit(cache=True)` kernel with a warm Numba cache: what
                Numba itself costs on first use (its typing/target registries load lazily, and
                with SciPy installed that imports SciPy), so vectorizer's own share is the
                difference

    python scripts/bench_startup.py [--runs 7] [--json bench-results/startup.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARM_KERNELS = ("mandelbrot_escape", "black_scholes_call")

_TRANSFORM = """
import json, os, sys, tempfile, time
import numpy as np, libcst
sys.path.insert(0, {here!r})
import bench_kernels as bk
import vectorizer
from vectorizer import vectorize

# A first transform loads the engine's lazily imported modules. It needs a function with source
# on disk (one defined here, in `python -c`, would run element by element and load nothing).
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "vz_startup_warmup.py"), "w") as file:
    file.write("def warmup(x: float) -> float:\\n    return x + 1.0 if x > 0 else x\\n")
sys.path.insert(0, folder)
import vz_startup_warmup
warm = vectorize(vz_startup_warmup.warmup)
warm(np.ones(4))
assert warm.backend == "numpy", warm.backend
out = {{}}
for k in bk.KERNELS:
    args = k.inputs(1000, 0)
    f = vectorize(k.func)
    t0 = time.perf_counter(); f(*args); t1 = time.perf_counter()
    t2 = time.perf_counter(); f(*args); t3 = time.perf_counter()
    out[k.name] = (t1 - t0) - (t3 - t2)
print(json.dumps(out))
"""

_WARM = """
import json, sys, time
sys.path.insert(0, {here!r})
import numpy as np
{pre_import}
import bench_kernels as bk
args = bk.by_name()[{kernel!r}].inputs(1000, 0)
t0 = time.perf_counter()
{body}
t1 = time.perf_counter()
{again}
t2 = time.perf_counter()
print(json.dumps({{"seconds": t1 - t0, "steady": t2 - t1, "libcst": "libcst" in sys.modules}}))
"""

_VECTORIZER_BODY = """
from vectorizer import vectorize
f = vectorize(bk.{kernel}, backend={backend!r})
f(*args)
"""

_NJIT_MODULE = """
import numba
from numba import njit, prange
import numpy as np

MAX_ITER = 128

@njit(cache=True)
def lane(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < MAX_ITER:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n

@njit(cache=True, parallel=True)
def drive(cr, ci):
    out = np.empty(cr.shape[0], np.int64)
    for i in prange(cr.shape[0]):
        out[i] = lane(cr[i], ci[i])
    return out
"""


def _child(code: str, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"benchmark child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env(cache_dir: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ, VECTORIZER_CACHE_DIR=cache_dir, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users' installs have .pyc files; measure that
    return env


def _median_ms(code: str, env: dict[str, str], runs: int) -> tuple[float, float, bool]:
    """Median first call and median second call (the same call, steady), in ms; libcst imported."""
    _child(code, env)  # fills the caches (ours, Numba's, and __pycache__)
    samples = [_child(code, env) for _ in range(runs)]
    return (1e3 * statistics.median(s["seconds"] for s in samples), 1e3 * statistics.median(s["steady"] for s in samples),
            any(s.get("libcst") for s in samples))


def measure(runs: int = 7) -> dict:
    """All start-up figures, in milliseconds."""
    results: dict = {"transform_ms": {}, "warm_start_ms": {}, "steady_call_ms": {}}
    with tempfile.TemporaryDirectory() as tmp:
        # one sample per kernel and process; each process starts from an empty disk cache
        colds = [_child(textwrap.dedent(_TRANSFORM).format(here=str(HERE)), _env(os.path.join(tmp, f"cold{i}")))
                 for i in range(max(3, runs // 2))]
        results["transform_ms"] = {name: 1e3 * statistics.median(c[name] for c in colds) for name in colds[0]}
        warm_cache = os.path.join(tmp, "warm")
        for backend in ("numpy", "numba"):
            pre = "import numba" if backend == "numba" else ""
            for kernel in WARM_KERNELS:
                body = _VECTORIZER_BODY.format(kernel=kernel, backend=backend)
                code = _WARM.format(here=str(HERE), pre_import=pre, kernel=kernel, body=body, again="f(*args)")
                name = f"vectorizer {backend} {kernel}"
                results["warm_start_ms"][name], results["steady_call_ms"][name], libcst = _median_ms(code, _env(warm_cache), runs)
                results.setdefault("libcst_imported_when_warm", False)
                results["libcst_imported_when_warm"] |= libcst
        module_dir = Path(tmp) / "hand"
        module_dir.mkdir()
        (module_dir / "hand_njit.py").write_text(_NJIT_MODULE)
        body = f"sys.path.insert(0, {str(module_dir)!r})\nimport hand_njit\nhand_njit.drive(*args)"
        code = _WARM.format(here=str(HERE), pre_import="import numba", kernel="mandelbrot_escape", body=body,
                            again="hand_njit.drive(*args)")
        name = "hand njit(cache=True) mandelbrot_escape"
        results["warm_start_ms"][name], results["steady_call_ms"][name], _ = _median_ms(code, _env(warm_cache), runs)
    return results


def report(results: dict) -> str:
    lines = ["## Start-up (fresh processes; ms)", "",
             "| measurement | ms |", "|---|---:|"]
    transform = results["transform_ms"]
    for name, ms in transform.items():
        lines.append(f"| cold transform: {name} | {ms:.1f} |")
    lines.append(f"| cold transform: median over kernels | {statistics.median(transform.values()):.1f} |")
    lines.append(f"| cold transform: max over kernels | {max(transform.values()):.1f} |")
    for name, ms in results["warm_start_ms"].items():
        steady = results["steady_call_ms"][name]
        lines.append(f"| warm start, first call: {name} | {ms:.1f} |")
        lines.append(f"| warm start, the same call again (steady; part of the first call's time): {name} | {steady:.1f} |")
    lines += ["", f"libcst imported on a warm start: {results['libcst_imported_when_warm']}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per warm-start figure")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    results = measure(args.runs)
    print(report(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
