"""Derive the coefficient tables of vectorizer/runtime/special.py (NumPy erf/erfc) and measure their error.

    python scripts/derive_erf.py            # print the tables (paste them into special.py)
    python scripts/derive_erf.py --check    # the ulp error of special.py against math.erf/erfc

The approximations (mpmath at 40 digits, Chebyshev fits via mpmath.chebyfit):

* |x| < 0.5: erf(x) = x * P(x*x), P of degree 10 fitted to erf(sqrt(z))/sqrt(z) on z in [0, 0.25];
* 0.5 <= |x| < 32: erfc(|x|) = exp(-x*x) * erfcx(|x|), erfcx(x) = exp(x*x) * erfc(x) fitted piecewise:
  each binary octave [2**e, 2**(e+1)) is cut into 8 equal parts, and on a part [a, a + w) the fit is
  a polynomial of degree 10 in u = x - a (exact in floating point: a <= x < 2a).

The index of a part is read from the bits of x (its exponent and the top three mantissa bits), so
the NumPy code needs no search. More, narrower parts allow a lower degree: each degree is one
gather of a coefficient per lane and one multiply-add, the bulk of erfc's time (4 parts of degree
13: 28.7 ns a lane at 1e5 on AVX-512, 32.0 on AVX2; 8 of degree 10: 25.1 and 28.3; 16 of degree
8 was 22.4 but reached 5 ulp, the bound). Fitting needs mpmath (a dependency of sympy; not of vectorizer).
"""

from __future__ import annotations

import argparse
import math
import sys

ERF_DEGREE = 10
ERFCX_DEGREE = 10
PARTS_BITS = 3  # 8 parts per octave
OCTAVES = (-1, 0, 1, 2, 3, 4)  # [0.5, 1), [1, 2), ... [16, 32)


def fits() -> tuple[list[float], list[list[float]], float]:
    import mpmath as mp

    mp.mp.dps = 40

    def erf_over_x(z):
        return mp.mpf(1) * 2 / mp.sqrt(mp.pi) if z == 0 else mp.erf(mp.sqrt(z)) / mp.sqrt(z)

    coeffs, err = mp.chebyfit(erf_over_x, [0, mp.mpf(1) / 4], ERF_DEGREE + 1, error=True)
    erf_poly = [float(c) for c in reversed(coeffs)]  # lowest degree first
    worst = float(err / erf_over_x(mp.mpf(1) / 4))
    parts = []
    for e in OCTAVES:
        width = mp.mpf(2) ** e / 2**PARTS_BITS
        for j in range(2**PARTS_BITS):
            a = mp.mpf(2) ** e + j * width
            c, err = mp.chebyfit(lambda u, a=a: mp.exp((a + u) ** 2) * mp.erfc(a + u), [0, width], ERFCX_DEGREE + 1,
                                 error=True)
            parts.append([float(v) for v in reversed(c)])
            worst = max(worst, float(err / (mp.exp((a + width) ** 2) * mp.erfc(a + width))))
    return erf_poly, parts, worst


def print_tables() -> None:
    erf_poly, parts, worst = fits()
    print(f"# worst relative error of the fits: {worst:.1e}")
    print("_VZ_ERF_SMALL = (" + ", ".join(repr(c) for c in erf_poly) + ")")
    print("_VZ_ERFCX = np.array([")
    for row in zip(*parts):  # row j: the coefficients of u**j, one column a part
        items = [repr(c) for c in row]
        lines = [", ".join(items[k:k + 4]) for k in range(0, len(items), 4)]
        print("    [" + ",\n     ".join(lines) + "],")
    print("])")
    print(f"_VZ_PART_SHIFT = {52 - PARTS_BITS}")


def ulps(a: float, b: float) -> int:
    import struct

    if a == b or (math.isnan(a) and math.isnan(b)):
        return 0
    ia, ib = (struct.unpack("<q", struct.pack("<d", v))[0] for v in (a, b))
    ia, ib = (i if i >= 0 else -(2**63) - i for i in (ia, ib))
    return abs(ia - ib)


def check(count: int) -> int:
    import numpy as np

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    from vectorizer.rules import scalar as rules
    from vectorizer.runtime import special

    rng = np.random.default_rng(20261130)
    xs = np.concatenate([rng.uniform(-7.0, 7.0, count), rng.uniform(-0.6, 0.6, count), rng.uniform(0.4, 27.3, count),
                         np.exp(rng.uniform(-700.0, 3.4, count)) * rng.choice([-1.0, 1.0], count),
                         np.array([0.0, -0.0, 0.5, -0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 26.5, 27.3, 1e300, np.inf, -np.inf,
                                   np.nan, 5e-324, -5e-324])])
    status = 0
    for name, mine, ref in (("erf", special._vz_erf, math.erf), ("erfc", special._vz_erfc, math.erfc)):
        got = mine(xs)
        errors = np.array([ulps(g, ref(x)) for g, x in zip(got.tolist(), xs.tolist())])
        if name == "erfc":  # below 2.2e-308 the result is subnormal: vectorizer flags those lanes
            errors = np.where(special.erfc_subnormal(xs), 0, errors)
        hist = {k: int(np.sum(errors == k)) for k in range(int(errors.max()) + 1)}
        print(f"{name}: {xs.size} inputs, max {int(errors.max())} ulp, histogram {hist}")
        status |= int(errors.max()) > rules.ULP_BOUND
    return status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", type=int, nargs="?", const=200_000, metavar="N",
                        help="measure the ulp error of vectorizer/runtime/special.py on 4N+17 inputs (default N=200000)")
    args = parser.parse_args()
    if args.check:
        return check(args.check)
    print_tables()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
