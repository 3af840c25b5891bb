"""Targeted fuzzing of "discrete outcomes are exact": programs whose ints, bools, branches and
trip counts are decided by exp, log, pow, `**`, sqrt and trigonometry.

`random_program(seed)` writes a function `f(x, k)` (x a float, k an int) that mixes
transcendental values into int conversions, floor/round, `%`/`//`, comparisons, branches,
`while` loops with fuel and long chaotic `for` loops (1,000-2,000 steps of a logistic, tent or
sine map with `x ** 2` or `math.sin`), and returns an int or a bool. `check(program, seed,
stats)` runs it on each backend of `backends()` against the scalar function, exactly (values and
exceptions: tests/oracle.py): the NumPy backend, then the same generated code with a simulated
AVX-512 NumPy (tests/perturb.py) whose transcendental results move by 1-2 ulp, where no
discrete outcome may change; the Numba backend, whose floats are CPython's bit for bit.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import random
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import oracle
from perturb import PerturbedNumPy, discrete_mismatches

from fuzz import harness
from fuzz.harness import load
from vectorizer import VectorizeError, vectorize

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


CHECKED = ("numpy", "numba")  # the `_vm` backends (vector_math=True) keep another contract


def backends() -> tuple[str, ...]:
    """The backends of VECTORIZER_FUZZ_BACKENDS (default numpy) that this fuzzer checks."""
    return tuple(b for b in harness.BACKENDS if b in CHECKED) or ("numpy",)


def remembered(f):
    """f with each lane's outcome remembered, its exception too: every check on every backend
    compares with one run of the scalar loops (most of a program's time on the NumPy backend)."""
    outcomes: dict = {}

    def lane(*args):
        key = tuple((type(a).__name__, repr(a)) for a in args)  # repr tells -0.0 from 0.0
        if key not in outcomes:
            try:
                outcomes[key] = (True, f(*args))
            except Exception as exc:  # noqa: BLE001 - raised again below, as the oracle expects
                outcomes[key] = (False, exc)
        ok, value = outcomes[key]
        if not ok:
            raise value.with_traceback(None)
        return value

    lane.__name__, lane.__qualname__, lane.__module__ = f.__name__, f.__qualname__, f.__module__
    lane.__signature__ = inspect.signature(f)
    return lane


def _call(vf, x: np.ndarray, k: np.ndarray, backend: str):
    """vf(x, k) once, under oracle.check's warning rules: (a function that returns that result
    again or raises that exception again, for oracle.check; the exception or None)."""
    timeout = harness.NUMBA_TIMEOUT if backend == "numba" else harness.CALL_TIMEOUT
    with harness.time_limit(timeout, f"the {backend} call"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.filterwarnings("error", message=".*a vectorizer bug", category=UserWarning)
        try:
            got, raised = vf(x, k), None
        except Exception as exc:  # noqa: BLE001 - compared with the scalar function's outcome
            got, raised = None, exc

    def again(*args):
        if raised is not None:
            raise raised
        return got

    return again, raised


def _refusal(exc: BaseException, text: str, backend: str, stats: dict) -> str | None:
    """Count a refusal; an internal error refused (harness.engine_bug) is a failure instead."""
    bug = harness.engine_bug(exc, text)
    if bug is not None:
        return f"{bug}: {exc}"
    stats[f"refused-{backend}"] = stats.get(f"refused-{backend}", 0) + 1
    stats.setdefault("reasons", Counter())[f"{backend}: {harness.refusal_reason(exc)}"] += 1
    return None


def _check_backend(module, f, text: str, x: np.ndarray, k: np.ndarray, seed: int, stats: dict,
                   backend: str) -> tuple[str, bool] | None:
    """None, or (what disagreed, whether the real backend did: False for the simulated NumPy)."""
    try:
        vf = vectorize(module.f, fallback="error", backend=backend)
    except VectorizeError as exc:  # refused at decoration
        bug = _refusal(exc, text, backend, stats)
        return None if bug is None else (bug, True)
    try:
        replay, raised = _call(vf, x, k, backend)
    except harness.FuzzTimeout as exc:
        return f"hang: {exc}", True
    if raised is not None and harness.is_refusal(raised):  # refused for these argument types
        bug = _refusal(raised, text, backend, stats)
        return None if bug is None else (bug, True)
    stats[f"programs-{backend}"] = stats.get(f"programs-{backend}", 0) + 1
    if vf.backend != backend:  # Numba could not compile it: NumPy ran it (with a warning)
        stats["numba-fallback"] = stats.get("numba-fallback", 0) + 1
    try:
        oracle.check(replay, f, x, k)
    except AssertionError as exc:
        return (f"{exc}\n  expected: {harness.describe_oracle(f, [x, k])}\n"
                f"  got:      {harness.describe_vf(replay, [x, k])}"), True
    _count(stats, backend)
    if vf.backend != "numpy":
        return None
    generated = vf.source  # the code that just ran (perturb.source would lower it again)
    for shim_seed in (seed, seed + 1):
        bad = discrete_mismatches(f, generated, [x, k], PerturbedNumPy(shim_seed))
        _count(stats, backend)
        if bad:
            return f"simulated AVX-512 (seed {shim_seed}): lanes (index, expected, got) {bad[:5]}", False
    return None


def _count(stats: dict, backend: str) -> None:
    stats["checks"] = stats.get("checks", 0) + 1
    stats[f"checks-{backend}"] = stats.get(f"checks-{backend}", 0) + 1


def check(text: str, seed: int, stats: dict, checked: tuple[str, ...] | None = None) -> str | None:
    """None if the program agrees on every backend of `checked` (default `backends()`) or is
    refused there, else what disagreed: backend, seed, how to run it again (and the regression
    file written for a disagreement of a real backend, which test_fuzz.py replays)."""
    module = load(text, "dec")
    x, k = inputs(seed)
    f = remembered(module.f)
    stats["programs"] = stats.get("programs", 0) + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        for lane in oracle.lanes(x, k)[1]:  # the scalar loops, once for every check below
            with contextlib.suppress(Exception):
                f(*lane)
        _seconds(stats, "scalar", start)
        for backend in checked or backends():
            start = time.perf_counter()
            try:
                found = _check_backend(module, f, text, x, k, seed, stats, backend)
            finally:
                _seconds(stats, backend, start)
            if found is not None:
                return reproducer(text, seed, backend, *found, x, k)
    return None


def _seconds(stats: dict, what: str, start: float) -> None:
    stats[f"seconds-{what}"] = stats.get(f"seconds-{what}", 0.0) + time.perf_counter() - start


WRITTEN: list[Path] = []  # regression files this process wrote (a long run writes at most MAX_WRITTEN)
MAX_WRITTEN = 10


def reproducer(text: str, seed: int, backend: str, detail: str, real: bool, x: np.ndarray, k: np.ndarray) -> str:
    """A failure's report: backend, seed, the command that checks that seed again, and the
    regression file written (for a disagreement of the real backend: the simulated AVX-512 NumPy
    is this fuzzer's own, which the general fuzzer's replay does not run)."""
    again = (f"VECTORIZER_FUZZ_SEED={seed} VECTORIZER_FUZZ_BACKENDS={backend} VECTORIZER_FUZZ_DECISIONS_MINUTES=0.01"
             " python -m pytest tests/fuzz/test_fuzz_decisions.py -k long -s")
    lines = [f"{backend} backend, seed {seed}: {detail}", f"check it again: {again}"]
    if real and len(WRITTEN) < MAX_WRITTEN:
        outcome = harness.Outcome("fail", f"{backend} backend: {detail}", backend=backend)
        path = harness.write_regression(text, "", [("x", "float"), ("k", "int")], [x, k], outcome,
                                        f"decisions fuzzer, seed {seed}", classb=False)
        WRITTEN.append(path)
        lines.append(f"regression written: {path}")
    return "\n".join(lines)


# -- the long run: one process, or several (VECTORIZER_FUZZ_JOBS) on interleaved seeds ----------
def campaign(first: int, step: int, seconds: float, stats: dict) -> tuple[list[str], int]:
    """Seeds first, first + step, ... until `seconds` are used: (the failures, the last seed)."""
    failures: list[str] = []
    start, seed = time.monotonic(), first
    while True:
        text = random_program(seed)
        failure = check(text, seed, stats)
        if failure is not None:
            failures.append(f"{failure}\n{text}")
            print(f"\nDISAGREEMENT {failure}\n{text}", file=sys.stderr, flush=True)
        if time.monotonic() - start >= seconds:
            return failures, seed
        seed += step


_WORKER = """import json, sys
from fuzz import decisions
stats = {}
failures, last = decisions.campaign(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), stats)
stats["reasons"] = dict(stats.get("reasons", {}))
print(json.dumps({"stats": stats, "failures": failures, "last": last, "written": [str(p) for p in decisions.WRITTEN]}))
"""


def campaign_jobs(base: int, jobs: int, seconds: float, cache: Path) -> tuple[dict, list[str], list[tuple[int, int]]]:
    """`campaign` in `jobs` processes, seeds base + i, base + i + jobs, ... each with its own
    vectorizer cache under `cache`: (the merged stats, the failures, each job's first and last seed)."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), str(root / "tests"), os.environ.get("PYTHONPATH", "")]))
    procs = []
    for i in range(jobs):
        env_i = dict(env, VECTORIZER_CACHE_DIR=str(cache / f"job{i}"))
        procs.append(subprocess.Popen([sys.executable, "-c", _WORKER, str(base + i), str(jobs), str(seconds)],
                                      stdout=subprocess.PIPE, text=True, env=env_i, cwd=root))
    stats: dict = {"reasons": Counter()}
    failures: list[str] = []
    ranges = []
    for i, proc in enumerate(procs):
        out, _ = proc.communicate()
        if proc.returncode != 0:
            failures.append(f"job {i} (seeds {base + i} + {jobs}n) exited with {proc.returncode}")
            continue
        result = json.loads(out.strip().splitlines()[-1])
        for key, value in result["stats"].items():
            if key == "reasons":
                stats["reasons"].update(value)
            else:
                stats[key] = stats.get(key, 0) + value
        failures += result["failures"]
        WRITTEN.extend(Path(p) for p in result["written"])
        ranges.append((base + i, result["last"]))
    return stats, failures, ranges
