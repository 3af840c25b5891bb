"""What XLA compiles for backend="jax" against the hand-written jax.jit(jax.vmap(f)) (issue 53):
per benchmark kernel, the optimized HLO's operations by kind, its top-level fusions (each one a
pass over memory), its while loops' carries, and (--time) the device compute of both, medians.

    python scripts/jax_hlo_ops.py [--kernels a,b] [--lanes 1e5] [--time] [--distinct] [--dump DIR]

Operation kinds: `f64!` float64 divide, sqrt, log, exp, pow, sin... (an emulated float64's costly
ones), `f64+` float64 add, subtract, multiply, `f64~` other float64 operations (abs, negate,
select, convert), then by the result's type (f32: the error terms of an emulated float64; pred:
the flags). `--distinct` turns XLA's fusion passes off, so that an operation XLA copies into
several fusions counts once (on the CPU; elsewhere the flag may be ignored). VECTORIZER_JAX_BOUNDS=tpu
models a TPU's emulated float64 on the CPU (the operations the TPU compiles, not its costs).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import time
from pathlib import Path

HEAVY = {"divide", "sqrt", "rsqrt", "log", "log-plus-one", "exponential", "exponential-minus-one", "power",
         "sine", "cosine", "tan", "atan2", "erf", "cbrt", "tanh"}
ARITH = {"add", "subtract", "multiply"}
SKIP = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "broadcast", "copy", "iota", "fusion",
        "reshape", "slice", "concatenate", "call", "while", "conditional"}
DISTINCT = "--xla_disable_hlo_passes=fusion,cpu-instruction-fusion,multi_output_fusion"


def counts(text: str) -> collections.Counter:
    """Operations of an HLO module's text by kind."""
    out: collections.Counter = collections.Counter()
    for line in text.splitlines():
        m = re.match(r"\s*(?:ROOT )?%?[\w.\-]+ = (\w+)(\[[^\]]*\])?[^ ]* (\w[\w\-]*)\(", line)
        if not m or m.group(3) in SKIP:
            continue
        dtype, op = m.group(1), m.group(3)
        out[dtype + ("!" if op in HEAVY else "+" if op in ARITH else "~") if dtype == "f64" else dtype] += 1
    return out


def shape(text: str) -> str:
    """The entry computation's top-level fusions, and each while loop's carry."""
    entry = text[text.find("\nENTRY"):]
    fusions = len(re.findall(r"= [^=]* fusion\(", entry))
    loops = [re.sub(r"\[\d+\]\{0\}", "[N]", m) for m in re.findall(r"while\.?\d* = \(([^)]*)\)", text)]
    return f"fusions {fusions}" + "".join(f"; while ({c})" for c in loops)


def line(c: collections.Counter) -> str:
    return " ".join(f"{k}:{v}" for k, v in sorted(c.items())) + f" all:{sum(c.values())}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default="poly_horner,softplus,black_scholes_call,haversine_km,drag_coefficient,"
                        "smoothstep,mandelbrot_escape,zeta_partial,simpson_gauss")
    parser.add_argument("--lanes", type=float, default=1e5)
    parser.add_argument("--time", action="store_true", help="device compute, medians of 5 alternating calls")
    parser.add_argument("--distinct", action="store_true", help="XLA's fusion passes off (count each op once)")
    parser.add_argument("--dump", type=Path, help="write each optimized HLO module here")
    args = parser.parse_args()
    if args.distinct:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + DISTINCT).strip()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_kernels
    import jax
    from bench_jax import kernel_of

    from vectorizer import vectorize
    from vectorizer.backends.jax.driver import x64

    n = int(args.lanes)
    wanted = args.kernels.split(",")
    print(f"# {jax.devices()[0].device_kind}, {n:,} lanes, bounds {os.environ.get('VECTORIZER_JAX_BOUNDS') or 'own'}")
    for k in bench_kernels.KERNELS:
        if k.name not in wanted:
            continue
        arrays = k.inputs(n, k.seed)
        vf = vectorize(k.func, backend="jax", exact=False, fallback="error")
        vf(*(a[:64] for a in arrays))
        kernel = kernel_of(vf)
        with x64():
            ours, hand = kernel.compiled(), jax.jit(jax.vmap(k.jax))
            on_device = [jax.device_put(a) for a in arrays]
            texts = {"hand": hand.lower(*on_device).compile().as_text(), "ours": ours.lower(*on_device).compile().as_text()}
            print(f"{k.name}")
            for who, text in texts.items():
                print(f"  {who:5} {line(counts(text))}\n        {shape(text)}")
                if args.dump:
                    args.dump.mkdir(parents=True, exist_ok=True)
                    (args.dump / f"{k.name}.{who}.hlo").write_text(text)
            if args.time:
                h, o = medians(hand, ours, on_device)
                print(f"  time  hand {h / n * 1e9:.3f} ns/lane, ours {o / n * 1e9:.3f} ns/lane: {o / h:.2f}x")


def medians(hand, ours, on_device: list) -> tuple[float, float]:
    """Seconds of a call of each, medians of 5 alternating calls after one warm-up each."""
    import jax
    import numpy as np

    def once(fn) -> float:
        start = time.perf_counter()
        jax.block_until_ready(fn(*on_device))
        return time.perf_counter() - start

    once(hand), once(ours)
    th, to = [], []
    for _ in range(5):
        th.append(once(hand))
        to.append(once(ours))
    return float(np.median(th)), float(np.median(to))

if __name__ == "__main__":
    main()
