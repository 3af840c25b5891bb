"""The fuzzer's programs (tests/fuzz/generator.py) on backend="jax", against the scalar loop:
exceptions (type, message, first failing lane) and discrete outcomes exact; floats bit for bit for
programs without libm-dependent operations (XLA's CPU arithmetic, written as the runtime writes
it, is CPython's), within `REL` for the others. A refusal (`VectorizeError`) passes, counted.

    VECTORIZER_JAX_FUZZ_PROGRAMS=500 python -m pytest tests/backends/test_jax_fuzz.py   # longer
"""

from __future__ import annotations

import math
import os
import random
import warnings

import numpy as np
import pytest

pytest.importorskip("jax", reason="backend='jax' needs JAX: pip install '.[jax]'")

from fuzz.generator import random_program  # noqa: E402
from fuzz.harness import is_refusal, load, time_limit  # noqa: E402
from oracle import check  # noqa: E402

from vectorizer import VectorizeError, vectorize  # noqa: E402

PROGRAMS = int(os.environ.get("VECTORIZER_JAX_FUZZ_PROGRAMS", 24))
FIRST_SEED = int(os.environ.get("VECTORIZER_JAX_FUZZ_SEED", 53_000))
REL = 1e-6  # a libm-dependent value, and what arithmetic makes of it, against CPython's
HOSTILE = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -7.25, 1e-310, 1e-300, 1e300, math.inf, -math.inf, math.nan, 3.0]


def _argument(rng: random.Random, t: str, lanes: int):
    def one():
        if t == "bool":
            return rng.random() < 0.5
        if t == "int":
            return rng.choice([rng.randint(-10, 20), rng.randint(-(2**40), 2**40), 0, 1, -1, 2**62])
        return rng.choice(HOSTILE) if rng.random() < 0.3 else rng.uniform(-10.0, 10.0)

    dtype = {"bool": np.bool_, "int": np.int64, "float": np.float64}[t]
    if rng.random() < 0.15:
        return dtype(one()) if t != "bool" else bool(one())  # uniform
    return np.array([one() for _ in range(lanes)], dtype=dtype)


@pytest.mark.parametrize("chunk", range(3))
def test_fuzz_programs_on_jax(chunk):
    refused = 0
    for k in range(chunk, PROGRAMS, 3):
        seed = FIRST_SEED + k
        program = random_program(seed)
        module = load(program.source())
        rng = random.Random(seed)
        lanes = rng.randint(4, 12)
        args = [_argument(rng, t, lanes) for _, t in program.params]
        vf = vectorize(module.f, backend="jax", exact=False, fallback="error")
        with warnings.catch_warnings(), time_limit(120.0, f"program {seed}"):
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                vf(*args)  # generates the code (a refusal), or computes; check() compares
            except VectorizeError as exc:
                if "a vectorizer bug" in str(exc):
                    raise AssertionError(f"seed {seed}: {exc}\n{program.source()}") from exc
                if is_refusal(exc):  # refused while generating the code (not a lane's runtime error)
                    refused += 1
                    continue
            except Exception as exc:  # noqa: BLE001 - the scalar function's own, on its first failing lane:
                raised = exc  # check() below asserts it is that, type and message
                assert not isinstance(raised, AssertionError) or program.source().count("assert"), raised
            try:
                check(vf, module.f, *args, rel=REL if program.classb else 0.0)
            except AssertionError as exc:
                raise AssertionError(f"seed {seed} (classb={program.classb}): {exc}\n{program.source()}") from exc
    assert refused < PROGRAMS // 3 + 1, f"{refused} refusals: the check ran on too few programs"
