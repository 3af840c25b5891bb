#!/usr/bin/env python
"""The measurements of issue 50 that scripts/bench.py does not make, each in fresh processes.

    python scripts/bench_exact_default.py [--json PATH] [--parts chain,threads,first_call]

* chain       a clip-like select chain with array bounds (`if x < lo: return lo` / `elif x > hi:
              return hi` / `return x`) at 1e6: the default (its route), the NumPy route, and
              hand-written NumPy: np.clip, and the nested np.where that gives the scalar
              function's bits. np.clip is not that function: it differs on NaN bounds, on lo > hi
              and on the sign of a zero (checked here), so the NumPy route cannot fuse the chain
              into it; the cost model sends such functions to Numba's lanes.
* threads     per-element time at 1e6 with 1 and 2 threads (VECTORIZER_THREADS and
              NUMBA_NUM_THREADS) of the default route and the NumPy route, per kernel.
* first_call  per kernel, the first call (1,000 lanes) of the default configuration in a fresh
              process with a cold disk cache (transform + Numba compile) and in a fresh process
              with the warm cache (from after `import numpy` to the end of the first call:
              importing vectorizer and Numba, loading the compiled kernel), with the route taken.

Times are medians of interleaved samples; on a machine shared with other work they are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KERNELS_FOR_THREADS = ("poly_horner", "haversine_km", "black_scholes_call", "mandelbrot_escape", "zeta_partial",
                       "simpson_gauss", "kepler_solve", "softplus")

_CHAIN = '''
import json, statistics, sys, time
import numpy as np
sys.path.insert(0, {here!r})
from bench_exact_default import clamp3
from vectorizer import vectorize

n = 1_000_000
rng = np.random.default_rng(0)
x, lo = rng.uniform(-2, 2, n), rng.uniform(-1.5, 0.0, n)
hi = lo + rng.uniform(0.0, 2.0, n)
default, numpy_route = vectorize(clamp3), vectorize(clamp3, backend="numpy")
variants = {{
    "default": lambda: default(x, lo, hi),
    "numpy route": lambda: numpy_route(x, lo, hi),
    "hand np.where chain": lambda: np.where(x < lo, lo, np.where(x > hi, hi, x)),
    "hand np.clip": lambda: np.clip(x, lo, hi),
}}
want = np.array([clamp3(*lane) for lane in zip(x.tolist(), lo.tolist(), hi.tolist())])
same = {{k: bool(np.array_equal(v(), want)) for k, v in variants.items()}}
samples = {{k: [] for k in variants}}
for _ in range(15):
    for k, v in variants.items():
        t = time.perf_counter(); v(); samples[k].append(time.perf_counter() - t)
edge_x = np.array([0.5, np.nan, 0.5, -0.0, 0.0])
edge_lo = np.array([np.nan, 0.0, 2.0, 0.0, -0.0])
edge_hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0])
scalar = [clamp3(*lane) for lane in zip(edge_x.tolist(), edge_lo.tolist(), edge_hi.tolist())]
clip = np.clip(edge_x, edge_lo, edge_hi).tolist()
print(json.dumps({{"route": str(default.backend), "why": default.backend.why, "same_bits": same,
                  "ns_per_element": {{k: statistics.median(s) / n * 1e9 for k, s in samples.items()}},
                  "edges": {{"inputs": [edge_x.tolist(), edge_lo.tolist(), edge_hi.tolist()],
                             "scalar": [repr(v) for v in scalar], "np.clip": [repr(v) for v in clip]}}}}))
'''

_THREADS = '''
import json, sys, time
import numpy as np
sys.path.insert(0, {here!r})
import bench_kernels as bk
from vectorizer import vectorize

kernel = bk.by_name()[{name!r}]
args = kernel.inputs(1_000_000, 1)
out = {{}}
for label, vf in (("default", vectorize(kernel.func)), ("numpy route", vectorize(kernel.func, backend="numpy"))):
    vf(*args)
    samples = []
    for _ in range(7):
        t = time.perf_counter(); vf(*args); samples.append(time.perf_counter() - t)
    out[label] = sorted(samples)[3] / 1e6 * 1e9
    out[label + " route"] = str(vf.backend)
print(json.dumps(out))
'''

_FIRST = '''
import json, sys, time
import numpy as np
sys.path.insert(0, {here!r})
import bench_kernels as bk
args = bk.by_name()[{name!r}].inputs(1000, 1)
t0 = time.perf_counter()
from vectorizer import vectorize
vf = vectorize(bk.by_name()[{name!r}].func)
vf(*args)
t1 = time.perf_counter()
vf(*args)
t2 = time.perf_counter()
print(json.dumps({{"first_s": t1 - t0, "steady_s": t2 - t1, "route": str(vf.backend)}}))
'''


def clamp3(x: float, lo: float, hi: float) -> float:
    if x < lo:
        return lo
    elif x > hi:
        return hi
    return x


def _run(code: str, env: dict[str, str] | None = None) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                               **(env or {})})
    if done.returncode:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def chain(cache: str) -> dict:
    return _run(textwrap.dedent(_CHAIN.format(here=str(HERE))), {"VECTORIZER_CACHE_DIR": cache})


def threads(cache: str) -> dict:
    out = {}
    for name in KERNELS_FOR_THREADS:
        out[name] = {}
        for count in (1, 2):
            env = {"VECTORIZER_CACHE_DIR": cache, "VECTORIZER_THREADS": str(count), "NUMBA_NUM_THREADS": str(count)}
            out[name][count] = _run(textwrap.dedent(_THREADS.format(here=str(HERE), name=name)), env)
    return out


def first_call() -> dict:
    sys.path.insert(0, str(HERE))
    import bench_kernels as bk

    out = {}
    for kernel in bk.KERNELS:
        with tempfile.TemporaryDirectory(prefix="vz-first-call-") as cache:
            env = {"VECTORIZER_CACHE_DIR": cache}
            code = textwrap.dedent(_FIRST.format(here=str(HERE), name=kernel.name))
            cold, warm = _run(code, env), _run(code, env)
        out[kernel.name] = {"cold_s": cold["first_s"], "warm_s": warm["first_s"], "steady_s": warm["steady_s"],
                            "route": cold["route"]}
    return out


def markdown(doc: dict) -> str:
    lines: list[str] = []
    if "chain" in doc:
        c = doc["chain"]
        lines += [f"Select chain with array bounds at 1e6 (route {c['route']}: {c['why']}); ns a lane:", "",
                  "| variant | ns/element | the scalar function's bits |", "| :-- | --: | :-- |"]
        lines += [f"| {k} | {v:.2f} | {'yes' if c['same_bits'][k] else 'no'} |" for k, v in c["ns_per_element"].items()]
        e = c["edges"]
        lines += ["", f"np.clip against the scalar function on (x, lo, hi) = {list(zip(*e['inputs']))}: "
                  f"scalar {e['scalar']}, np.clip {e['np.clip']}.", ""]
    if "threads" in doc:
        lines += ["Per-element time at 1e6 with 1 and 2 threads (ns):", "",
                  "| kernel | default, 1 | default, 2 | ×speed-up | NumPy route, 1 | NumPy route, 2 | ×speed-up |",
                  "| :-- | --: | --: | --: | --: | --: | --: |"]
        for name, by in doc["threads"].items():
            d1, d2, n1, n2 = by["1"]["default"], by["2"]["default"], by["1"]["numpy route"], by["2"]["numpy route"]
            lines.append(f"| {name} ({by['1']['default route']}) | {d1:.3g} | {d2:.3g} | {d1 / d2:.2f} | {n1:.3g} | "
                         f"{n2:.3g} | {n1 / n2:.2f} |")
        lines.append("")
    if "first_call" in doc:
        lines += ["First call of the default configuration (1,000 lanes; s): cold cache (transform and compile), "
                  "warm cache (import vectorizer and Numba, load):", "",
                  "| kernel | route | cold | warm | steady call |", "| :-- | :-- | --: | --: | --: |"]
        lines += [f"| {k} | {v['route']} | {v['cold_s']:.2f} | {v['warm_s']:.3f} | {v['steady_s'] * 1e3:.2f} ms |"
                  for k, v in doc["first_call"].items()]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--parts", default="chain,threads,first_call")
    args = parser.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",")}
    doc: dict = {}
    with tempfile.TemporaryDirectory(prefix="vz-bench-") as cache:
        if "chain" in parts:
            doc["chain"] = chain(cache)
        if "threads" in parts:
            doc["threads"] = json.loads(json.dumps(threads(cache)))  # int keys as JSON's strings
    if "first_call" in parts:
        doc["first_call"] = first_call()
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
