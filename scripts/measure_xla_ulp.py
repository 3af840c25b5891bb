#!/usr/bin/env python
"""Measure how far XLA's float64 math is from CPython's `math`, per function, on this machine's
JAX backend (cpu, tpu, gpu), and write the table backend="jax" reads.

    python scripts/measure_xla_ulp.py [--samples N] [--platform cpu|tpu|gpu] [--write]

Needs only NumPy and JAX (x64 is turned on inside a context, not globally). For each function,
inputs are typical (uniform over its usual range) and hostile (special values, every magnitude
from 1e-300 to 1e300 of both signs, domain edges, overflow thresholds, multiples of pi/2); each is
computed once by XLA (`jax.jit` over an array) and once by CPython's `math` per element. Lanes
where CPython raises are skipped (the generated code flags them before the call), and so are
subnormal inputs (XLA reads them as zero; the generated code flags lanes whose inputs are).

The unit is the one the generated code's error bounds use (backends/jax/runtime.py): a result r
of XLA is within `ulps * 2**-52 * |r| + 2**-1021` of CPython's (the absolute term covers XLA's
flush of subnormal results to zero). For each function the table gives the least `ulps` that
holds on every sample, per band of |argument| (sin, cos, tan: their range reduction loses
accuracy for large arguments, so a band's bound holds only inside it), and `inf` where a sample
had another class (NaN or inf against a finite value) that no bound covers.

It also reports the arithmetic facts the bounds model: whether XLA contracts `a * b + c` into a
fused multiply-add (one rounding, not CPython's two) and whether it flushes subnormal inputs and
results to zero. `--write` merges this platform's table into vectorizer/backends/jax/xla_bounds.json.
"""

from __future__ import annotations

import argparse
import json
import math
import platform as host
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "vectorizer" / "backends" / "jax" / "xla_bounds.json"
DOC_TABLE = ROOT / "docs" / "runs" / "xla-bounds.md"  # docs/jax.md includes it
FLUSH = 2.0 ** -1021  # the absolute term: a subnormal result may be flushed to zero
UNIT = 2.0 ** -52
TRIG_BANDS = (1e3, 1e6, 1e9, 1e15, math.inf)
SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 2.2250738585072014e-308, -2.2250738585072014e-308,
            1e-300, -1e-300, 1e300, -1e300, 1.7976931348622157e308, -1.7976931348622157e308,
            math.inf, -math.inf, math.nan, math.pi, -math.pi, math.pi / 2, math.e]


def _jnp():
    import jax.numpy as jnp
    from jax import lax
    from jax.scipy import special

    return jnp, lax, special


def functions() -> dict[str, tuple]:
    """name -> (arity, XLA function, CPython function, typical ranges, edges)."""
    jnp, lax, special = _jnp()
    one = 1.0 - 2.0 ** -53
    return {
        "exp": (1, jnp.exp, math.exp, [(-50, 50), (-745, 709.7)], [709.78, -708.4, -745.1, 1e-10]),
        "expm1": (1, jnp.expm1, math.expm1, [(-1, 1), (-50, 50)], [709.78, 1e-10, -1e-10, -40]),
        "exp2": (1, jnp.exp2, lambda x: 2.0 ** x, [(-50, 50), (-1074, 1023)], [1023.99, -1022.5, 0.5]),
        "log": (1, jnp.log, math.log, [(1e-3, 1e3), (0, 1e300)], [one, 1 + 2 ** -52, 5e-324]),
        "log1p": (1, jnp.log1p, math.log1p, [(-0.5, 1), (-1, 1e10)], [-one, 1e-300, 2 ** -54]),
        "log2": (1, jnp.log2, math.log2, [(1e-3, 1e3), (0, 1e300)], [one, 1 + 2 ** -52, 1024.0]),
        "log10": (1, jnp.log10, math.log10, [(1e-3, 1e3), (0, 1e300)], [one, 1000.0, 1e-5]),
        "sqrt": (1, jnp.sqrt, math.sqrt, [(0, 1e3), (0, 1e300)], [5e-324, 2.0, 1e-310]),
        "cbrt": (1, jnp.cbrt, math.cbrt, [(-1e3, 1e3), (-1e300, 1e300)], [27.0, -8.0, 1e-310]),
        "sin": (1, jnp.sin, math.sin, [(-10, 10), (-1e5, 1e5)], _trig_edges()),
        "cos": (1, jnp.cos, math.cos, [(-10, 10), (-1e5, 1e5)], _trig_edges()),
        "tan": (1, jnp.tan, math.tan, [(-1.5, 1.5), (-1e5, 1e5)], _trig_edges()),
        "asin": (1, jnp.arcsin, math.asin, [(-1, 1)], [one, -one, 1e-300, 0.5]),
        "acos": (1, jnp.arccos, math.acos, [(-1, 1)], [one, -one, 1e-300, 0.5]),
        "atan": (1, jnp.arctan, math.atan, [(-10, 10), (-1e10, 1e10)], [1e300, 1e-300]),
        "sinh": (1, jnp.sinh, math.sinh, [(-5, 5), (-710, 710)], [710.47, -710.47, 1e-10]),
        "cosh": (1, jnp.cosh, math.cosh, [(-5, 5), (-710, 710)], [710.47, -710.47, 1e-10]),
        "tanh": (1, jnp.tanh, math.tanh, [(-5, 5), (-30, 30)], [1e-10, 19.06, 0.55]),
        "asinh": (1, jnp.arcsinh, math.asinh, [(-10, 10), (-1e300, 1e300)], [1e-10, 1e300]),
        "acosh": (1, jnp.arccosh, math.acosh, [(1, 10), (1, 1e300)], [1.0, 1 + 2 ** -52, 1e300]),
        "atanh": (1, jnp.arctanh, math.atanh, [(-1, 1)], [one, -one, 1e-10, 0.5]),
        "erf": (1, special.erf, math.erf, [(-3, 3), (-10, 10)], [1e-300, 0.84375, 6.0]),
        "erfc": (1, special.erfc, math.erfc, [(-3, 3), (-6, 27)], [26.5, 27.2, 0.84375, 1e-300]),
        "pow": (2, jnp.power, math.pow, [((0, 100), (-10, 10)), ((-10, 10), (-20, 20))], []),
        "atan2": (2, jnp.arctan2, math.atan2, [((-10, 10), (-10, 10))], []),
        "hypot": (2, jnp.hypot, math.hypot, [((-10, 10), (-10, 10)), ((-1e300, 1e300), (-1e300, 1e300))], []),
        # The operations IEEE 754 rounds correctly: 0 unless the platform does not.
        "add": (2, lax.add, lambda a, b: a + b, [((-10, 10), (-10, 10))], []),
        "sub": (2, lax.sub, lambda a, b: a - b, [((-10, 10), (-10, 10))], []),
        "mul": (2, lax.mul, lambda a, b: a * b, [((-10, 10), (-10, 10))], []),
        "div": (2, lax.div, lambda a, b: a / b, [((-10, 10), (-10, 10))], []),
        # int64 -> float64 (round to nearest even in CPython's float(n)), on ints beyond 2**53 too
        "convert": (1, lambda n: n.astype(jnp.float64), float, [(-1e18, 1e18)], [2.0 ** 53 + 1, 2.0 ** 62 + 513]),
    }


def _trig_edges() -> list[float]:
    return [k * math.pi / 2 for k in range(-8, 9)] + [1e10, 1e15, 1e22, 1e300, 1e-300, 355.0, 1e5 * math.pi]


def inputs(arity: int, ranges: list, edges: list[float], n: int, rng: np.random.Generator
           ) -> tuple[list[np.ndarray], np.ndarray]:
    """(operands, which lanes are typical), n typical lanes and about n hostile ones."""
    typical = []
    for k in range(arity):
        parts = []
        for r in ranges:
            lo, hi = r if arity == 1 else r[k]
            parts.append(rng.uniform(lo, hi, n // len(ranges)))
        typical.append(np.concatenate(parts))
    magnitudes = 10.0 ** rng.uniform(-300, 300, n) * rng.choice([-1.0, 1.0], n)
    near_ints = np.round(rng.uniform(-20, 20, n // 4)) + rng.choice([0.0, 2.0 ** -40, -(2.0 ** -40)], n // 4)
    specials = np.array(SPECIALS + edges + [np.nextafter(e, np.inf) for e in edges] + [np.nextafter(e, -np.inf) for e in edges])
    hostile_one = np.concatenate([specials, magnitudes, near_ints])
    hostile = [rng.permutation(hostile_one) if k else hostile_one for k in range(arity)]
    if arity == 2:  # pairs that matter for pow: small int and half exponents, bases near 1
        m = len(hostile_one)
        hostile[1] = np.where(rng.random(m) < 0.5, hostile[1], rng.choice([2.0, 3.0, 0.5, -1.0, -2.0, 0.0, 1.0], m))
        hostile[0] = np.where(rng.random(m) < 0.2, 1.0 + rng.uniform(-1e-6, 1e-6, m), hostile[0])
    operands = [np.concatenate([t, h]) for t, h in zip(typical, hostile)]
    return operands, np.arange(len(operands[0])) < len(typical[0])


def reference(fn, operands: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """CPython's values, and which lanes CPython computes (does not raise)."""
    out = np.empty(len(operands[0]))
    ok = np.ones(len(operands[0]), dtype=bool)
    for i, args in enumerate(zip(*[o.tolist() for o in operands])):  # Python numbers, as a lane gets them
        try:
            out[i] = fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            ok[i] = False
            out[i] = np.nan
    return out, ok


def needed_ulps(xla: np.ndarray, py: np.ndarray) -> np.ndarray:
    """Per lane, the least `ulps` with |xla - py| <= ulps * 2**-52 * |xla| + FLUSH (inf where none does)."""
    with np.errstate(all="ignore"):
        same_class = (np.isnan(xla) == np.isnan(py)) & (np.isinf(xla) == np.isinf(py))
        same_inf = np.isinf(xla) & (xla == py)
        both_nan = np.isnan(xla) & np.isnan(py)
        diff = np.abs(xla - py) - FLUSH
        need = np.where(diff <= 0, 0.0, diff / (UNIT * np.abs(xla)))
        need = np.where(both_nan | same_inf, 0.0, need)
        return np.where(same_class, np.nan_to_num(need, nan=np.inf), np.inf)


def measure(n: int, seed: int) -> dict:
    import jax

    rng = np.random.default_rng(seed)
    table: dict[str, dict] = {}
    with jax.enable_x64(True):
        for name, (arity, xla_fn, py_fn, ranges, edges) in functions().items():
            start = time.perf_counter()
            operands, typical = inputs(arity, ranges, edges, n, rng)
            keep = ~np.any([(o != 0) & (np.abs(o) < 2.2250738585072014e-308) for o in operands], axis=0)
            operands, typical = [o[keep] for o in operands], typical[keep]
            if name == "convert":  # int64 operands
                operands = [np.clip(np.nan_to_num(o), -9.2e18, 9.2e18).astype(np.int64) for o in operands]
            xla = np.asarray(jax.jit(xla_fn)(*operands))
            py, ok = reference(py_fn, operands)
            need = needed_ulps(xla, py)
            first = np.abs(operands[0])
            bands = TRIG_BANDS if name in ("sin", "cos", "tan") else (math.inf,)
            entry = []
            for limit in bands:
                inside = ok & (first <= limit)
                entry.append([limit, float(need[inside].max()) if inside.any() else 0.0])
            worst = int(np.argmax(np.where(ok, need, -1)))
            table[name] = {
                "bands": entry,
                "typical": float(need[ok & typical].max()),
                "lanes": int(ok.sum()),
                "worst_input": [float(o[worst]) for o in operands],
                "worst": [float(xla[worst]), float(py[worst])],
                "seconds": round(time.perf_counter() - start, 2),
            }
            print(f"{name:6} typical {table[name]['typical']:10.3g}  bands "
                  + "  ".join(f"<={b[0]:.0e}: {b[1]:.3g}" for b in entry), flush=True)
    return table


def facts() -> dict[str, object]:
    """Arithmetic facts: FMA contraction (and whether the generated code's select blocks it),
    division by a constant, subnormal flushing. The fractions count results that differ from
    NumPy's IEEE arithmetic (CPython's)."""
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(1)
    a, b, c = rng.standard_normal((3, 100_000))
    x = rng.uniform(-1e3, 1e3, 100_000)
    with jax.enable_x64(True):
        fused = np.asarray(jax.jit(lambda a, b, c: a * b + c)(a, b, c))
        blocked = np.asarray(jax.jit(lambda a, b, c: jnp.where(jnp.isnan(a), a, a * b) + c)(a, b, c))
        # the select the runtime writes for a product of two lane values (approx.py, exact_product)
        flush_select = np.asarray(jax.jit(lambda a, b, c: jnp.where((a * b == 0) & (a != 0) & (b != 0), 0.0, a * b)
                                          - c)(a, b, c))
        divided = np.asarray(jax.jit(lambda x: (x / 3.0, x / 10.0, x / 0.1))(x))
        # the runtime's opaque constants: c + (-0.0 * (x == x)), which XLA cannot fold (approx.py)
        zero = lambda x: -0.0 * (x == x).astype(jnp.float64)  # noqa: E731
        opaque = np.asarray(jax.jit(lambda x: (x / (3.0 + zero(x)), (x + (1e308 + zero(x))) - (1e308 + zero(x)),
                                                x + (0.0 + zero(x))))(x))
        tiny = np.array([1e-310, 5e-324])
        flushed_in = np.asarray(jax.jit(lambda x: x * 1e300)(tiny))
        flushed_out = np.asarray(jax.jit(lambda x: x * 1e-10)(np.array([1e-300])))
    return {
        "fma_contraction": float(np.mean(fused != a * b + c)),
        "fma_blocked": float(max(np.mean(blocked != a * b + c), np.mean(flush_select != a * b - c))),
        "division_by_constant": float(np.mean(np.stack(divided) != np.stack([x / 3.0, x / 10.0, x / 0.1]))),
        "opaque_constants": float(np.mean(opaque != np.stack([x / 3.0, (x + 1e308) - 1e308, x + 0.0]))),
        "flushes_subnormal_inputs": bool(np.any(flushed_in == 0.0)),
        "flushes_subnormal_results": bool(flushed_out[0] == 0.0),
    }


def _ulps(bands: list, absolute: list | None = None) -> str:
    if absolute is not None:  # an emulated float64 (scripts/emulated_f64.py): inside its range
        rel = [u for _, u in bands if math.isfinite(u)]
        ab = [u for _, u in absolute if math.isfinite(u)]
        last = max((limit for (limit, u), (_, a) in zip(bands, absolute) if math.isfinite(u) and math.isfinite(a)),
                   default=0.0)
        return f"{max(rel, default=math.inf):.3g} (abs {max(ab, default=0.0):.3g}), args to 2^{math.log2(last):.0f}"
    worst = max(u for _, u in bands)
    if len(bands) == 1 or all(u == worst for _, u in bands):
        return f"{worst:.3g}"
    return "; ".join(f"|x| <= {limit:.0e}: {u:.3g}" for limit, u in bands)


def markdown(table: dict) -> str:
    """The measured tables as Markdown: one column per platform (the largest error measured, in
    units of 2**-52 |XLA's result|), then each platform's arithmetic facts."""
    platforms = sorted(table)
    names = list(dict.fromkeys(n for p in platforms for n in table[p]["functions"]))
    lines = ["<!-- written by scripts/measure_xla_ulp.py --write: do not edit -->", "",
             "| function | " + " | ".join(f"{p} ({table[p]['device']}, JAX {table[p]['jax']}, {table[p]['measured']})"
                                          for p in platforms) + " |",
             "| :-- |" + " --: |" * len(platforms)]
    for name in names:
        cells = [_ulps(table[p]["functions"][name]["bands"], table[p]["functions"][name].get("absolute"))
                 if name in table[p]["functions"] else "–" for p in platforms]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "| fact | " + " | ".join(platforms) + " |", "| :-- |" + " --: |" * len(platforms)]
    for fact in dict.fromkeys(f for p in platforms for f in table[p]["facts"]):
        lines.append(f"| {fact} | " + " | ".join(str(table[p]["facts"].get(fact, "–")) for p in platforms) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000, help="typical lanes per function (as many hostile)")
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--platform", help="JAX platform to measure (default: JAX's default backend)")
    parser.add_argument("--write", action="store_true", help=f"merge the table into {TABLE}")
    args = parser.parse_args(argv)
    import jax

    if args.platform:
        jax.config.update("jax_platforms", args.platform)
    device = jax.devices()[0]
    platform = device.platform
    print(f"# JAX {jax.__version__} on {platform} ({device.device_kind}), Python {host.python_version()}")
    found = facts()
    print("# " + ", ".join(f"{k}={v}" for k, v in found.items()))
    table = measure(args.samples, args.seed)
    record = {"jax": jax.__version__, "device": device.device_kind, "samples": args.samples,
              "measured": time.strftime("%Y-%m-%d"), "facts": found, "functions": table}
    if args.write:
        old = json.loads(TABLE.read_text()) if TABLE.exists() else {}
        old[platform] = record
        TABLE.write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
        DOC_TABLE.write_text(markdown(old))
        print(f"wrote {TABLE} [{platform}] and {DOC_TABLE}")
    else:
        print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
