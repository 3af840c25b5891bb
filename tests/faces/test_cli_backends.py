"""`vectorizer generate/show --backend numba|auto`: standalone modules with Numba kernels.

Generating needs no Numba (the module is text); running a Numba module does, so those tests are
marked `numba` and import the written module in a fresh subprocess, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from vectorizer.faces.cli.main import main

SOURCE = textwrap.dedent('''\
    import math
    from vectorizer import vectorize

    SCALE = 2.0
    MIXED = (1, 2.5)


    def norm_cdf(x: float) -> float:
        return 0.5 * math.erfc(-x / math.sqrt(2.0))


    @vectorize
    def price(s: float, k: float) -> float:
        if k <= 0.0:
            raise ValueError("strike must be positive")
        return SCALE * norm_cdf(math.log(s / k))


    @vectorize
    def halvings(n: int) -> int:
        c = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            c += 1
        return c


    @vectorize
    def both(x: float, n: int) -> float:
        return norm_cdf(x) + float(halvings(n))


    @vectorize
    def mixed(x: float, i: int) -> float:
        return x * MIXED[i % 2]
    ''')

CHECK = textwrap.dedent('''\
    import json, math, sys
    import numpy as np
    sys.path.insert(0, ".")
    import kernels, kernels_batched as gen

    def scalar(f, *cols):
        out = []
        for lane in zip(*(c.tolist() for c in cols)):
            try:
                out.append(f.__wrapped__(*lane) if hasattr(f, "__wrapped__") else f(*lane))
            except Exception as exc:
                return ("raise", type(exc).__name__, str(exc))
        return ("ok", [repr(v) for v in out])  # repr: nan equals nan, -0.0 differs from 0.0

    def batched(f, *cols):
        try:
            return ("ok", [repr(v) for v in f(*cols).tolist()])
        except Exception as exc:
            return ("raise", type(exc).__name__, str(exc))

    rng = np.random.default_rng(0)
    s = rng.uniform(0.1, 3.0, 30000)
    k = rng.uniform(0.1, 3.0, 30000)
    n = rng.integers(1, 10_000, 30000)
    x = np.concatenate([rng.normal(size=29996), [np.nan, np.inf, -np.inf, -0.0]])
    bad_k = k.copy(); bad_k[12345] = 0.0
    cases = [("price", (s, k)), ("price", (s, bad_k)), ("halvings", (n,)), ("both", (x, n)), ("mixed", (x, n))]
    report = []
    for name, cols in cases:
        want = scalar(getattr(kernels, name).scalar, *cols)
        got = batched(getattr(gen, name), *cols)
        report.append([name, want == got, got[:2] if got[0] == "raise" else "ok"])
    print(json.dumps({"report": report, "numba": "numba" in sys.modules}))
    ''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".hg").mkdir()  # a repository boundary for configuration discovery
    (tmp_path / "kernels.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("backend", ["numba", "auto"])
def test_generation_needs_no_numba_and_names_every_lane_function_once(project, backend):
    assert main(["generate", "--backend", backend, "kernels.py"]) == 0
    text = (project / "kernels_batched.py").read_text()
    defs = [line.split("(")[0] for line in text.splitlines() if line.startswith("def ")]
    assert len(defs) == len(set(defs)), "a lane function is defined twice"
    assert "import numba" in text
    assert "_lane_norm_cdf" in text and "PARALLEL_MIN_LANES_halvings" in text
    # A tuple constant mixing ints and floats cannot be indexed by Numba: `mixed` is NumPy code
    # under auto, and element by element (with the reason) when Numba was asked for.
    assert "def _lane_mixed(" not in text
    assert ("def _kernel_mixed(" in text) == (backend == "auto")


def test_show_prints_the_numba_kernel(project, capsys):
    assert main(["show", "--backend", "numba", "kernels.py::halvings"]) == 0
    out = capsys.readouterr().out
    assert "@numba.njit" in out and "numba.prange" in out


@pytest.mark.numba
@pytest.mark.parametrize("backend", ["numba", "auto"])
def test_generated_numba_module_matches_the_scalar_function(project, backend):
    assert main(["generate", "--backend", backend, "kernels.py"]) == 0
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=project, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["numba"]
    for name, agrees, outcome in result["report"]:
        assert agrees, (name, outcome)
    assert ["price", True, ["raise", "ValueError"]] in result["report"]
