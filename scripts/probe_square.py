"""How near a rounding midpoint the exact square x*x must be for the C library's pow(x, 2.0) to
differ from x * x (codegen/numba_helpers.py's _vz_square relies on glibc's being within ~0.012
ulp of the exact square before its rounding, for squares in [2**-100, 2**100)).

    python scripts/probe_square.py [--batches 30] [--exponents 50] [--seed 7]

Prints how many squares were checked, how many differ, and the largest midpoint distance (in
ulps of x * x) at which one differed.
"""

from __future__ import annotations

import argparse
import math

import numpy as np


def exact_error(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x * x and its exact rounding error (Dekker's product; exact away from over/underflow)."""
    p = x * x
    t = 134217729.0 * x
    hi = t - (t - x)
    lo = x - hi
    return p, ((hi * hi - p) + 2.0 * hi * lo) + lo * lo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=30, help="batches of 5,000,000 squares")
    ap.add_argument("--exponents", type=int, default=50, help="x in +-[2**-E, 2**E)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    checked = differ = 0
    worst = 0.0
    for _ in range(args.batches):
        x = rng.uniform(1.0, 2.0, 5_000_000) * np.exp2(rng.integers(-args.exponents, args.exponents, 5_000_000))
        p, e = exact_error(x)
        distance = np.abs(np.abs(e) / np.spacing(p) - 0.5)
        near = np.flatnonzero(distance < 1 / 16)  # up to 1/16 ulp: past where _vz_square calls pow
        checked += x.size
        for i in near.tolist():
            if math.pow(float(x[i]), 2.0) != float(p[i]):
                differ += 1
                worst = max(worst, float(distance[i]))
    print(f"{checked:,} squares, {differ:,} differ from pow(x, 2.0); "
          f"largest midpoint distance of one that differs: {worst:.4f} ulp")


if __name__ == "__main__":
    main()
