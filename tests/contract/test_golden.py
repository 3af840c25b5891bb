"""Golden tests: the generated code for every fixture is pinned, and every fixture's batched
function is checked against its scalar function on hostile inputs.

fixtures/<case>/input.py starts with `# vectorize: name(x: float[], n: int)` naming the function
and the specialization ([] = batched, otherwise uniform), optionally `ints=lo..hi` to bound the
ints the differential test draws. The expected output is fixtures/<case>/expected.py (generated
module) or fixtures/<case>/expected.txt (the error for a refused function). expected.py pins the
module up to its carried helpers, which a last comment names instead; each helper is pinned once,
in fixtures/helpers/<its name>.py, so that editing one changes one golden file.
Regenerate with `python -m pytest tests/contract/test_golden.py --update-goldens` and review the diff.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check, libm_ulps, numba_or_numpy
from strategies import floats, ints

from vectorizer import VectorizeError, vectorize
from vectorizer.api import prepare
from vectorizer.codegen import carry
from vectorizer.core.types import ArrayType, Val, type_of_dtype
from vectorizer.options import Options
from vectorizer.pipeline import Statics, lower

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
HELPERS = FIXTURES / "helpers"
CARRIES = "# carried helpers (fixtures/helpers/): "
CASES = sorted(d.name for d in FIXTURES.iterdir() if (d / "input.py").exists())
HEADER = re.compile(r"# vectorize: (\w+)\((.*?)\)(?:\s+ints=(-?\d+)\.\.(-?\d+))?(\s+reassociate)?\s*$")
PARAM = re.compile(r"(\w+)\s*:\s*(float|int|bool)(\([\d,\s]*\))?(\[\])?")


def load(case: str):
    path = FIXTURES / case / "input.py"
    match = HEADER.match(path.read_text().splitlines()[0])
    assert match, f"{path}: first line must be '# vectorize: name(params)'"
    name, spec, lo, hi, reassociate = match.groups()
    params = {}
    for pname, ptype, shape, batched in PARAM.findall(spec):
        t = type_of_dtype({"float": "f", "int": "i", "bool": "b"}[ptype])
        params[pname] = Val(ArrayType(t, tuple(int(d) for d in shape.strip("()").split(",") if d.strip())) if shape else t,
                            bool(batched))
    module_spec = importlib.util.spec_from_file_location(f"fixture_{case}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    bounds = (int(lo), int(hi)) if lo is not None else None
    return getattr(module, name), params, bounds, Options(reassociate=bool(reassociate))


def generate(case: str) -> tuple[str, str]:
    """(file name, text): the generated module, or the error message for a refused function."""
    fn, params, _, options = load(case)
    # parameters the header leaves out take their defaults, the values the code is specialized on
    defaults = {n: p.default for n, p in inspect.signature(fn).parameters.items() if n not in params}
    try:
        parsed, namespace = prepare(fn)
        return "expected.py", lower(parsed, namespace, params, options, statics=Statics(defaults, {})).source
    except VectorizeError as exc:
        return "expected.txt", str(exc).replace(str(FIXTURES / case) + "/", "") + "\n"


def split_helpers(text: str) -> tuple[str, list[str]]:
    """(the module with its carried helpers replaced by a comment naming them, their names)."""
    keys = carry.closure({n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}, carry.RUNTIME)
    helpers = carry.carry([carry.emitted(k) for k in keys], carry.RUNTIME)
    if not keys:
        return text, []
    assert text.endswith("\n\n\n" + helpers + "\n"), "a module's carried helpers come last, each once"
    kernel = text[:len(text) - len(helpers) - 1]
    return kernel + CARRIES + ", ".join(carry.emitted(k) for k in keys) + "\n", keys


def write_or_compare(path: Path, text: str, update: bool) -> None:
    if update:
        path.write_text(text)
    assert path.exists(), f"missing {path}: run pytest tests/contract/test_golden.py --update-goldens"
    assert text == path.read_text(), (
        f"{path} changed; review, then run `python -m pytest tests/contract/test_golden.py --update-goldens`")


@pytest.mark.parametrize("case", CASES)
def test_golden(case, request):
    name, text = generate(case)
    update = request.config.getoption("--update-goldens")
    if update:
        for stale in ("expected.py", "expected.txt"):
            (FIXTURES / case / stale).unlink(missing_ok=True)
    if name == "expected.py":
        compile(text, name, "exec")
        text, _ = split_helpers(text)
    write_or_compare(FIXTURES / case / name, text, update)


@pytest.mark.parametrize("key", list(carry.RUNTIME))
def test_helper_golden(key, request):
    """Each helper a generated module may carry, as the module carries it (pinned once)."""
    module, deps = carry.RUNTIME[key]
    HELPERS.mkdir(exist_ok=True)
    write_or_compare(HELPERS / f"{carry.emitted(key)}.py", carry.helper_source(module.__name__, key, deps) + "\n",
                     request.config.getoption("--update-goldens"))


@pytest.mark.parametrize("case", CASES)
def test_generation_is_deterministic(case):
    assert generate(case) == generate(case)


def test_enough_cases():
    refusals = [c for c in CASES if c.startswith("reject_")]
    assert len(CASES) - len(refusals) >= 30 and len(refusals) >= 10


SUCCESS = [c for c in CASES if not c.startswith("reject_")]
# Fixtures whose result is a sum of libm results (or of their positive multiples), non-decreasing
# in each: on NumPy within the bound derived from rules.ULP_BOUND a call (oracle.libm_ulps); on
# Numba, whose calls are the C library's as CPython's, bit for bit.
LIBM_SUMS = {"math_functions": ("exp", "log1p", "atan2", "hypot"), "shared_branch_math": ("exp", "log1p", "log")}


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba)])
@pytest.mark.parametrize("case", SUCCESS)
def test_fixture_matches_scalar_oracle(case, backend):
    if backend == "numba":
        pytest.importorskip("numba")
    fn, params, bounds, options = load(case)
    if backend == "numba" and any(isinstance(v.type, ArrayType) for v in params.values()):
        pytest.skip("the Numba backend works on functions of numbers")
    lo, hi = bounds or (-(2**63), 2**63 - 1)
    elements = {"float": floats(), "int": ints(lo, hi), "bool": st.booleans()}
    dtypes = {"float": np.float64, "int": np.int64, "bool": np.bool_}
    if backend == "numba":  # NumPy's own kernels on this CPU: the Numba backend refuses, auto runs NumPy
        sample = [np.ones((1,) + (v.type.shape if isinstance(v.type, ArrayType) else ()),
                          dtype={"float": np.float64, "int": np.int64, "bool": np.bool_}[
                              (v.type.elem if isinstance(v.type, ArrayType) else v.type).value]) for v in params.values()]
        vf = numba_or_numpy(fn, sample, fallback="error", reassociate=options.reassociate)
    else:
        vf = vectorize(fn, fallback="error", backend=backend, reassociate=options.reassociate)
    ndims = [len(v.type.shape) if isinstance(v.type, ArrayType) else 0 for v in params.values()]

    def strategy(n):
        parts = []
        for val in params.values():
            t = val.type.elem.value if isinstance(val.type, ArrayType) else val.type.value
            shape = val.type.shape if isinstance(val.type, ArrayType) else ()
            count = (n if val.batched else 1) * int(np.prod(shape, dtype=int))
            full = ((n,) if val.batched else ()) + shape
            parts.append(st.lists(elements[t], min_size=count, max_size=count).map(
                lambda xs, t=t, full=full: np.array(xs, dtype=dtypes[t]).reshape(full)))
        return st.tuples(*parts)

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(st.integers(0, 12).flatmap(strategy))
    def run(args):
        ulps = 4
        if case in LIBM_SUMS:
            ulps = 0 if backend == "numba" else libm_ulps(fn, *args, names=LIBM_SUMS[case])
        check(vf, fn, *args, ulps=ulps, rel=1e-12 if options.reassociate else 0.0,
              example_ndims=ndims if any(ndims) else None)
        assert vf.backend == (backend if vf.options.backend != "auto" else "numpy")

    run()
