"""Module globals are read at each call, as the scalar function reads them (issue 28, item 5).

A function that reads a module constant (or calls a same-module helper that does) must give, after
the constant is rebound (by a setter's `global`, by `mod.NAME = v`, to an int, a float, -0.0, a
bool), what the scalar function gives lane by lane now: with `@vectorize` on both backends and
through the real import hook in a fresh interpreter. A rebinding the engine cannot take (a str,
None, a tuple where a number was, a deleted name) falls back visibly (FallbackWarning, or
VectorizeError with fallback="error"; under the hook: the original function, as without the
hook), and the engine takes the function again once the value is a number again.

`PYTHONPATH=.:tests python tests/contract/test_global_freshness.py [numpy|numba]` (from the checkout;
tests/ for the oracle) prints the dispatch cost of a call of 1e3 lanes (median of many calls) for a
function that reads globals and one that reads none.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from oracle import check

import vectorizer
from vectorizer import FallbackWarning, VectorizeError, vectorize
from vectorizer.backends.numba import jit

KERN = '''\
import math

from vectorizer import vectorize

SCALE = 2.0
STEPS = 3
SIGN = 1.0


def set_scale(v):
    global SCALE
    SCALE = v


def set_steps(v):
    global STEPS
    STEPS = v


def helper(x: float) -> float:
    return x * SIGN


def helper_squared(x: float) -> float:
    return x * x - SIGN


def plain(x: float) -> float:
    return x * 2.0 + 1.0


def scaled(x: float) -> float:
    return x * SCALE


def via_helper(x: float) -> float:
    if x > 0.0:
        return helper(x) + SCALE
    return math.fabs(x) * SCALE


def absolute(x: float) -> float:
    return abs(x) * SCALE


def stepped(n: int) -> int:
    total = n
    for i in range(STEPS):
        total = total * 2 + i
    return total


@vectorize
def marked(x: float) -> float:
    return x - SCALE
'''

X = np.array([-2.5, -0.0, 0.0, 0.3, 1.0, 7.0, 1e308, 5e-324, np.inf, -np.inf, np.nan])
N = np.array([0, 1, -3, 2**40, 2**60, -(2**61)])  # 2**60 * 2**STEPS leaves int64 from STEPS = 3
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
ROOT = Path(vectorizer.__file__).resolve().parent.parent  # the vectorizer under test
TESTS = Path(__file__).resolve().parents[1]  # tests/: the oracle


def load(tmp_path: Path, name: str):
    """The kernel module, imported from a file of its own (the engine reads source)."""
    path = tmp_path / f"{name}.py"
    path.write_text(KERN)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def mod(tmp_path: Path, request: pytest.FixtureRequest):
    name = f"freshness_{request.node.name.replace('[', '_').replace(']', '').replace('-', '_')}"
    yield load(tmp_path, name)
    sys.modules.pop(name, None)


def batched(vf, f, *args, backend: str) -> None:
    """The oracle check, and proof that the batched code ran (no per-element fallback)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        check(vf, f, *args)
    assert vf.backend == backend


# -- the decorator -------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_decorator_reads_the_values_of_each_call(mod, backend: str) -> None:
    scaled, via = vectorize(mod.scaled, backend=backend), vectorize(mod.via_helper, backend=backend)
    stepped = vectorize(mod.stepped, backend=backend)
    batched(scaled, mod.scaled, X, backend=backend)
    changes = [lambda: mod.set_scale(3.0), lambda: setattr(mod, "SCALE", 4)]  # a setter; an int
    if backend == "numpy":  # each value is a Numba compile: the numpy backend takes the long list
        changes += [lambda v=v: setattr(mod, "SCALE", v) for v in (4.0, 0.0, -0.0, True, 1, 1e-310)]  # pairs equal by ==
    for change in changes:
        change()
        batched(scaled, mod.scaled, X, backend=backend)
        batched(via, mod.via_helper, X, backend=backend)
        assert f"SCALE = {mod.SCALE!r}" in scaled.source  # a new kernel, made from the new value
    mod.SIGN = -1.0  # read by the helper only
    batched(via, mod.via_helper, X, backend=backend)
    mod.SCALE = float("2.0")  # the first value again, another object
    batched(scaled, mod.scaled, X, backend=backend)
    for steps in (3, 0, 61):  # an int global deciding a trip count, and whether int64 overflows
        mod.set_steps(steps)
        with warnings.catch_warnings():
            warnings.simplefilter("error", FallbackWarning)
            check(stepped, mod.stepped, N)


def test_vmap_and_the_numpy_vectorize_front(mod) -> None:
    from vectorizer import vmap

    mapped, front = vmap(mod.via_helper), vectorize(mod.via_helper, otypes=[float])
    rows = X.reshape(1, -1).repeat(2, axis=0)
    for value in (2.0, 3, -0.5):
        mod.SCALE = value
        want = np.array([[mod.via_helper(v) for v in row] for row in rows.tolist()])
        for got in (mapped(rows[0]), front(rows)):
            np.testing.assert_array_equal(got, want[0] if got.ndim == 1 else want)


def test_equal_rebinding_keeps_the_kernels(mod) -> None:
    vf = vectorize(mod.scaled, backend="numpy")
    batched(vf, mod.scaled, X, backend="numpy")
    kernels = vf._kernels
    mod.SCALE = float("2.0")  # equal value, new object: same content hash, nothing generated
    batched(vf, mod.scaled, X, backend="numpy")
    assert vf._kernels is kernels
    first = kernels[vf._last]
    mod.set_scale(3.0)
    batched(vf, mod.scaled, X, backend="numpy")
    assert vf._kernels[vf._last] is not first
    mod.SCALE = float("2.0")  # back: the first kernel, from memory
    batched(vf, mod.scaled, X, backend="numpy")
    assert vf._kernels[vf._last] is first


def test_rebinding_a_helper(mod) -> None:
    via = vectorize(mod.via_helper, backend="numpy")
    batched(via, mod.via_helper, X, backend="numpy")
    mod.helper = mod.helper_squared  # another def of the module
    batched(via, mod.via_helper, X, backend="numpy")
    mod.helper = lambda x: x  # not a def of the module: refused, visibly
    with pytest.warns(FallbackWarning, match="helper"):
        check(via, mod.via_helper, X)


DELETE = object()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("value", "said"), [("ab", "SCALE"), (None, "SCALE"), ((1.0, 2.0), "tuple"), (DELETE, "SCALE")],
                         ids=["str", "None", "tuple", "deleted"])
def test_changed_type_falls_back_visibly(mod, backend: str, value: object, said: str) -> None:
    vf, strict = vectorize(mod.via_helper, backend=backend), vectorize(mod.via_helper, backend=backend, fallback="error")
    batched(vf, mod.via_helper, X, backend=backend)
    batched(strict, mod.via_helper, X, backend=backend)
    if value is DELETE:
        del mod.SCALE
    else:
        mod.SCALE = value
    with pytest.warns(FallbackWarning, match=said):
        check(vf, mod.via_helper, X)  # element by element: the scalar function's own exception
    assert vf.backend == "python"
    with pytest.raises(VectorizeError, match=said):
        strict(X)
    mod.SCALE = 2.0  # a number again: batched again, no warning
    batched(vf, mod.via_helper, X, backend=backend)
    batched(strict, mod.via_helper, X, backend=backend)


def test_rebinding_a_module_or_shadowing_a_builtin(mod) -> None:
    via, absolute = vectorize(mod.via_helper, backend="numpy"), vectorize(mod.absolute, backend="numpy")
    batched(via, mod.via_helper, X, backend="numpy")
    batched(absolute, mod.absolute, X, backend="numpy")
    mod.math = type("FakeMath", (), {"fabs": staticmethod(lambda v: -1.0)})()
    with pytest.warns(FallbackWarning, match="math"):
        check(via, mod.via_helper, X)
    mod.abs = lambda v: -v  # a module global now shadows the builtin the kernel was made with
    with pytest.warns(FallbackWarning, match="abs"):
        check(absolute, mod.absolute, X)
    del mod.abs
    batched(absolute, mod.absolute, X, backend="numpy")


def test_many_new_values_suggest_an_argument(mod) -> None:
    vf = vectorize(mod.scaled, backend="numpy")  # 20 specializations: NumPy's, which compile nothing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(20):
            mod.SCALE = 1.0 + i
            vf(X)
    said = [w for w in caught if "new values" in str(w.message)]
    assert len(said) == 1 and "SCALE" in str(said[0].message) and "argument" in str(said[0].message)
    assert said[0].filename == __file__  # the user's line


def test_threads_calling_while_another_rebinds(mod) -> None:
    vf = vectorize(mod.scaled)
    x = np.linspace(1.0, 2.0, 1000)  # a short-path call
    values = (2.0, 3.0, 5.0)
    for v in values:  # every kernel made up front: the threads race on switching, not on lowering
        mod.SCALE = v
        vf(x)
    stop, wrong, final = threading.Event(), [], []

    def caller() -> None:
        while not stop.is_set():
            got = vf(x)
            if not any(np.array_equal(got, x * v) for v in (*values, 7.0)):  # 7.0: the value set last
                wrong.append(got)
        final.append(vf(x))  # called after the last rebinding below

    def rebinder() -> None:
        for i in range(3000):
            mod.SCALE = float(values[i % 3])  # a new object each time

    threads = [threading.Thread(target=caller) for _ in range(2)]
    for t in threads:
        t.start()
    r = threading.Thread(target=rebinder)
    r.start()
    r.join()
    mod.SCALE = 7.0
    stop.set()
    for t in threads:
        t.join()
    assert not wrong  # every call ran one kernel, made from one value
    assert len(final) == 2 and all(np.array_equal(f, x * 7.0) for f in final)


# -- real processes: Numba's cache, the import hook ----------------------------------------------
def run(code: str, root: Path, env: dict[str, str] | None = None):
    """`code` in a fresh interpreter that imports this vectorizer, the tests' oracle and `root`."""
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "VECTORIZER_DISABLE")}
    path = [str(root), str(ROOT), str(TESTS), *os.environ.get("PYTHONPATH", "").split(os.pathsep)]
    environ.update({"PYTHONPATH": os.pathsep.join(p for p in path if p), **(env or {})})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=root, env=environ,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture
def pkg(tmp_path: Path) -> Path:
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "kern.py").write_text(KERN)
    return tmp_path


@pytest.mark.numba
def test_numba_cache_is_keyed_by_the_values(pkg: Path, tmp_path: Path) -> None:
    """A second process whose first value is the first process's second must not get a kernel
    made for another value from Numba's (or vectorizer's) on-disk cache."""
    code = '''
        import json, sys, warnings, numpy as np
        from oracle import check
        from vectorizer import FallbackWarning, vectorize
        import mypkg.kern as k
        warnings.simplefilter("error", FallbackWarning)
        vf = vectorize(k.via_helper, backend="numba")
        x = np.array([-2.5, -0.0, 0.3, 7.0, np.inf, np.nan])
        for value in VALUES:
            k.SCALE = value
            check(vf, k.via_helper, x)
        print(json.dumps(vf.backend))
    '''
    env = {"VECTORIZER_CACHE_DIR": str(tmp_path / "cache")}
    assert run("VALUES = (2.0, 3.0)" + textwrap.dedent(code), pkg, env) == "numba"
    assert run("VALUES = (3.0, 2.0, 4)" + textwrap.dedent(code), pkg, env) == "numba"


HOOKED = '''
import json, warnings, numpy as np
from oracle import check
from vectorizer import FallbackWarning, VectorizedFunction
from vectorizer.faces.importhook import install_import_hook, ImportHookWarning
install_import_hook(["mypkg"], backend=BACKEND)
import mypkg.kern as k
warnings.simplefilter("error", FallbackWarning)
warnings.simplefilter("error", ImportHookWarning)
x = np.array([-2.5, -0.0, 0.0, 0.3, 1.0, 7.0, 1e308, 5e-324, np.inf, -np.inf, np.nan])
n = np.array([0, 1, -3, 2**40, 2**60])
out = []

def batched(*names):  # each against the scalar oracle, and proof that batched code ran
    for name in names:
        f = getattr(k, name)
        check(f, f.scalar, x)
        vf = f.vectorized
        out.append([name, type(vf).__name__, vf.backend, f"SCALE = {k.SCALE!r}" in vf.source])

def outcome(f):
    try:
        return ["value", repr(f(x).tolist())]
    except Exception as exc:
        return [type(exc).__name__, str(exc)]

batched("scaled", "via_helper")
k.set_scale(3.0)
batched("scaled", "via_helper", "marked")
k.SCALE = 4
batched("scaled", "via_helper")
k.SIGN = -1.0
batched("via_helper")
k.set_steps(5)
check(k.stepped, k.stepped.scalar, n)
k.set_steps(0)
check(k.stepped, k.stepped.scalar, n)
k.SCALE = "ab"  # before the first array call of `absolute`: refused at that call (a str global may be
# compared by a specialization, so the fence at decoration lets it pass), which runs the original
out.append(["changed", "first", outcome(k.absolute) == outcome(k.absolute.scalar)])
k.SCALE = 2.0
batched("absolute")
for value in CHANGED:
    if value == "DELETE":
        del k.SCALE
    else:
        k.SCALE = value
    # refused for these values: the array call runs the original, as without the hook
    out.append(["changed", repr(value), outcome(k.via_helper) == outcome(k.via_helper.scalar)])
    k.SCALE = 2.0
    batched("via_helper")  # a number again: batched again
print(json.dumps(out))
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_import_hook_reads_the_values_of_each_call(pkg: Path, tmp_path: Path, backend: str) -> None:
    changed = ["ab", None, (1.0, 2.0), "DELETE"] if backend == "numpy" else ["ab", "DELETE"]
    out = run(f"BACKEND = {backend!r}\nCHANGED = {changed}\n" + HOOKED, pkg,
              {"VECTORIZER_CACHE_DIR": str(tmp_path / "cache")})
    rows = [r for r in out if r[0] != "changed"]
    assert rows and all(r[1] == "VectorizedFunction" and r[3] for r in rows), rows
    default = "numba" if jit.available() else "numpy"  # `marked` is @vectorize'd: the default route
    assert all(r[2] == (backend if r[0] != "marked" else default) for r in rows), rows
    flips = [r for r in out if r[0] == "changed"]
    assert len(flips) == len(changed) + 1 and all(r[2] for r in flips), flips


# -- the dispatch cost ---------------------------------------------------------------------------
def _dispatch_cost(backends: list[str]) -> None:
    import statistics
    import tempfile
    import time

    with tempfile.TemporaryDirectory() as tmp:
        module = load(Path(tmp), "freshness_bench")
        x = np.linspace(0.0, 1.0, 1000)
        for backend in backends:  # plain reads no global, scaled one, via_helper three and `math`
            fns = {name: vectorize(getattr(module, name), backend=backend) for name in ("plain", "scaled", "via_helper")}
            for vf in fns.values():
                vf(x)
            samples: dict[str, list[float]] = {name: [] for name in fns}
            for _ in range(40):  # interleaved rounds: the VM's load drifts
                for name, vf in fns.items():
                    times = []
                    for _ in range(250):
                        t0 = time.perf_counter_ns()
                        vf(x)
                        times.append(time.perf_counter_ns() - t0)
                    samples[name].append(statistics.median(times) / 1000)
            for name, vals in samples.items():
                print(f"{backend:6} {name:10} {statistics.median(vals):6.2f} µs a call at 1e3 lanes "
                      f"(median of 40 x 250 calls)")


if __name__ == "__main__":
    _dispatch_cost(sys.argv[1:] or ["numpy", "numba"])
