"""The static path (`vectorizer report`, `vectorizer generate`: the source read, never run) and the
run-time path (`@vectorize`: the module imported, its globals read at the call) give the same
verdict on the same functions, and the generated module computes what the scalar function does.

The module below binds its constants in every way a module's top level can that the source alone
decides (tuple unpacking, chains, annotations, rebinding, augmented assignment, deletion); the
static path once refused `A0, A1, A2 = 0.1, -0.2, 126.9`, which @vectorize accepts, and wrote
`X = 1.0` for `X = 1.0; X += 1.0` into the generated module.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import textwrap

import numpy as np
import pytest

from vectorizer import VectorizeError, vectorize
from vectorizer.faces.cli.main import main

MODULE = textwrap.dedent('''\
    import math

    A0, A1, A2 = 0.1, -0.2, 126.9
    (B0, B1) = (1.0, 2.0)
    [L0, L1] = 3, 4.5
    (N0, (N1, N2)) = (1.0, (2.0, 3))
    C = D = 3.0
    E: float = 2.5
    X = 1.0
    X += 1.0
    Y = 1.0
    Y = 5.0 * Y
    S, T = 1.0, 2.0
    S, T = T, S
    GONE = 1.0
    del GONE
    COEFFS = (1.0, -2.0, 0.5)
    P, Q = COEFFS[0], 7


    def poly(t: float) -> float:
        return A0 + A1 * t + A2 * t * t


    def paren(t: float) -> float:
        return B0 + B1 * t + L0 * L1


    def nested(t: float) -> float:
        return N0 * t + N1 - N2


    def chained(t: float) -> float:
        return C * t + D


    def annotated(t: float) -> float:
        return E * t


    def augmented(t: float) -> float:
        return X * t


    def rebound(t: float) -> float:
        return Y * t


    def swapped(t: float) -> float:
        return S * 10.0 + T


    def table(t: float) -> float:
        return COEFFS[0] + COEFFS[1] * t + COEFFS[2] * t * t + P + Q


    def branchy(t: float, n: int) -> float:
        if t > 0.0:
            return math.log(t) + A0 * n
        return abs(t) + B0


    def deleted(t: float) -> float:
        return GONE * t


    def refused(t: float) -> float:
        try:
            return 1.0 / t
        finally:
            t = 0.0
    ''')
NAMES = ["poly", "paren", "nested", "chained", "annotated", "augmented", "rebound", "swapped", "table",
         "branchy", "deleted", "refused"]


@pytest.fixture
def module(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".hg").mkdir()
    path = root / "consts.py"
    path.write_text(MODULE)
    monkeypatch.chdir(root)
    spec = importlib.util.spec_from_file_location("_vz_static_agrees", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield root, mod
    sys.modules.pop(spec.name, None)


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    t = np.array([-2.0, -0.0, 0.0, 0.5, 1.0, 3.25, 1e300, math.inf, math.nan, 5e-324][:n])
    return t, np.arange(len(t), dtype=np.int64)


def static_verdicts(capsys) -> dict[str, str]:
    assert main(["report", "consts.py", "--select", "all"]) == 0
    out = capsys.readouterr().out
    return {line.split(": ")[1]: line.split(": ")[2] for line in out.splitlines()}


def runtime_verdict(func) -> str:
    t, n = inputs(10)
    args = (t, n) if func.__code__.co_argcount == 2 else (t,)
    try:
        got = vectorize(func, fallback="error")(*args)
    except VectorizeError:
        return "element by element"
    except (ValueError, NameError):  # the scalar function's own exception on some lane: still batched
        return "vectorized"
    lanes = zip(*(a.tolist() for a in args))
    for value, lane in zip(got.tolist(), lanes):
        want = func(*lane)
        assert value == want or (math.isnan(value) and math.isnan(want)), (func.__name__, lane)
    return "vectorized"


def test_report_and_vectorize_give_the_same_verdict(module, capsys):
    _, mod = module
    static = static_verdicts(capsys)
    runtime = {name: runtime_verdict(getattr(mod, name)) for name in NAMES}
    assert static == runtime
    assert static["poly"] == static["augmented"] == static["swapped"] == "vectorized"
    assert static["refused"] == "element by element"
    # `GONE` is deleted at import: the scalar function raises NameError, and the static path refuses it
    with pytest.raises(NameError):
        mod.deleted(1.0)
    assert static["deleted"] == "element by element"


def test_the_generated_module_computes_what_the_scalar_function_does(module, capsys):
    root, mod = module
    names = [n for n in NAMES if n not in ("refused", "deleted")]
    code = main(["generate", "--functions", ",".join(names), "consts.py"])
    assert code == 0, capsys.readouterr().err
    spec = importlib.util.spec_from_file_location("consts_batched", root / "consts_batched.py")
    batched = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(root))
    try:
        spec.loader.exec_module(batched)
    finally:
        sys.path.remove(str(root))
    t = np.array([0.5, 0.75, 1.0, 2.5, 3.25, 1e3, 1e-300])  # finite values: the lanes compare exactly
    n = np.arange(len(t), dtype=np.int64)
    for name in names:
        func = getattr(mod, name)
        args = (t, n) if func.__code__.co_argcount == 2 else (t,)
        got = getattr(batched, name)(*args).tolist()
        want = [func(*lane) for lane in zip(*(a.tolist() for a in args))]
        assert got == want, name


def test_a_name_the_generated_module_cannot_define_fails_the_file(module, capsys):
    root, _ = module
    (root / "cfg.py").write_text(textwrap.dedent('''\
        from vectorizer import vectorize

        def load():
            return {"scale": 2.0}

        CFG = load()


        @vectorize
        def scaled(t: float) -> float:
            return CFG["scale"] * t
        '''))
    code = main(["generate", "cfg.py"])
    err = capsys.readouterr().err
    assert code == 1 and not (root / "cfg_batched.py").exists(), err
    assert "'CFG'" in err and "scaled" in err
