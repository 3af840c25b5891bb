"""Generated modules on a million lanes, where the runtime splits the batch into chunks on threads.

`vectorizer generate --backend numpy` writes the module; a `python -I -S` child that can import
NumPy but not vectorizer (tests/isolation.py) runs every function on 1e6 lanes, once with the
default thread count and once with VECTORIZER_THREADS=1 (chunks in turn), and the results,
exceptions included, are compared here with the scalar function run on each lane. The lanes draw
their arguments from a table of a few thousand distinct tuples (hostile values included) in a
random order, so the scalar oracle runs once per tuple and every lane still checks its own
place in the stitched result. The modules pass `ruff check --select F`.

PYTEST_DONT_REWRITE: the scalar functions' own messages must not be rewritten.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import textwrap
from pathlib import Path

import numpy as np
import pytest
from isolation import assert_lint_clean, numpy_only_path, run_isolated
from oracle import same_value

from vectorizer.faces.cli.main import main
from vectorizer.rules import scalar as rules

LANES = 1_000_000

SOURCE = textwrap.dedent('''\
    import math

    from vectorizer import vectorize

    LIMIT = 4.0


    @vectorize
    def escape_time(cr: float, ci: float, max_iter: int = 60) -> int:
        zr = zi = 0.0
        n = 0
        while zr * zr + zi * zi <= LIMIT and n < max_iter:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            n += 1
        return n


    @vectorize
    def collatz(n: int) -> int:
        if n < 1:
            raise ValueError(f"collatz needs a positive start, got {n}")
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps


    @vectorize
    def halvings(x: float, limit: float) -> tuple:
        n = 0
        while x > limit:
            x = x * 0.5
            n += 1
        return n, x


    @vectorize
    def cube(n: int) -> int:
        return n * n * n


    @vectorize
    def roots(a: float, b: float, c: float) -> tuple:
        d = b * b - 4.0 * a * c
        if d < 0.0:
            return math.nan, math.nan
        s = math.sqrt(d)
        return (-b + s) / (2.0 * a), (-b - s) / (2.0 * a)


    @vectorize
    def softplus(x: float) -> float:
        if x > 30.0:
            return x
        return math.log1p(math.exp(x))
    ''')

# Functions whose float results come from exp/log/pow/...: within the documented bound of
# CPython's (NumPy's SIMD versions differ by CPU); every other result is compared bit for bit.
TRANSCENDENTAL = {"softplus": rules.ULP_BOUND}

HOSTILE = [math.nan, math.inf, -math.inf, -0.0, 0.0, 5e-324, -5e-324, 2.2e-308, 1e308, -1e308]


def _tables(rng: np.random.Generator) -> dict[str, tuple[list[np.ndarray], list]]:
    """Per case: the distinct argument columns, and uniform extras passed as they are."""
    def floats(size, scale, hostile=True):
        values = rng.normal(0.0, scale, size)
        if hostile:
            values[: len(HOSTILE)] = HOSTILE
        return values

    near_end = 2**21 - 1  # cube(2**21 - 1) is just below 2**63: lanes a float estimate cannot clear
    # 1 lane in 60 (a re-run each) near the ends; 60,000 others drawn from the whole range
    cube_ints = np.concatenate([rng.integers(-near_end, near_end + 1, 60_000),
                                np.arange(near_end - 500, near_end + 1), -np.arange(near_end - 500, near_end + 1)])
    collatz_ints = rng.integers(1, 2000, 3000)
    bad_collatz = collatz_ints.copy()
    bad_collatz[:2] = (0, -7)  # lanes drawing these raise; the first in C order decides
    a, b, c = floats(3000, 2.0), floats(3000, 3.0), floats(3000, 2.0)
    a[a == 0.0] = 1.5  # every `a` nonzero: no lane divides by zero
    a_with_zero = a.copy()
    a_with_zero[3] = 0.0  # -0.0 and 0.0 rows: b*b - 4ac >= 0 there, then a ZeroDivisionError
    a_with_zero[4] = -0.0
    return {
        "escape_time": ([floats(4096, 0.9), floats(4096, 0.9)], [60]),
        "collatz": ([collatz_ints], []),
        "collatz_raises": ([bad_collatz], []),
        "halvings": ([np.abs(floats(3000, 1e6, hostile=False)) * rng.choice([1.0, 1e30], 3000, p=[0.9, 0.1]),
                      0.5 + np.abs(floats(3000, 2.0, hostile=False))], []),
        "cube": ([cube_ints], []),
        "roots": ([a, b, c], []),
        "roots_raises": ([a_with_zero, b, c], []),
        "softplus": ([np.concatenate([floats(3000, 20.0), [29.9, 30.0, 30.1, -745.0, 709.0, 710.0]])], []),
    }


def _function(case: str) -> str:
    return case.removesuffix("_raises")


CHILD = textwrap.dedent('''\
    import json, sys
    import numpy as np
    import k_batched

    calls = json.load(open("calls.json"))
    patched = {}
    for name in {c["function"] for c in calls.values()}:
        scalar = getattr(k_batched, "_scalar_" + name)
        def counting(*args, _scalar=scalar, _name=name, **kwargs):
            patched[_name] = patched.get(_name, 0) + 1
            return _scalar(*args, **kwargs)
        setattr(k_batched, "_scalar_" + name, counting)  # the export looks it up at each call
    report = {}
    for case, call in calls.items():
        args = [np.load(f) for f in call["arrays"]] + call["uniform"]
        patched.clear()
        try:
            out = getattr(k_batched, call["function"])(*args)
        except Exception as exc:
            report[case] = {"raised": [type(exc).__name__, str(exc), getattr(exc, "__notes__", [])]}
            continue
        outs = list(out) if isinstance(out, tuple) else [out]
        for k, o in enumerate(outs):
            np.save(f"out_{case}_{k}.npy", o)
        report[case] = {"tuple": isinstance(out, tuple), "count": len(outs), "patched": patched.get(call["function"], 0)}
    report["loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in ("vectorizer", "libcst", "k", "numba"))
    json.dump(report, open("report.json", "w"))
    ''')


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("large")
    (root / "k.py").write_text(SOURCE)
    cwd = Path.cwd()
    os.chdir(root)
    try:
        assert main(["generate", "-q", "--backend", "numpy", "k.py"]) == 0
    finally:
        os.chdir(cwd)
    return root


@pytest.fixture(scope="module")
def cases(generated) -> dict[str, dict]:
    """Each case's lanes (indices into its table), arguments and expected outcome, by the oracle."""
    spec = importlib.util.spec_from_file_location("vz_test_generated_large_source", generated / "k.py")
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    rng = np.random.default_rng(20240527)
    out = {}
    for case, (columns, uniform) in _tables(rng).items():
        scalar = getattr(source, _function(case)).scalar
        index = rng.integers(0, len(columns[0]), LANES)
        if case == "collatz_raises":
            index[index < 2] = 2  # the bad starts only where placed: a -7 first, a 0 later
            index[[612_345, 987_654]] = [1, 0]
        if case == "roots_raises":
            index[index == 3] = 5
            index[index == 4] = 5
            index[[700_001, 999_999]] = [4, 3]  # -0.0 first
        per_entry, raised = [], {}
        for i, lane in enumerate(zip(*(c.tolist() for c in columns))):
            try:
                per_entry.append(scalar(*lane, *uniform))
            except Exception as exc:  # the oracle's own exception is an expected outcome
                raised[i] = exc
                per_entry.append(None)
        bad = np.isin(index, list(raised))
        first = int(np.argmax(bad)) if bad.any() else None
        out[case] = {"columns": [c[index] for c in columns], "uniform": uniform, "index": index,
                     "per_entry": per_entry, "first_raise": first,
                     "exception": raised[int(index[first])] if first is not None else None}
    return out


def _run(generated: Path, cases: dict[str, dict], tmp: Path, threads: str | None) -> dict:
    run_dir = tmp / "run"
    run_dir.mkdir()
    for name in ("k_batched.py", "_vectorizer_runtime.py"):  # no k.py beside them
        (run_dir / name).write_bytes((generated / name).read_bytes())
    calls = {}
    for case, c in cases.items():
        arrays = []
        for k, col in enumerate(c["columns"]):
            np.save(run_dir / f"in_{case}_{k}.npy", col)
            arrays.append(f"in_{case}_{k}.npy")
        calls[case] = {"function": _function(case), "arrays": arrays, "uniform": c["uniform"]}
    (run_dir / "calls.json").write_text(json.dumps(calls))
    env = {"VECTORIZER_THREADS": threads} if threads else {}
    done = run_isolated(CHILD, run_dir, [run_dir, numpy_only_path(tmp)], env=env, timeout=1200)
    assert done.returncode == 0, done.stderr
    report = json.loads((run_dir / "report.json").read_text())
    report["dir"] = str(run_dir)
    return report


def _assert_column(case: str, k: int, expected: list, got: np.ndarray, ulps: int) -> None:
    if all(isinstance(v, int) and not isinstance(v, bool) for v in expected):
        assert got.dtype == np.int64, (case, k, got.dtype)
        assert np.array_equal(got, np.array(expected, dtype=np.int64)), case
        return
    assert got.dtype == np.float64, (case, k, got.dtype)
    want = np.array(expected, dtype=np.float64)
    same_bits = got.view(np.int64) == want.view(np.int64)
    for j in np.flatnonzero(~same_bits):  # NaNs (any payload), and values within the bound
        assert same_value(float(want[j]), float(got[j]), ulps), (case, k, int(j), float(want[j]), float(got[j]))


@pytest.mark.parametrize("threads", [None, "1"], ids=["default-threads", "one-thread"])
def test_generated_module_on_a_million_lanes_matches_the_scalar_function(generated, cases, tmp_path, threads):
    report = _run(generated, cases, tmp_path, threads)
    assert report.pop("loaded") == []  # neither vectorizer, nor libcst, nor the source, nor Numba
    run_dir = Path(report.pop("dir"))
    for case, c in cases.items():
        got = report[case]
        if c["exception"] is not None:
            exc = c["exception"]
            assert "raised" in got, (case, got)
            name, message, notes = got["raised"]
            assert (name, message) == (type(exc).__name__, str(exc)), (case, got)
            assert f"lane ({c['first_raise']},) of ({LANES},)" in " ".join(notes), (case, notes)
            continue
        assert "raised" not in got, (case, got)
        per_lane = [c["per_entry"][i] for i in c["index"].tolist()]
        columns = list(zip(*per_lane)) if isinstance(per_lane[0], tuple) else [per_lane]
        assert got["tuple"] == isinstance(per_lane[0], tuple) and got["count"] == len(columns), (case, got)
        for k, expected in enumerate(columns):
            _assert_column(case, k, list(expected), np.load(run_dir / f"out_{case}_{k}.npy"),
                           TRANSCENDENTAL.get(_function(case), 0))
    # cube's lanes near 2**63 are flagged and re-run by the scalar copy, and their values kept
    assert report["cube"]["patched"] > 0, report["cube"]


def test_generated_large_module_is_lint_clean(generated):
    runtime = (generated / "_vectorizer_runtime.py").read_text()
    assert "import threading" in runtime  # the runtime's chunks on threads (imported where used)
    assert_lint_clean([generated / "k_batched.py", generated / "_vectorizer_runtime.py"])
