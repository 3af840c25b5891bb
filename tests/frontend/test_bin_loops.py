"""frontend/bin_loops.py: `for c in bin(x)[k:]` with `c` only compared with string literals is a
loop over the string's positions, `c` the character's code: the prefix ('-', '0', 'b'), then the
digits of |x| from the highest; 0, negative ints, -2**63 (abs overflows: re-run), bools; a float
raises bin's TypeError. primefac's Lucas chain (`mlucas`). Differential against the scalar
function lane by lane on both backends; values and exceptions."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_INTS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
RNG = np.random.default_rng(3)
V, A, N = RNG.integers(0, 100, 300), RNG.integers(-100, 100, 300), RNG.integers(1, 100, 300)
INTS = np.array(SPECIAL_INTS + [3, 5, -6, 255, 256, 12345], dtype=np.int64)


def mlucas(v, a, n):  # primefac's, as it is written there
    v1, v2 = v, (v**2 - 2) % n
    for bit in bin(a)[3:]: v1, v2 = ((v1**2 - 2) % n, (v1*v2 - v) % n) if bit == "0" else ((v1*v2 - v) % n, (v2**2 - 2) % n)  # noqa: E501, E701
    return v1


def chars(x):
    k = 0
    for c in bin(x):
        k = k * 3 + (c == "-") + 2 * (c == 'b') + (c != "1") - (c == "01") + ("0" == c)
    return k


def from_two(x):
    ones = 0
    for c in bin(x)[2:]:
        if c == "1":
            ones += 1
        elif c != "0":
            ones -= 100  # the 'b' of a negative x
    return ones


def past_the_end(x):
    n = 0
    for c in bin(x)[9:]:
        n += (c == "1")
    return n


@pytest.mark.parametrize("backend", BACKENDS)
def test_lucas_chain(backend) -> None:
    check(vectorize(mlucas, fallback="error", backend=backend), mlucas, V, A, N)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [chars, from_two, past_the_end], ids=lambda f: f.__name__)
def test_characters(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, INTS)
    check(vf, f, np.array([True, False]))
    check(vf, f, np.array([2.0, 3.5]))  # TypeError: a float is no int


def read_otherwise(x):
    s = 0
    for c in bin(x):
        s += int(c == "1") + (c > "0")
    return s


def test_other_reads_are_refused() -> None:
    with pytest.raises(VectorizeError, match="'for' loops must iterate"):
        vectorize(read_otherwise, fallback="error")(INTS)
