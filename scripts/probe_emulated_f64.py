#!/usr/bin/env python
"""Record what a JAX platform's float64 computes, per operation, on inputs of every magnitude, for
scripts/emulated_f64.py to analyse on another machine (the TPU's float64 is emulated: its
precision and range are not IEEE binary64's, and the bounds backend="jax" keeps depend on both).

    python scripts/probe_emulated_f64.py OUT_DIR [--samples N] [--seed S]

Writes OUT_DIR/probe-<k>.npz: the device's results only (float64 and bool arrays, in files under
16 MiB); the inputs are regenerated from the seed by `inputs()`, which the analysis imports, so
both machines draw the same numbers (NumPy's Generator with PCG64 is stable across versions).
Every operation is computed the way the generated code writes it: a constant enters as a lane
value plus -0.0 (opaque to XLA), an operation's operands are traced arrays.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

UNARY = ("exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc")
BINARY = ("add", "sub", "mul", "div", "pow", "atan2", "hypot", "less", "equal")
DOMAINS = {"asin": (-1, 1), "acos": (-1, 1), "atanh": (-1, 1), "log": (0, None), "log2": (0, None),
           "log10": (0, None), "sqrt": (0, None), "acosh": (1, None), "log1p": (-1, None)}


def log_uniform(rng: np.random.Generator, n: int, lo_exp: float, hi_exp: float, signed: bool = True) -> np.ndarray:
    """n values whose binary exponents are uniform over [lo_exp, hi_exp], random mantissas."""
    x = np.ldexp(rng.uniform(1.0, 2.0, n), rng.integers(int(lo_exp), int(hi_exp) + 1, n))
    return x * rng.choice([-1.0, 1.0], n) if signed else x


def inputs(name: str, n: int, seed: int) -> list[np.ndarray]:
    """The operands of one operation: half log-uniform over every binary exponent (the range
    question), half typical (the precision question), as the analysis regenerates them."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    half = n // 2
    if name in BINARY:
        a = np.concatenate([log_uniform(rng, half, -1074, 1023), rng.uniform(-10, 10, n - half)])
        if name in ("less", "equal"):  # neighbours: the decision on the last bits
            steps = rng.integers(-4, 5, n)
            b = a + steps * np.spacing(a)
        elif name in ("add", "sub"):  # operands near each other in magnitude (cancellation) and far
            near = a * (1 + rng.uniform(-1, 1, n) * 2.0 ** -rng.integers(0, 40, n))
            b = np.where(rng.random(n) < 0.5, near, log_uniform(rng, n, -1074, 1023))
        else:
            b = np.concatenate([log_uniform(rng, half, -1074, 1023), rng.uniform(-10, 10, n - half)])
        if name == "pow":
            a = np.abs(a)
            b = np.concatenate([rng.uniform(-64, 64, half), rng.uniform(-4, 4, n - half)])
        return [a, b]
    lo, hi = DOMAINS.get(name, (None, None))
    wide = log_uniform(rng, half, -1074, 1023, signed=lo is None or lo < 0)
    typical = rng.uniform(-10 if lo is None else lo, 10 if hi is None else hi, n - half)
    x = np.concatenate([wide, typical])
    if lo is not None:
        x = np.where(x < lo, lo + np.abs(x) % 1.0, x)
    if hi is not None:
        x = np.where(x > hi, rng.uniform(lo, hi, n), x)
    if name == "log1p":
        x = np.where(x <= -1, rng.uniform(-1, 1, n), x)
    return [x]


def device_functions() -> dict:
    import jax.numpy as jnp
    from jax import lax
    from jax.scipy import special

    jax_name = {"asin": jnp.arcsin, "acos": jnp.arccos, "atan": jnp.arctan, "asinh": jnp.arcsinh,
                "acosh": jnp.arccosh, "atanh": jnp.arctanh, "erf": special.erf, "erfc": special.erfc,
                "pow": jnp.power, "atan2": jnp.arctan2, "add": lax.add, "sub": lax.sub, "mul": lax.mul,
                "div": lax.div, "less": lax.lt, "equal": lax.eq}
    return {name: jax_name.get(name) or getattr(jnp, name) for name in UNARY + BINARY}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--samples", type=int, default=1 << 17)
    parser.add_argument("--seed", type=int, default=53)
    args = parser.parse_args(argv)
    import jax
    import jax.numpy as jnp

    device = jax.devices()[0]
    print(f"# JAX {jax.__version__} on {device.platform} ({device.device_kind})", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, np.ndarray] = {}
    with jax.enable_x64(True):
        for name, fn in device_functions().items():
            operands = inputs(name, args.samples, args.seed)

            def traced(*xs, fn=fn):
                zero = -0.0 * (xs[0] == xs[0]).astype(jnp.float64)  # as the generated code's constants
                return fn(*(x + zero for x in xs))

            results[name] = np.asarray(jax.jit(traced)(*operands))
        x = inputs("entry", args.samples, args.seed)[0]
        results["entry"] = np.asarray(jax.jit(lambda x: x + -0.0 * (x == x).astype(jnp.float64))(x))
        results["identity"] = np.asarray(jax.jit(lambda x: x)(x))
        ints = np.random.default_rng([args.seed, 7]).integers(-(2 ** 62), 2 ** 62, args.samples) >> \
            np.random.default_rng([args.seed, 8]).integers(0, 62, args.samples)
        results["convert"] = np.asarray(jax.jit(lambda n: n.astype(jnp.float64))(ints))
    files, part, size = 0, {}, 0
    for name, values in results.items():
        part[name] = values
        size += values.nbytes
        if size > 12 << 20:
            np.savez(args.out / f"probe-{files}.npz", **part)
            files, part, size = files + 1, {}, 0
    if part:
        np.savez(args.out / f"probe-{files}.npz", **part)
    print(f"# wrote {files + (1 if part else 0)} files, {len(results)} operations, {args.samples} lanes each; "
          f"platform={device.platform} seed={args.seed} samples={args.samples}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
