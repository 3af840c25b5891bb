"""Differential fuzzing: random programs in the supported subset, vectorized and compared with the
scalar function lane by lane (docs/internals.md, how the code is tested).

* `test_fuzz_bounded`: the CI run, `FUZZ_EXAMPLES` derandomized Hypothesis examples (a program,
  a batch, and up to two metamorphic variants of the program each), about a minute on 2 cores.
* `test_fuzz_long`: `pytest tests/fuzz --fuzz-minutes N` (or `VECTORIZER_FUZZ_MINUTES=N`) fuzzes
  with fresh random seeds until N minutes are used, continuing after each disagreement.
* `test_regression`: replays every file in tests/fuzz/regressions/. A disagreement found by
  either run is shrunk by Hypothesis and written there (program, inputs, expected vs got).
  Files marked `# status: open` are strict xfails: once the engine is fixed they XPASS, and the
  marker is flipped to `fixed` so the file guards against the bug coming back.
* the generator is itself checked: its programs run in bounded time, and every metamorphic
  variant computes exactly what the original computes in plain Python.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import oracle
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.errors import FlakyStrategyDefinition, InvalidArgument
from hypothesis.internal.conjecture import engine

from fuzz import generator, harness
from fuzz.generator import Program, applicable, literal_floats, programs, random_program
from fuzz.harness import (
    STATS,
    differential,
    inputs,
    load,
    read_regression,
    replay,
    write_regression,
)
from fuzz.reduce import reduce_file

FUZZ_EXAMPLES = int(os.environ.get("VECTORIZER_FUZZ_EXAMPLES", 200))
VARIANT_SETS = (frozenset({"rename", "swap", "split"}), frozenset({"elif", "hoist", "inline"}))
PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]  # no "explain"
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
          HealthCheck.large_base_example]
def _known_signatures() -> set[str]:
    """Kinds of failure that an open regression file already shows: not written again."""
    known = set()
    for path in harness.REGRESSIONS.glob("reg_*.py"):
        text = path.read_text()
        if "# status: open" in text:
            first = next((line[4:] for line in text.splitlines() if line.startswith("# | ")), "")
            known.add(signature(first))
    return known


_seen_signatures: set[str] = set()
# VECTORIZER_FUZZ_ONLY=text: only failures whose kind contains text count (to hunt one bug class).
ONLY = os.environ.get("VECTORIZER_FUZZ_ONLY", "")
_mode: dict = {"found": "bounded", "backends": None}  # None: harness.BACKENDS
# While Hypothesis shrinks a failure, each step re-transforms a program: skip the determinism
# re-run and check the variant that failed first.
_shrink = {"active": False, "focus": frozenset()}  # which run writes regressions (the long run dedupes by symptom)


def signature(detail: str) -> str:
    """A failure's kind, without values (the first line of the detail), to tell bugs apart."""
    first = detail.splitlines()[0] if detail else ""
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    first = re.sub(r"[-+]?\d[\w.+-]*", "N", first)
    return first[:160]


class Disagreement(AssertionError):
    """The vectorized function and the scalar oracle disagree."""


_kinds: dict[str, type] = {}


def disagreement(sig: str) -> type:
    """One exception class per kind of failure: Hypothesis shrinks each kind separately instead of
    sliding from one bug to another while shrinking."""
    if sig not in _kinds:
        _kinds[sig] = type(f"Disagreement{len(_kinds)}", (Disagreement,), {"__doc__": sig})
    return _kinds[sig]


@contextlib.contextmanager
def shrink_budget(seconds: int):
    """Hypothesis shrinks for up to 5 minutes; each step here transforms a program: cap it."""
    old = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = old


def _is_final() -> bool:
    try:
        return current_build_context().is_final
    except InvalidArgument:
        return True


def check_program(program: Program, args: list, found: str = "bounded") -> None:
    """The whole differential check of one program on one batch; AssertionError on a disagreement."""
    STATS.counts["programs"] += 1
    if any(getattr(a, "size", 1) == 0 for a in args):
        STATS.counts["empty"] += 1
    classb = program.classb
    variants = [frozenset()] + [v for v in VARIANT_SETS if any(applicable(program, x) for x in v)]
    if _shrink["active"] and _shrink["focus"] in variants:
        variants.remove(_shrink["focus"])
        variants.insert(0, _shrink["focus"])
    for variant in variants:
        source = program.source(variant)
        shim_source = program.source(variant, shim=True) if classb else ""
        module = load(source)
        shim = load(shim_source, "shim") if classb else None
        outcome = differential(module, shim, args, classb, twice=not variant and not _shrink["active"],
                               backends=_mode["backends"])
        STATS.counts["checks"] += 1
        if variant:
            STATS.counts["variants"] += 1
        if outcome.status == "refused":
            if variant:
                STATS.counts["variant-refused"] += 1
                STATS.refusals[f"(variant only) {outcome.reason}"] += 1
                continue
            STATS.counts["refused"] += 1
            STATS.refusals[outcome.reason] += 1
            return
        if outcome.status == "pass":
            STATS.counts["passed"] += 1
            if outcome.via != "libm":
                STATS.counts[f"passed-{outcome.via}"] += 1
            if not variant and isinstance(oracle.oracle(module.f, *args), oracle.Raised):
                STATS.counts["oracle-raised"] += 1
            continue
        label = "+".join(sorted(variant)) or "original"
        sig = signature(outcome.detail)
        if ONLY and ONLY not in sig:
            STATS.counts["failed-other"] += 1
            STATS.ignored[sig] += 1
            return
        STATS.counts["failed"] += 1
        if not _shrink["active"]:  # fixed for the rest of the run, so replays stay consistent
            _shrink["active"], _shrink["focus"] = True, variant
        if _is_final():
            STATS.failures.append((sig, label))
            if not _seen_signatures:
                _seen_signatures.update(_known_signatures() | {""})
            silent = sig.startswith(("wrong value", "missed exception", "wrong result"))  # always kept
            if sig in _seen_signatures and not silent:
                STATS.counts["known-kind"] += 1
            else:
                _seen_signatures.add(sig)
                path = write_regression(source, shim_source, program.params, args, outcome,
                                        f"{found} ({label} program)", classb)
                STATS.regressions.append(path)
        raise disagreement(sig)(f"vectorized {label} program disagrees with the scalar function:\n"
                                f"{outcome.detail}\n--- program ---\n{source}")


def fuzz_body(data) -> None:
    program = data.draw(programs(), label="program")
    args = data.draw(inputs(program.params, literal_floats(program)), label="inputs")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_program(program, args, found=_mode["found"])


# -- the bounded CI run -------------------------------------------------------------------------
@settings(max_examples=FUZZ_EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=HEALTH, print_blob=True, phases=PHASES)
@given(data=st.data())
def bounded_campaign(data):
    fuzz_body(data)


def test_fuzz_bounded():
    start = time.monotonic()
    _shrink["active"] = False
    try:
        with shrink_budget(60):
            bounded_campaign()
    finally:
        STATS.seconds += time.monotonic() - start


# The Numba backend compiles every program (about a second each): a smaller bounded run.
NUMBA_EXAMPLES = int(os.environ.get("VECTORIZER_FUZZ_NUMBA_EXAMPLES", 60))


@settings(max_examples=NUMBA_EXAMPLES, derandomize=True, database=None, deadline=None,
          suppress_health_check=HEALTH, print_blob=True, phases=PHASES)
@given(data=st.data())
def bounded_numba_campaign(data):
    fuzz_body(data)


@pytest.mark.numba
def test_fuzz_bounded_numba():
    pytest.importorskip("numba")
    start = time.monotonic()
    _shrink["active"] = False
    _mode["backends"] = ("numba",)
    generator.EXTRA_AVOID.add("gamma")  # refused on Numba by design: spend the examples elsewhere
    try:
        with shrink_budget(60):
            bounded_numba_campaign()
    finally:
        _mode["backends"] = None
        generator.EXTRA_AVOID.discard("gamma")
        STATS.seconds += time.monotonic() - start


# -- the long run -------------------------------------------------------------------------------
@pytest.mark.slow
def test_fuzz_long(request):
    minutes = request.config.getoption("--fuzz-minutes", default=0.0) or 0.0
    if minutes <= 0:
        pytest.skip("long fuzzing runs with --fuzz-minutes N (or VECTORIZER_FUZZ_MINUTES=N)")
    deadline = time.monotonic() + minutes * 60
    base = int(os.environ.get("VECTORIZER_FUZZ_SEED", random.randrange(2**32)))
    failures = []
    failing: list[bool] = []  # this batch has failed: shrinking must not be cut short
    batch = 0
    _mode["found"] = "long run"
    try:
        while time.monotonic() < deadline:
            batch_seed = base + batch
            batch += 1
            failing.clear()
            _shrink["active"] = False

            @seed(batch_seed)
            @settings(max_examples=400, database=None, deadline=None, suppress_health_check=HEALTH,
                      print_blob=True, phases=PHASES)
            @given(data=st.data())
            def run(data):
                if time.monotonic() > deadline and not failing:  # time is up: only draw (consistently)
                    data.draw(programs(), label="program")
                    return
                try:
                    fuzz_body(data)
                except Disagreement:
                    failing.append(True)  # shrinking and its final replay must see the same outcome
                    raise

            start = time.monotonic()
            written = len(STATS.regressions)
            try:
                with shrink_budget(240):
                    run()
            except Exception as exc:  # noqa: BLE001 - record it, and keep fuzzing with the next seed
                found = getattr(exc, "exceptions", None) or [exc]  # an ExceptionGroup: several bugs
                if time.monotonic() > deadline and not failing:
                    # A case that ran whole before the deadline and is replayed after it draws
                    # only the program: Hypothesis calls that flaky. Nothing disagreed.
                    found = [e for e in found if not isinstance(e, FlakyStrategyDefinition)]
                failures += [f"seed {batch_seed}: {type(e).__name__}: {type(e).__doc__ if isinstance(e, Disagreement) else e}"
                             for e in found]
            finally:
                STATS.seconds += time.monotonic() - start
            for path in STATS.regressions[written:]:  # Hypothesis shrank the choices; now the text
                reduce_file(path, seconds=max(30.0, min(120.0, deadline - time.monotonic())))
    finally:
        _mode["found"] = "bounded"
    print(f"\nlong fuzzing: {batch} batches from seed {base}, {STATS.counts['programs']} programs")
    assert not failures, f"{len(failures)} batches found disagreements:\n" + "\n".join(failures)


# -- regressions --------------------------------------------------------------------------------
REGRESSION_FILES = sorted(harness.REGRESSIONS.glob("reg_*.py"))


@pytest.mark.parametrize("path", REGRESSION_FILES, ids=[p.stem for p in REGRESSION_FILES])
def test_regression(path: Path, request):
    reg = read_regression(path)
    if reg.backend in ("numba", "numpy_vm", "numba_vm"):  # numpy_vm: vector_math=True, through Numba
        request.applymarker(pytest.mark.numba)
        pytest.importorskip("numba")
    if reg.status == "open":
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"open fuzz regression {path.name}"))
    outcome = replay(reg)
    assert outcome.status != "fail", outcome.detail


# -- the generator itself -----------------------------------------------------------------------
def _outcome(f, args):
    result = oracle.oracle(f, *args)
    if isinstance(result, oracle.Raised):
        return ("raise", type(result.exc).__name__, str(result.exc), result.lane)
    shape, values = result
    return ("values", shape, [repr(v) for v in values])


@pytest.mark.parametrize("chunk", range(4))
def test_generated_programs_are_bounded_and_variants_equivalent(chunk):
    """Programs run quickly in plain Python, and each variant (and the shim's exceptions) agree."""
    rng = random.Random(chunk)
    for k in range(40):
        program = random_program(1000 * chunk + k)
        module = load(program.source())
        args = [_random_arg(rng, t) for _, t in program.params]
        with harness.time_limit(10.0, "scalar program"):
            expected = _outcome(module.f, args)
            for variant in ("rename", "swap", "elif", "hoist", "split", "inline"):
                got = _outcome(load(program.source({variant})).f, args)
                assert got == expected, (variant, program.source({variant}))
            if not program.classb:  # without libm-dependent operations the shim changes nothing
                assert _outcome(load(program.source(shim=True), "shim").f, args) == expected


def _random_arg(rng: random.Random, t: str):
    import numpy as np

    pools = {
        "float": [0.0, -0.0, 1.5, -2.0, float("nan"), float("inf"), -1e300, 5e-324, 7.25, 3.0],
        "int": [0, 1, -1, 5, 17, -40, 2**62, -(2**63), 2**63 - 1, 3],
        "bool": [True, False],
    }
    dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_}[t]
    return np.array([rng.choice(pools[t]) for _ in range(6)], dtype=dtype)


def test_source_is_deterministic_across_processes(tmp_path):
    """Same program, fresh processes with different hash seeds and empty caches: same bytes."""
    paths = []
    for k in range(12):
        path = tmp_path / f"detprog_{k}.py"
        path.write_text(random_program(50_000 + k).source())
        paths.append(path)
    script = (
        "import importlib.util, json, sys\n"
        "from vectorizer import VectorizeError, vectorize\n"
        "out = {}\n"
        "for p in sys.argv[1:]:\n"
        "    spec = importlib.util.spec_from_file_location(p.rsplit('/', 1)[1][:-3], p)\n"
        "    m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m; spec.loader.exec_module(m)\n"
        "    try:\n"
        "        out[p] = vectorize(m.f, fallback='error').source\n"
        "    except VectorizeError as exc:\n"
        "        out[p] = 'refused: ' + str(exc)\n"
        "    except Exception as exc:  # a crash is the fuzzer's business, not this test's\n"
        "        out[p] = 'crashed: ' + type(exc).__name__\n"
        "print(json.dumps(out))\n"
    )
    results = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed, VECTORIZER_CACHE_DIR=str(tmp_path / f"cache{hash_seed}"),
                   PYTHONPATH=os.pathsep.join([str(harness.REGRESSIONS.parents[2]), *sys.path]))
        proc = subprocess.run([sys.executable, "-c", script, *map(str, paths)], capture_output=True, text=True,
                              env=env, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1]
