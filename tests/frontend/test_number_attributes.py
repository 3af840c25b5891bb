"""frontend/number_attributes.py: `p.real`, `p.imag` and `p.conjugate()` of a parameter that holds
a lane's number are CPython's (`+p`, a zero of p's type, `+p`): a bool's `.real` is an int, a
float's `.imag` is 0.0 whatever the float (NaN, infinities, -0.0). Differential against the scalar
function lane by lane on both backends, hostile floats and ints near 2**63; values and types."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.7, -7.25])
INTS = np.array(SPECIAL_INTS + [3, -7, 1000], dtype=np.int64)
BOOLS = np.array([True, False])


def parts(z):
    return z.real, z.imag


def impedance(V, Z, t=None, mxcurrent=True):  # electricpy's short_circuit_current, in small
    R = abs(Z.real)
    X = abs(Z.imag)
    if t is not None:
        return X / R
    return abs(V / Z) if mxcurrent else R + X


def conjugated(x, k=2):
    return x.conjugate() * k - x.imag


def in_branches(x, y):
    if x.real > y.imag:
        return x.imag
    return y.real


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("values", ["floats", "ints", "bools"])
@pytest.mark.parametrize("f", [parts, conjugated], ids=lambda f: f.__name__)
def test_real_imag_conjugate(f, values, backend) -> None:
    arg = {"floats": FLOATS, "ints": INTS, "bools": BOOLS}[values]
    check(vectorize(f, fallback="error", backend=backend), f, arg)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_parameters(backend) -> None:
    x, y = np.meshgrid(np.concatenate([FLOATS, [0.0, 2.0]]), np.array([-3, 0, 5, 2**63 - 1]))
    check(vectorize(in_branches, fallback="error", backend=backend), in_branches, x, y)
    check(vectorize(in_branches, fallback="error", backend=backend), in_branches, BOOLS[:, None], FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_impedance(backend) -> None:
    V, Z = np.meshgrid(FLOATS, np.concatenate([FLOATS, [0.0, 4.0]]))
    check(vectorize(impedance, fallback="error", backend=backend), impedance, V, Z)
    check(vectorize(impedance, fallback="error", backend=backend), impedance, V[:3], INTS[:3, None])


def rebound(z):
    z = z * 2.0
    return z.real


def of_a_local(x):
    y = np.asarray(x > 0)
    return y.real


@pytest.mark.parametrize("f", [rebound, of_a_local], ids=lambda f: f.__name__)
def test_not_a_parameter_is_refused(f) -> None:
    with pytest.raises(VectorizeError, match="'.real' is not supported"):
        vectorize(f, fallback="error")(FLOATS)
