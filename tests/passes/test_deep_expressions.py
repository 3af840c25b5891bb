"""An expression nested deeper than Python's recursion limit lets the passes walk it, and its
generated code compiles (issue 51: thermofeel's UTCI polynomial, ~200 terms written out flat,
was "a vectorizer bug ... RecursionError" on the NumPy backend). core/deep.py lowers it on a
deeper stack; ops_to_numpy names an operand before it passes CPython's 200 nested parentheses."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


def polynomial(tmp_path, terms: int, name: str):
    """A flat sum of `terms` products of powers of x and y, as thermofeel writes its UTCI fit."""
    rng = np.random.default_rng(terms)
    parts = ["0.5"]
    for k in range(terms):
        c = float(rng.uniform(-2, 2))
        i, j = k % 5, (k // 5) % 4
        parts.append(f"({c!r}) * x{' * x' * i} * y{' * y' * j}")
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""
        def f(x, y):
            return {' + '.join(parts)}
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        return __import__(name).f
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_flat_polynomial_of_hundreds_of_terms(backend, tmp_path):
    f = polynomial(tmp_path, 400, f"deep_poly_{backend}")
    x = np.array([0.0, -0.0, 1.5, -2.25, 0.75, np.nan, np.inf, -np.inf, 1e300, 5e-324, 3.0, -1.0])
    y = np.array([1.0, 0.5, -0.5, 2.0, -1.5, 0.0, 1.0, -1.0, 1e-300, 2.0, np.nan, 0.25])
    with np.errstate(all="ignore"):
        check(vectorize(f, backend=backend, fallback="error"), f, x, y)


def test_cpythons_ast_depth_mismatch_is_retried_on_the_deep_stack():
    """CPython 3.11 raises SystemError('AST constructor recursion depth mismatch ...') instead of
    RecursionError when ast.parse runs near the limit (tests/fuzz found it, flaky with the depth
    the caller had reached): the walk runs again on the deep stack, like a RecursionError; any
    other SystemError is left alone."""
    import threading

    from vectorizer.core.deep import with_deep_stack

    threads = []

    def once_too_deep():
        threads.append(threading.current_thread().name)
        if len(threads) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=204, after=224)")
        return "walked"

    assert with_deep_stack(once_too_deep) == "walked"
    assert threads == [threading.current_thread().name, "vectorizer-deep-walk"]

    def other():
        raise SystemError("something else")

    with pytest.raises(SystemError, match="something else"):
        with_deep_stack(other)
