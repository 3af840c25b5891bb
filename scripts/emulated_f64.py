#!/usr/bin/env python
"""Bounds of an emulated float64 (a TPU's), from what scripts/probe_emulated_f64.py recorded on
the device, against CPython's values computed here; merged into the platform's record of
vectorizer/backends/jax/xla_bounds.json.

    python scripts/emulated_f64.py PROBE_DIR --platform tpu [--write]

A TPU's float64 is a pair of float32 (XLA's emulation): about 49 bits of precision, float32's
exponent range, and even a value copied to the device and back is rounded (8 units of 2**-52 on
a TPU v5e). So no device value is CPython's, and every bound has two parts:

* the range: the binary exponents where a value keeps its precision on the device (`range`:
  [low, high), measured on values copied to the device: the contiguous exponents where every
  sample came back within the entry bound, shrunk by SHRINK exponents each side); a lane whose
  argument, constant or intermediate result leaves it is re-run on the host;
* inside the range, per operation, the largest error measured on lanes whose operands and
  CPython's result lie in the range, against CPython's value on the device's copies of the
  operands (`pair`, checked against the probe's copies): add and sub in units of 2**-52 (|a| + |b|) (the emulation's
  sum is accurate to its operands, not to a cancelled result), mul and div in units of
  2**-52 |result|, the functions in units of
  2**-52 |result| plus an absolute term in units of 2**-52 (`absolute`: a function near a zero
  of its own, log near 1, is accurate to a fraction of its argument's unit, not of its result),
  per band of the largest |argument| (`bands`: [limit, ulps]; a band without samples, and
  arguments beyond the last limit, have no bound: such lanes are re-run).

The entry error (`entry`) and the int64 -> float64 conversion (`convert`) are facts too: the
generated code treats every float on the device as at least that far from CPython's at a decision.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_emulated_f64 import BINARY, UNARY, inputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "vectorizer" / "backends" / "jax" / "xla_bounds.json"
UNIT = 2.0 ** -52
SHRINK = 4  # binary exponents given up at each end of the measured range
ENTRY_LIMIT = 64.0  # a sample further than this (units of 2**-52 |x|) from its value is out of range
BAND_EXPONENTS = (-80, -60, -40, -20, -10, 0, 10, 20, 40, 60, 80, 100)
PYTHON = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "pow": math.pow, "atan2": math.atan2, "hypot": math.hypot,
          "exp2": lambda x: 2.0 ** x, "less": lambda a, b: a < b, "equal": lambda a, b: a == b}


def load(folder: Path) -> dict[str, np.ndarray]:
    results: dict[str, np.ndarray] = {}
    for f in sorted(folder.glob("probe-*.npz")):
        results.update(dict(np.load(f)))
    return results


def reference(name: str, operands: list[np.ndarray]) -> np.ndarray:
    fn = PYTHON.get(name) or getattr(math, name)
    out = np.empty(len(operands[0]))
    for i, args in enumerate(zip(*[o.tolist() for o in operands])):
        try:
            out[i] = fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError):
            out[i] = np.nan
    return out


def pair(x: np.ndarray) -> np.ndarray:
    """The device's copy of x: the nearest float32 and the nearest float32 to what is left (the
    identity probe's results are exactly this inside the range)."""
    with np.errstate(all="ignore"):
        high = x.astype(np.float32).astype(np.float64)
        return high + (x - high).astype(np.float32).astype(np.float64)


def exponents(v: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.where(v == 0, 0, np.frexp(v)[1] - 1)


def measure_range(x: np.ndarray, y: np.ndarray) -> tuple[int, int, float]:
    """(low, high, entry ulps): exponents [low, high) where every copied sample stays close."""
    with np.errstate(all="ignore"):
        need = np.where(y == x, 0.0, np.abs(y - x) / (UNIT * np.abs(x)))
    e = exponents(x)
    good = {k: bool(np.all(need[e == k] <= ENTRY_LIMIT)) for k in np.unique(e[x != 0]).tolist()}
    low = high = 0
    while good.get(low - 1, False):
        low -= 1
    while good.get(high, False):
        high += 1
    low, high = low + SHRINK, high - SHRINK
    inside = (x != 0) & (e >= low) & (e < high)
    return low, high, float(need[inside].max())


def within(v: np.ndarray, low: int, high: int) -> np.ndarray:
    e = exponents(v)
    return (v == 0) | ((e >= low) & (e < high) & np.isfinite(v))


def measure_op(name: str, operands: list[np.ndarray], device: np.ndarray, low: int, high: int) -> dict:
    """The operation's own error: against CPython's value on the device's copies of the operands
    (the generated code carries the copies' distance from the lane's numbers as their error)."""
    operands = [pair(o) for o in operands]
    want = reference(name, operands)
    ok = ~np.isnan(want) & within(want, low, high)
    for o in operands:
        ok &= within(o, low, high)
    if name == "atan2":  # the emulation loses a zero's sign, which picks the quadrant: such lanes are re-run
        ok &= (operands[0] != 0) & (operands[1] != 0)
    if name == "div":  # the emulation divides by multiplying with 1 / b, which must be in range too
        ok &= (operands[1] != 0) & within(1.0 / np.where(operands[1] == 0, 1.0, operands[1]), low, high)
    largest = np.max([np.abs(o) for o in operands], axis=0)
    with np.errstate(all="ignore"):
        diff = np.where(device == want, 0.0, np.abs(device - want))
        diff = np.where(np.isnan(diff), np.inf, diff)
        if name in ("add", "sub", "mul", "div"):  # IEEE's operations: relative, wherever in the range
            scale = np.abs(operands[0]) + np.abs(operands[1]) if name in ("add", "sub") else np.abs(want)
            rel, absolute = np.where(diff == 0, 0.0, diff / (UNIT * scale)), np.zeros_like(diff)
        else:
            big = np.abs(want) >= 1.0  # relative above 1, absolute below
            rel = np.where(big, diff / (UNIT * np.abs(want)), 0.0)
            absolute = np.where(big, 0.0, diff / UNIT)
    bands = []
    lower = -math.inf
    for k in BAND_EXPONENTS + (high,):
        limit = 2.0 ** k
        inside = ok & (largest > lower) & (largest <= limit)
        if inside.any():
            bands.append([limit, float(rel[inside].max()), float(absolute[inside].max())])
        else:
            bands.append([limit, math.inf, math.inf])
        lower = limit
    return {"bands": [[b[0], b[1]] for b in bands], "absolute": [[b[0], b[2]] for b in bands],
            "lanes": int(ok.sum())}


def analyse(folder: Path, seed: int) -> dict:
    results = load(folder)
    n = len(results["add"])
    x = inputs("entry", n, seed)[0]
    if np.array_equal(results["identity"], x, equal_nan=True):
        raise SystemExit("this platform's float64 keeps every value copied to it: IEEE's, not emulated; nothing to write")
    low, high, entry = measure_range(x, results["entry"])
    inside = within(x, low, high)
    if not np.array_equal(results["identity"][inside], pair(x)[inside]):
        raise SystemExit("the device's copies are not pair(x) inside the range: the model does not hold here")
    print(f"range: exponents [{low}, {high}), entry {entry:.3g} ulps")
    functions = {}
    for name in BINARY + UNARY:
        if name in ("less", "equal"):
            continue
        start = time.perf_counter()
        functions[name] = measure_op(name, inputs(name, n, seed), results[name].astype(np.float64), low, high)
        shown = "  ".join(f"<=2^{math.log2(b[0]):.0f}: {b[1]:.3g}/{a[1]:.3g}"
                          for b, a in zip(functions[name]["bands"], functions[name]["absolute"]) if math.isfinite(b[1]))
        print(f"{name:6} {functions[name]['lanes']:6} lanes  {shown}  ({time.perf_counter() - start:.1f} s)")
    ints = np.random.default_rng([seed, 7]).integers(-(2 ** 62), 2 ** 62, n) >> \
        np.random.default_rng([seed, 8]).integers(0, 62, n)
    want = np.array([float(i) for i in ints.tolist()])
    with np.errstate(all="ignore"):
        convert = float(np.max(np.where(results["convert"] == want, 0.0,
                                        np.abs(results["convert"] - want) / (UNIT * np.abs(want)))))
    exact_below = 2 ** 62
    for bits in range(24, 63):
        small = np.abs(ints) < 2 ** bits
        if not np.all(results["convert"][small] == want[small]):
            exact_below = 2 ** (bits - 1)
            break
    functions["convert"] = {"bands": [[math.inf, convert]], "lanes": n}
    return {"functions": functions, "range": [low, high], "entry": entry, "convert_exact_below": exact_below}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probe", type=Path)
    parser.add_argument("--platform", default="tpu")
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    found = analyse(args.probe, args.seed)
    if args.write:
        table = json.loads(TABLE.read_text())
        record = table[args.platform]
        record["functions"].update(found["functions"])
        record["facts"].update({"emulated": True, "range": found["range"], "entry": found["entry"],
                                "convert_exact_below": found["convert_exact_below"]})
        record["emulated_measured"] = time.strftime("%Y-%m-%d")
        TABLE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
        from measure_xla_ulp import DOC_TABLE, markdown

        DOC_TABLE.write_text(markdown(table))
        print(f"wrote {TABLE} [{args.platform}] and {DOC_TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
