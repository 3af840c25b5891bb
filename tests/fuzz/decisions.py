"""Targeted fuzzing of "discrete outcomes are exact": programs whose ints, bools, branches and
trip counts are decided by exp, log, pow, `**`, sqrt and trigonometry.

`random_program(seed)` writes a function `f(x, k)` (x a float, k an int) that mixes
transcendental values into int conversions, floor/round, `%`/`//`, comparisons, branches,
`while` loops with fuel and long chaotic `for` loops (1,000-2,000 steps of a logistic, tent or
sine map with `x ** 2` or `math.sin`), and returns an int or a bool. `check(program, seed)` runs
it on the NumPy backend against the scalar function, exactly (values and exceptions: tests/
oracle.py), and then runs the same generated code with a simulated AVX-512 NumPy (tests/
perturb.py), whose transcendental results move by 1-2 ulp: no discrete outcome may change.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import oracle
from perturb import PerturbedNumPy, discrete_mismatches, source

from fuzz.harness import load
from vectorizer import VectorizeError, vectorize
from vectorizer.core.types import FLOAT, INT, Val

UNARY = ("math.exp({0} / 8.0)", "math.log(abs({0}) + 0.5)", "math.sqrt(abs({0}))", "math.sin({0})",
         "math.cos({0})", "math.tanh({0})", "math.atan({0})", "({0}) ** 2", "({0}) ** 3",
         "abs({0}) ** 0.5", "abs({0}) ** (1 / 3)", "math.pow(abs({0}) + 1.0, 1.5)", "math.log1p(abs({0}))",
         "math.expm1({0} / 16.0)", "math.hypot({0}, 1.5)", "math.atan2({0}, -1.0)", "math.erf({0})",
         "math.log(abs({0}) + 1.0, 2.0)", "math.cbrt({0})", "math.exp(math.log(abs({0}) + 1.0))")
RISKY = ("math.log({0})", "math.sqrt({0})", "math.acos({0})", "1.0 / ({0})", "({0}) ** 0.5")
MAPS = ("x = 3.99 * x - 3.99 * x ** 2", "x = 3.9 * x * (1.0 - x)", "x = abs(math.sin(3.1 * x))",
        "x = 1.0 - abs(1.0 - 1.99 * x)", "x = (x * 1.7 + math.exp(-x)) % 1.0", "x = math.sin(math.pi * x) ** 2")
DECIDE = ("int({0} * 100.0)", "math.floor({0} * 10.0)", "round({0} * 7.0)", "int({0} * 1000.0) % 7",
          "int(({0}) // 0.1)", "int({0} % 0.25 * 16.0)")
TESTS = ("{0} > {1}", "{0} <= 0.5", "{0} == round({0})", "{0} * {0} * {0} == {1}", "math.isclose({0}, {1})")


class Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []

    def expr(self, depth: int = 0) -> str:
        r = self.rng
        if depth > 2 or r.random() < 0.3:
            return r.choice(["x", "k", "float(k)", "x + 0.5", str(r.choice([0.3, 1.0, 2.0, 27.0, -0.7]))])
        if r.random() < 0.08:
            return r.choice(RISKY).format(self.expr(depth + 1))
        if r.random() < 0.2:
            return f"({self.expr(depth + 1)} {r.choice('+-*')} {self.expr(depth + 1)})"
        return r.choice(UNARY).format(self.expr(depth + 1))

    def emit(self, line: str, indent: int) -> None:
        self.lines.append("    " * indent + line)

    def block(self, indent: int, depth: int) -> None:
        r = self.rng
        for _ in range(r.randint(1, 3)):
            kind = r.random()
            if kind < 0.3:
                self.emit(f"c += {r.choice(DECIDE).format(self.expr())}", indent)
            elif kind < 0.5:
                self.emit(f"x = {self.expr()}", indent)
                self.emit("x = x if abs(x) < 1e6 else 0.5", indent)
            elif kind < 0.7 and depth < 2:
                self.emit(f"if {r.choice(TESTS).format(self.expr(), self.expr())}:", indent)
                self.block(indent + 1, depth + 1)
                if r.random() < 0.5:
                    self.emit("else:", indent)
                    self.block(indent + 1, depth + 1)
            elif kind < 0.85 and depth < 2:
                self.emit("fuel = 0", indent)
                self.emit(f"while {r.choice(TESTS).format(self.expr(), self.expr())} and fuel < {r.randint(3, 60)}:", indent)
                self.emit("fuel += 1", indent + 1)
                self.emit(f"x = {self.expr()}", indent + 1)
                self.emit("x = x if abs(x) < 1e6 else 0.5", indent + 1)
                self.emit(f"c += {r.choice(DECIDE).format('x')}", indent + 1)
            elif depth == 0:
                self.chaos(indent)
            else:
                self.emit(f"c += {r.choice(DECIDE).format(self.expr())}", indent)

    def chaos(self, indent: int) -> None:
        """A long chaotic loop: the orbit's last bits decide a count, then a trip count."""
        r = self.rng
        self.emit("x = abs(math.sin(x)) * 0.9 + 0.05", indent)
        self.emit(f"for _ in range({r.randint(1000, 2000)}):", indent)
        self.emit(r.choice(MAPS), indent + 1)
        if r.random() < 0.5:
            self.emit("if x > 0.5:", indent + 1)
            self.emit("c += 1", indent + 2)
        self.emit("fuel = 0", indent)
        self.emit(f"while x > 0.05 and fuel < {r.randint(50, 400)}:", indent)
        self.emit(r.choice(MAPS), indent + 1)
        self.emit("fuel += 1", indent + 1)
        self.emit("c += fuel", indent)


def random_program(seed: int) -> str:
    w = Writer(random.Random(seed))
    w.lines = ["import math", "", "", "def f(x: float, k: int):", "    c = 0"]
    w.block(1, 0)
    if w.rng.random() < 0.3:
        w.emit(f"return {w.rng.choice(TESTS).format(w.expr(), w.expr())}", 1)
    else:
        w.emit("return c", 1)
    return "\n".join(w.lines) + "\n"


def inputs(seed: int, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.uniform(-4, 4, n - 8), [0.0, -0.0, 1.0, 27.0, 0.5, np.nan, 1e-300, -2.5]])
    k = rng.integers(-3, 30, n)
    return x, k


def check(text: str, seed: int, stats: dict) -> str | None:
    """None if the program agrees (or is refused), else what disagreed."""
    module = load(text, "dec")
    x, k = inputs(seed)
    stats["programs"] = stats.get("programs", 0) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            vf = vectorize(module.f, fallback="error")
            vf(x[:1], k[:1])
        except VectorizeError as exc:
            stats["refused"] = stats.get("refused", 0) + 1
            return None if "vectorizer bug" not in str(exc) else f"refusal: {exc}"
        except Exception:  # noqa: BLE001 - a lane raised: the oracle check below judges it
            pass
        try:
            oracle.check(vf, module.f, x, k)
        except AssertionError as exc:
            return f"real NumPy: {exc}"
        stats["checks"] = stats.get("checks", 0) + 1
        generated = source(module.f, {"x": Val(FLOAT, True), "k": Val(INT, True)})
        for shim_seed in (seed, seed + 1):
            bad = discrete_mismatches(module.f, generated, [x, k], PerturbedNumPy(shim_seed))
            stats["checks"] += 1
            if bad:
                return f"simulated AVX-512 (seed {shim_seed}): lanes {bad[:5]}"
    return None
