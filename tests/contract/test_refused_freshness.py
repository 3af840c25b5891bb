"""A refused function's globals (issue 51 part 1): the fallback's values are the loop's, whatever
the globals hold now, and a refusal's freshness check is cheap (engine/fingerprint.py
`Generations.refused`).

A call served by a refusal checks what the function's own module's code reads at every call
(`Generation.narrow`), and all it depends on (what the code of other modules it reaches reads:
thousands of names for a function that calls scipy) once every `CHECK_LANES` lanes a name run
element by element. A changed global then only delays trying to vectorize again; the values are
the scalar function's own on each lane. A kernel that is not a refusal is only ever served after
the full check (`Generations.current`): never stale.
"""

from __future__ import annotations

import importlib.util
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from oracle import check

from vectorizer import FallbackWarning, VectorizeError, vectorize
from vectorizer.engine.fingerprint import Generations

HELPER = '''\
FACTOR = 2.0


def scale(x):
    return x * FACTOR
'''

ROOT = '''\
import {helper} as helper

OFFSET = 1.0


def ones():
    yield 1.0


def refused(x):
    for v in ones():  # a generator: refused, run element by element
        x = x + v
    return helper.scale(x) + OFFSET


def objects(x, unit):
    if x is None:
        return -OFFSET
    return helper.scale(x) if unit == "km" else x


def batched(x):
    return helper.scale(x) + OFFSET


def defaults(x, y, k=2.0, kc=None, unit="m"):
    for v in ones():  # refused
        x = x + v
    out = x * k + y if kc is None else x * kc
    return (out, 0) if unit == "m" else (0, out)


def defaults_batched(x, y, k=2.0, kc=None, unit="m"):
    out = x * k + y if kc is None else x * kc
    return out if unit == "m" else -out
'''

X = np.array([-2.5, -0.0, 0.0, 0.3, 1.0, 7.0, 1e308, 5e-324, np.inf, -np.inf, np.nan])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def _load(name: str, path: Path, text: str) -> types.ModuleType:
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def mods(tmp_path: Path, request: pytest.FixtureRequest):
    tag = request.node.name.replace("[", "_").replace("]", "").replace("-", "_")
    helper = _load(f"refusedhelper_{tag}", tmp_path / f"refusedhelper_{tag}.py", HELPER)
    root = _load(f"refusedroot_{tag}", tmp_path / f"refusedroot_{tag}.py", ROOT.format(helper=helper.__name__))
    yield root, helper
    sys.modules.pop(root.__name__, None)
    sys.modules.pop(helper.__name__, None)


def _quiet(vf, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        return vf(*args, **kwargs)


def _loop(f, *args):
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return [f(*t) for t in zip(*[np.broadcast_to(a, shape).ravel().tolist() for a in args])]


@pytest.mark.parametrize("backend", BACKENDS)
def test_fallback_values_follow_changed_globals(mods, backend: str) -> None:
    """Its own module's global and one another module's code reads: each change shows at the
    next call, whether or not the refusal is checked again then."""
    root, helper = mods
    vf = vectorize(root.refused, backend=backend)
    with pytest.warns(FallbackWarning, match="generator"):
        check(vf, root.refused, X)
    for module, name, value in [(root, "OFFSET", -3.5), (helper, "FACTOR", 0.5), (helper, "FACTOR", -0.0),
                                (root, "OFFSET", 2), (helper, "FACTOR", float("nan"))]:
        setattr(module, name, value)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FallbackWarning)
            check(vf, root.refused, X)
            check(vf, root.refused, X[:1])
        assert vf.backend == "python"


def test_objects_follow_changed_globals(mods) -> None:
    root, helper = mods
    vf = vectorize(root.objects)
    x = np.array([1.5, None, -2.0, 0.25], dtype=object)
    with pytest.warns(FallbackWarning):
        assert vf(x, "km").tolist() == _loop(root.objects, x, "km")
    for module, name, value in [(root, "OFFSET", 4.0), (helper, "FACTOR", 3.0)]:
        setattr(module, name, value)
        assert _quiet(vf, x, "km").tolist() == _loop(root.objects, x, "km")


def test_own_module_change_is_checked_at_the_next_call(mods) -> None:
    root, _ = mods
    vf = vectorize(root.refused)
    _quiet(vf, X)
    first = vf._generations.latest()
    _quiet(vf, X)
    assert vf._generations.latest() is first  # nothing changed: the same generation
    root.OFFSET = 5.0
    with pytest.warns(FallbackWarning):  # the new generation's refusal, said once
        np.testing.assert_array_equal(vf(X[:1]), _loop(root.refused, X[:1]))
    assert vf._generations.latest() is not first


def test_other_modules_reads_are_checked_within_the_lane_budget(mods) -> None:
    """What another module's code reads is checked once the lanes run element by element since
    the last check reach `CHECK_LANES` a watched name: at that call, not before, not later."""
    root, helper = mods
    vf = vectorize(root.refused)
    _quiet(vf, X)
    gen = vf._generations.latest()
    assert gen.narrow() is not gen.watch and gen.narrow().size < gen.watch.size  # FACTOR: the helper's
    budget = Generations.CHECK_LANES * gen.watch.cost
    helper.FACTOR = 7.0
    lanes = 0
    while lanes + X.size < budget:
        np.testing.assert_array_equal(_quiet(vf, X), _loop(root.refused, X))  # the new FACTOR's values
        lanes += X.size
        assert vf._generations.latest() is gen  # not checked yet: the refusal holds meanwhile
    np.testing.assert_array_equal(_quiet(vf, X), _loop(root.refused, X))
    assert vf._generations.latest() is not gen  # checked: a new generation (FACTOR's), refused again


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_kernel_beside_a_refusal_is_never_stale(mods, monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """One key vectorized, another refused in the same generation: the refused key's calls take
    the cheap check (here one that never sees a change, and no lane budget), the vectorized
    key's calls the full one: after a change, its code is made again."""
    root, helper = mods
    vf = vectorize(root.batched, backend=backend, fallback="warn")
    check(vf, root.batched, X)
    assert vf.backend != "python"
    gen = vf._generations.latest()
    ints = np.arange(-3, 4)
    vf(ints)
    int_key = vf._last
    gen.kernels[int_key] = VectorizeError("refused for ints (this test's)")  # a refusal of one key
    vf._fast = None  # (the short path of the ints' kernel, which the refusal replaces)
    monkeypatch.setattr(Generations, "CHECK_LANES", 10**12)
    gen._narrow = types.SimpleNamespace(fresh=lambda: True)  # a cheap check that sees nothing
    with pytest.warns(FallbackWarning, match="this test's"):
        np.testing.assert_array_equal(vf(ints), _loop(root.batched, ints))
    for module, name, value in [(helper, "FACTOR", 3.0), (root, "OFFSET", -1.25)]:
        setattr(module, name, value)
        np.testing.assert_array_equal(_quiet(vf, ints), _loop(root.batched, ints))  # the refusal: the loop's
        check(vf, root.batched, X)  # the vectorized key: new code, the new values
        assert vf.backend != "python"
    assert vf._generations.latest() is not gen


def test_disabled_reads_the_globals_as_they_are(mods, monkeypatch: pytest.MonkeyPatch) -> None:
    root, helper = mods
    vf = vectorize(root.batched)
    monkeypatch.setenv("VECTORIZER_DISABLE", "1")
    for value in (2.0, -4.0):
        helper.FACTOR = value
        np.testing.assert_array_equal(vf(X), _loop(root.batched, X))


@pytest.mark.parametrize("name", ["defaults", "defaults_batched"])
def test_a_call_that_leaves_defaults(mods, name: str) -> None:
    """Fewer arguments than parameters: the rest take their defaults (None, a str, a number), as
    a call that names them all does, refused (a tuple of results, each lane's) or not."""
    root, _ = mods
    f = getattr(root, name)
    vf = vectorize(f)
    x, y = X[:6], np.array([1.0, -2.0, 0.5])[:, None]
    for args in [(x, y), (x, y, 3.0), (x, y, 3.0, 0.5), (x, y, 3.0, None, "km"), (x, 1)]:
        got = _quiet(vf, *args)
        want = _loop(f, *args)
        if isinstance(want[0], tuple):
            want = [np.array([w[k] for w in want]) for k in range(2)]
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g.ravel(), w)
        else:
            np.testing.assert_array_equal(got.ravel(), want)
        rest = {"k": 2.0, "kc": None, "unit": "m"}
        again = _quiet(vf, *args, **{n: rest[n] for n in list(rest)[len(args) - 2:]})  # the rest, named: bind()
        for g, a in zip(got if isinstance(got, tuple) else [got], again if isinstance(again, tuple) else [again]):
            np.testing.assert_array_equal(g, a)
    with pytest.raises(TypeError):
        vf(x)  # y has no default: as the scalar function, a TypeError
