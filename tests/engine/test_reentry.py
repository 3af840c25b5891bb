"""engine/reentry.py: a decorated recursive function's calls to itself from its own scalar code
run the scalar function (Python numbers, the plain function's recursion), and a generated
module's scalar copy calls itself, not the batched export."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

import numpy as np
import pytest
from oracle import check

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def gcd(a: int, b: int) -> int:
    if b == 0:
        return a
    return gcd(b, a % b)


DECORATED = '''
from vectorizer import vectorize

@vectorize(fallback="error", backend="{backend}")
def big(n: int) -> int:
    # the recursion's own values pass 2**63: Python ints in the scalar re-run, never int64
    if n <= 0:
        return 0
    return (big(n - 1) + 2**62 + 2**62) % 1000003

def odd(n: int) -> bool:
    return False if n == 0 else even(n - 1)

@vectorize(fallback="error", backend="{backend}")
def even(n: int) -> bool:
    if n == 0:
        return True
    return odd(n - 1)
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_decorated_recursion_recurses_in_python(backend, tmp_path):
    """A decorated function calls itself through the vectorized function: that call, made by its
    own scalar code with Python numbers, runs the scalar function (engine/reentry.py)."""
    name = f"rec_decorated_{backend}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(DECORATED.format(backend=backend)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        n = np.array([0, 1, 2, 30, 7])
        expected = [0]
        for _ in range(30):
            expected.append((expected[-1] + 2**63) % 1000003)
        assert module.big(n).tolist() == [expected[k] for k in n.tolist()]
        assert type(module.big.scalar(3)) is int
        assert module.even(np.arange(12)).tolist() == [k % 2 == 0 for k in range(12)]
        check(module.big, module.big.scalar, np.array([3, 0, 50]))
    finally:
        del sys.modules[name]


GENERATED = '''
from vectorizer import vectorize

@vectorize
def gcd(a: int, b: int) -> int:
    if b == 0:
        return a
    return gcd(b, a % b)
'''


def test_generated_module_recurses_in_its_own_scalar_copy(tmp_path):
    """`vectorizer generate`: the module's scalar copy calls itself (not the batched export)."""
    from vectorizer.faces.cli.main import main

    (tmp_path / "recmod.py").write_text(GENERATED)
    assert main(["generate", str(tmp_path)]) == 0
    spec = importlib.util.spec_from_file_location("recmod_batched", tmp_path / "recmod_batched.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(tmp_path))  # its _vectorizer_runtime.py
    try:
        spec.loader.exec_module(module)
        a, b = np.array([12, 7, 0, 2**62, -9]), np.array([18, 0, 5, 3, 6])
        assert module.gcd(a, b).tolist() == [gcd(x, y) for x, y in zip(a.tolist(), b.tolist())]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("_vectorizer_runtime", None)
