"""XLA's float64 bounds per function and platform, as scripts/measure_xla_ulp.py measured them
(xla_bounds.json beside this file), and the margin the generated code adds to them.

A bound is in the unit the error terms of runtime.py use: XLA's result r of a function is within
`ulps * 2**-52 * |r| + 2**-1021` of CPython's on exact arguments. The table holds the largest
value measured; the code allows `MARGIN_FACTOR * measured + MARGIN_ULPS` (the measurement samples
inputs: an unsampled input may be a little worse). The IEEE operations (+, -, *, /, the int ->
float conversion) measure 0 on CPU, but in context XLA fuses `a * b + c` into one rounding: their
error terms add CPython's own rounding to the measured one (`arithmetic`).

An emulated float64 (a TPU's: a pair of float32, scripts/emulated_f64.py) has float32's exponent
range and about 49 bits: a value keeps its precision only inside `range` [low, high) (a lane whose
argument, constant or intermediate result leaves it is re-run on the host), an argument is
rounded on its way to the device (`entry`), a constant by `pair_error`, and each function's bound
has an absolute part beside the relative one (`band`), by band of its largest argument.

Imports no JAX: the table is data, read when a JAX kernel is first built.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np

from ...errors import VectorizeError

TABLE = Path(__file__).with_name("xla_bounds.json")
MARGIN_FACTOR = 2.0
MARGIN_ULPS = 1.0
# On an emulated float64 (float32's exponent range, subnormals flushed), a value below 2**-70
# would have error terms below float32's smallest normal, which the device flushes to zero: the
# range the model keeps starts there, whatever the measured one
ERROR_TERMS_LOW = -70
ARITHMETIC = ("add", "sub", "mul", "div", "convert", "sqrt")  # IEEE 754 rounds these correctly


@cache
def _table() -> dict:
    return json.loads(TABLE.read_text())


def measured_platforms() -> tuple[str, ...]:
    return tuple(sorted(_table()))


class Bounds:
    """One platform's bounds, with the margin applied: `ulps(name)` for a function on arguments of
    any size, `bands(name)` [(|argument| limit, ulps), ...] where the bound depends on the size."""

    def __init__(self, platform: str) -> None:
        table = _table()
        if platform not in table:
            raise VectorizeError(
                f"backend='jax': XLA's float64 error bounds are not measured on {platform!r} (measured: "
                f"{', '.join(measured_platforms())}); without them no discrete outcome can be kept exact",
                hint=f"run `python scripts/measure_xla_ulp.py --write` on a {platform} machine and commit "
                     "vectorizer/backends/jax/xla_bounds.json, or use backend='numpy' or 'numba'")
        record = table[platform]
        self.platform = platform
        self.facts: dict[str, object] = record["facts"]
        self._bands = {name: [(float(limit), self._margin(float(ulps))) for limit, ulps in entry["bands"]]
                       for name, entry in record["functions"].items()}
        self._measured = {name: max(float(u) for _, u in entry["bands"]) for name, entry in record["functions"].items()}
        self._absolute = {name: [self._margin(float(u)) for _, u in entry["absolute"]]
                          for name, entry in record["functions"].items() if "absolute" in entry}
        self.emulated = bool(self.facts.get("emulated", False))
        low, high = self.facts.get("range", (-1022, 1024))
        self.precise_low = math.ldexp(1.0, low)  # where the device's own values keep their bits
        if self.emulated:  # an error term (at least 2**-52 |v|) must stay a float32 normal: 2**-122
            low = max(low, ERROR_TERMS_LOW)
        self.low, self.high = math.ldexp(1.0, low), math.ldexp(1.0, high) if high < 1024 else math.inf
        self.entry = self._margin(float(self.facts.get("entry", 0.0)))  # an argument's rounding, ulps
        self.convert_exact_below = float(self.facts.get("convert_exact_below", 2.0 ** 63))

    @staticmethod
    def _margin(measured: float) -> float:
        return math.inf if math.isinf(measured) else MARGIN_FACTOR * measured + MARGIN_ULPS

    @property
    def exact_arithmetic(self) -> bool:
        """Whether XLA's IEEE operations are CPython's bits here, written as the runtime writes
        them: measured 0 ulps, FMA contraction blocked by its selects, constants opaque to XLA's
        rewrites (division by a constant as a product, constants reassociated). Then an
        operation on exact operands is exact, but for XLA's flushes of subnormals (approx.py)."""
        measured = [self._measured.get(name, math.inf) for name in ARITHMETIC]
        return all(m == 0 for m in measured) and self.facts.get("fma_blocked") == 0 \
            and self.facts.get("opaque_constants") == 0

    @property
    def flushes_inputs(self) -> bool:
        """Whether XLA reads subnormal operands as zero here (the lanes of such arguments are re-run)."""
        return bool(self.facts.get("flushes_subnormal_inputs", True))

    @property
    def bitcasts(self) -> bool:
        """Whether float64 bitcasts to ints compile: not on TPUs, whose float64 is emulated."""
        return self.platform != "tpu"

    @property
    def inexact(self) -> list[str]:
        """The IEEE operations whose measured bound is infinite here (another number format)."""
        return [name for name in ARITHMETIC if name not in self._bands or math.isinf(self.ulps(name))]

    @property
    def flushes(self) -> bool:
        """Whether XLA flushes subnormal results (and reads subnormal operands) as zero here."""
        return bool(self.facts.get("flushes_subnormal_results", True) or self.facts.get("flushes_subnormal_inputs", True))

    def bands(self, name: str) -> list[tuple[float, float]]:
        if name not in self._bands:
            raise KeyError(f"no measured bound for {name!r} on {self.platform}")
        return self._bands[name]

    def band(self, name: str) -> list[tuple[float, float, float]]:
        """[(largest |argument| of the band, relative ulps, absolute ulps), ...]: the error of the
        function's result r is within `relative * 2**-52 * |r| + absolute * 2**-52` there."""
        absolute = self._absolute.get(name, [0.0] * len(self.bands(name)))
        return [(limit, rel, ab) for (limit, rel), ab in zip(self.bands(name), absolute)]

    def pair_error(self, c: float) -> float:
        """How far the device's copy of the constant c is from c (0 where float64 is IEEE's)."""
        if not self.emulated or not math.isfinite(c):
            return 0.0
        high = float(np.float32(c)) if abs(c) < 3.4e38 else c
        error = abs(c - (high + float(np.float32(c - high))))
        # at least 2**-52 |c| where nonzero: a relative error no smaller than a rounding's keeps
        # every product with it a float32 normal (approx.mag)
        return max(error, math.ldexp(abs(c), -52)) if error else 0.0

    def outside(self, c: float) -> bool:
        """Whether a nonzero finite constant lies outside the range where the device keeps it."""
        return self.emulated and c != 0.0 and math.isfinite(c) and not self.low <= abs(c) < self.high

    def ulps(self, name: str) -> float:
        """The bound over every argument (the widest band's). An emulated float64's IEEE operations
        err relative to their operands or result wherever inside the range (the bands measured
        agree): their bound is the largest measured in any band, a band without samples aside."""
        bands = [ulps for _, ulps in self.bands(name)]
        if self.emulated and name in ARITHMETIC:
            bands = [u for u in bands if math.isfinite(u)] or [math.inf]
        return max(bands)

    def arithmetic(self, name: str) -> float:
        """An IEEE operation's rounding, in context: the measured bound (with its margin) plus
        CPython's own rounding, which a fused multiply-add skips."""
        return self.ulps(name) + 1.0
