"""Issue 49, rows 2, 3 and 17: calls evaluated when the code is generated are provably pure, their
values stay current, and NumPy's values are NumPy's on every CPU kind.

Row 2: a classmethod's baked value must follow a rebinding (or an in-place change) of the class
attribute it reads, in the same process; and a module global it reads, in a new process (the disk
cache must not serve the old value); the environment and files are never read at generation.
Row 3: calls in branches no lane takes must not print, warn, run a command, sleep, exit or raise
KeyboardInterrupt; `random.random()` behind a classmethod is drawn per lane, as the loop draws it.
Row 17: where the code calls NumPy (`np.exp`, `np.sum` of a table power), the values are NumPy's
on both backends and with `backend="auto"`.

The process-level scenarios run in real, fresh Python processes with a private cache.
"""

from __future__ import annotations

import json
import math
import operator
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from vectorizer import FallbackWarning, VectorizeError, vectorize

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

HELPERS = '''\
import math, operator, os, random, time, warnings

SCALE = {scale}
MODE = "{mode}"
COMBINE = operator.{combine}


class Cfg:
    factor = 2.0
    table = {{"a": 1.5, "b": -4.0}}

    @classmethod
    def gain(cls, name):
        return cls.factor * cls.table[name]

    @classmethod
    def scaled(cls, name):
        return SCALE * cls.table[name]

    @classmethod
    def from_env(cls, name):
        return float(os.environ.get(name, "1.0"))

    @classmethod
    def from_file(cls, path):
        with open(path) as f:
            return float(f.read())

    @classmethod
    def printing(cls, name):
        print("SIDE EFFECT", name)
        return 1.0

    @classmethod
    def warning(cls, name):
        warnings.warn("SIDE EFFECT " + name)
        return 1.0

    @classmethod
    def command(cls, path):
        os.system("touch " + path)
        return 1.0

    @classmethod
    def sleeping(cls, name):
        time.sleep(60)
        return 1.0

    @classmethod
    def exiting(cls, name):
        raise SystemExit(3)

    @classmethod
    def interrupting(cls, name):
        raise KeyboardInterrupt

    @classmethod
    def drawn(cls, name):
        return random.random()

    @classmethod
    def endless(cls, name):
        n = 0
        while n >= 0:
            n += 1
        return 1.0

    @classmethod
    def missing(cls, name):
        return cls.table[name]
'''

USERS = '''\
import helpers
from helpers import Cfg


def moded(x):
    if helpers.MODE == "fast":
        return x + 1.0
    return x - 1.0


def combined(x):
    return helpers.COMBINE(x, 3.0)


def gain(x):
    return x * Cfg.gain("a")


def scaled(x):
    return x * Cfg.scaled("b")


def from_env(x):
    return x * Cfg.from_env("VZ_TEST_SCALE")


def from_file(x):
    return x * Cfg.from_file("{file}")


def drawn(x):
    return x + Cfg.drawn("a")


def missing(x):
    if x > 0.0:
        return x + Cfg.missing("zz")
    return x


def endless(x):
    if x > 1e300:
        return Cfg.endless("a")
    return x
'''
for name in ("printing", "warning", "command", "sleeping", "exiting", "interrupting"):
    USERS += f'''

def {name}(x):
    if x > 1e300:  # no lane takes it
        return x * Cfg.{name}("{{marker}}")
    return -x
'''


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """helpers.py and users.py in a fresh folder, imported fresh."""
    (tmp_path / "value.txt").write_text("5.0")
    (tmp_path / "helpers.py").write_text(HELPERS.format(scale=2.0, mode="fast", combine="mul"))
    (tmp_path / "users.py").write_text(USERS.format(file=tmp_path / "value.txt", marker=tmp_path / "marker"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("VECTORIZER_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("helpers", "users"):
        sys.modules.pop(name, None)
    import helpers
    import users

    yield helpers, users
    for name in ("helpers", "users"):
        sys.modules.pop(name, None)


X = np.array([-2.0, 0.5, 3.0, 1e-300, -0.0])


def loop(f, x=X):
    return [f(v) for v in x.tolist()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rebound_class_attribute_makes_new_code_in_process(modules, backend):
    helpers, users = modules
    vf = vectorize(users.gain, backend=backend, fallback="error")
    assert vf(X).tolist() == loop(users.gain)
    helpers.Cfg.factor = 7.0  # rebound
    assert vf(X).tolist() == loop(users.gain) == (X * 7.0 * 1.5).tolist()
    helpers.Cfg.table["a"] = -0.25  # changed in place
    assert vf(X).tolist() == loop(users.gain) == (X * 7.0 * -0.25).tolist()


def run_script(tmp_path: Path, script: str, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}",
            "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), **(env or {})}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          env=full, timeout=timeout, cwd=tmp_path)


CALL = """\
    import json, warnings
    import numpy as np
    import users
    from vectorizer import vectorize
    x = np.array([-2.0, 0.5, 3.0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = vectorize(users.{name}, backend="{backend}")(x).tolist()
    print(json.dumps({{"got": got, "loop": [users.{name}(v) for v in x.tolist()],
                       "warnings": [getattr(w.message, "code", str(w.message)) for w in seen]}}))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_global_a_baked_call_reads_is_in_the_disk_cache_key(modules, tmp_path, backend):
    first = run_script(tmp_path, CALL.format(name="scaled", backend=backend))
    assert first.returncode == 0, first.stderr
    (tmp_path / "helpers.py").write_text(HELPERS.format(scale=3.0, mode="fast", combine="mul"))  # another process
    second = run_script(tmp_path, CALL.format(name="scaled", backend=backend))
    assert second.returncode == 0, second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert a["got"] == a["loop"] == [-2.0 * 2.0 * -4.0, 0.5 * 2.0 * -4.0, 3.0 * 2.0 * -4.0]
    assert b["got"] == b["loop"] == [-2.0 * 3.0 * -4.0, 0.5 * 3.0 * -4.0, 3.0 * 3.0 * -4.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rebound_module_attribute_decided_on_makes_new_code(modules, backend):
    """A str compared, a function of the operator module called: both read from another module when
    the code is generated, and both rebound since (a generation whose key missed them once
    shared the old kernels: stale values)."""
    helpers, users = modules
    moded, combined = (vectorize(f, backend=backend, fallback="error") for f in (users.moded, users.combined))
    assert moded(X).tolist() == loop(users.moded) == (X + 1.0).tolist()
    assert combined(X).tolist() == loop(users.combined) == (X * 3.0).tolist()
    helpers.MODE, helpers.COMBINE = "slow", operator.add
    assert moded(X).tolist() == loop(users.moded) == (X - 1.0).tolist()
    assert combined(X).tolist() == loop(users.combined) == (X + 3.0).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_attribute_decided_on_is_in_the_disk_cache_key(modules, tmp_path, backend):
    runs = []
    for mode, combine in (("fast", "mul"), ("slow", "sub")):
        (tmp_path / "helpers.py").write_text(HELPERS.format(scale=2.0, mode=mode, combine=combine))
        for name in ("moded", "combined"):
            run = run_script(tmp_path, CALL.format(name=name, backend=backend))
            assert run.returncode == 0, run.stderr
            runs.append(json.loads(run.stdout))
    x = [-2.0, 0.5, 3.0]
    assert [r["got"] for r in runs] == [r["loop"] for r in runs] == [
        [v + 1.0 for v in x], [v * 3.0 for v in x], [v - 1.0 for v in x], [v - 3.0 for v in x]]


@pytest.mark.parametrize("name", ["from_env", "from_file"])
def test_the_environment_and_files_are_never_read_when_the_code_is_generated(modules, tmp_path, name):
    outcomes = []
    for value in ("5.0", "-0.5"):
        (tmp_path / "value.txt").write_text(value)
        done = run_script(tmp_path, CALL.format(name=name, backend="numpy"), env={"VZ_TEST_SCALE": value})
        assert done.returncode == 0, done.stderr
        outcomes.append(json.loads(done.stdout))
    for found, value in zip(outcomes, (5.0, -0.5)):
        assert found["got"] == found["loop"] == [-2.0 * value, 0.5 * value, 3.0 * value]
        assert "VEC-CALL" in found["warnings"]  # refused, visibly: it reads outside its arguments
    _, users = modules
    with pytest.raises(VectorizeError, match="cannot be evaluated when the code is generated"):
        vectorize(getattr(users, name), fallback="error")(X)


SIDE_EFFECTS = """\
    import sys, warnings
    import numpy as np
    import users
    from vectorizer import vectorize
    x = np.array([-2.0, 0.5, 3.0])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = vectorize(users.{name}, backend="{backend}")(x).tolist()
    assert got == [users.{name}(v) for v in x.tolist()], got
    print("DONE", [str(w.message).splitlines()[0] for w in seen if "SIDE EFFECT" in str(w.message)])
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["printing", "warning", "command", "sleeping", "exiting", "interrupting"])
def test_calls_in_branches_no_lane_takes_never_run(modules, tmp_path, name, backend):
    done = run_script(tmp_path, SIDE_EFFECTS.format(name=name, backend=backend), timeout=45)  # sleeping: 60 s
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "DONE []", done.stdout  # no print, no warning of the callee
    assert "SIDE EFFECT" not in done.stdout + done.stderr
    assert not (tmp_path / "marker").exists(), "os.system ran"


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_behind_a_classmethod_is_drawn_per_lane(modules, backend):
    import random

    _, users = modules
    random.seed(7)
    expected = loop(users.drawn)
    random.seed(7)
    with pytest.warns(FallbackWarning, match="random numbers"):
        got = vectorize(users.drawn, backend=backend)(X).tolist()
    assert got == expected and len(set(g - x for g, x in zip(got, X.tolist()))) > 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pure_call_that_raises_is_the_exception_of_the_lanes_that_reach_it(modules, backend):
    _, users = modules
    vf = vectorize(users.missing, backend=backend, fallback="error")
    negative = np.array([-1.0, -2.0, -0.0])
    assert vf(negative).tolist() == loop(users.missing, negative)  # no lane reaches the call
    with pytest.raises(KeyError) as info:
        vf(np.array([-1.0, 2.0, 3.0]))
    with pytest.raises(KeyError) as expected:
        loop(users.missing, np.array([-1.0, 2.0, 3.0]))
    assert info.value.args == expected.value.args


def test_a_call_that_does_not_finish_is_refused_not_waited_for(modules):
    _, users = modules
    with pytest.raises(VectorizeError, match="did not finish within"):
        vectorize(users.endless, fallback="error")(X)


# -- row 17: NumPy's values where the code asks for NumPy -------------------------------------------------
TABLE_N = np.array([0.14632971213167, -0.84548187169114, -3.756360367204, 3.3855169168385, -0.95791963387872])
TABLE_I = np.array([0, 0, 1, 1, 2])
TABLE_J = np.array([-2, -1, 0, 1, 2])


def table_power(p: float, t: float) -> float:
    return np.sum(TABLE_N * (7.1 - p) ** TABLE_I * (t - 1.222) ** TABLE_J)


def numpy_math(x: float) -> float:
    return np.exp(x) - np.sin(x) + np.log1p(abs(x)) + np.arctan2(x, 2.0)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=pytest.mark.numba),
                                     pytest.param("auto", marks=pytest.mark.numba)])
def test_numpy_in_user_code_gives_numpys_values_on_every_backend(backend):
    rng = np.random.default_rng(49)
    p, t = rng.uniform(0.1, 7.0, 3000), rng.uniform(1.3, 5.0, 3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)  # refused on Numba: NumPy's own kernels here
        got = vectorize(table_power, backend=backend)(p, t)
        got_math = vectorize(numpy_math, backend=backend)(p)
    expected = [table_power(a, b) for a, b in zip(p.tolist(), t.tolist())]
    assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in expected]
    assert got.tolist() == expected  # bit for bit: the oracle called NumPy lane by lane
    assert got_math.tolist() == [numpy_math(a) for a in p.tolist()]
