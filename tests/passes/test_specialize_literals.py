"""passes/specialize.py: a value decided when the code is generated (a classmethod called with
constant arguments, a zero-argument helper) becomes a literal where the call was; where an
attribute is read from it (`Units.code("m").bit_length()`) the literal is parenthesized, as
Python's grammar needs (`0.bit_length()` is a syntax error; found by tests/fuzz2, seed 7005:
the Numba backend's lane code re-parses the text, a VEC-BUG). Differential against the scalar
function lane by lane (oracle.check) on both backends."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import check

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
INTS = np.array([0, 1, -1, 7, 2**62, -(2**62), 2**63 - 1, -(2**63)], dtype=np.int64)
WIDTH = 0


class Units:
    @classmethod
    def code(cls, name):
        return len(name) - 1  # 0 for "m": the literal `0`

    @classmethod
    def offset(cls, name):
        return -len(name)  # a negative literal


def width():
    return WIDTH


def bits_of_a_classmethod(n):
    k = Units.code("m").bit_length()
    return n // 2 + k


def bits_of_a_negative(n):
    return n // 4 - Units.offset("abc").bit_length()


def bits_of_a_helper(n):
    b = width().bit_length()
    return n // 3 + b


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [bits_of_a_classmethod, bits_of_a_negative, bits_of_a_helper])
def test_an_attribute_of_a_decided_int_reads_it(backend, f):
    check(vectorize(f, fallback="error", backend=backend), f, INTS)


def _bits_unless(n, d):
    if d:
        return n
    return d.bit_length()


def inlined_literal_argument(a):
    """passes/inline_calls.py puts a literal argument where the parameter was: `(0).bit_length()`
    (tests/fuzz2 seed 401016: the NumPy backend's if_to_select re-parsed `0.bit_length()`, a VEC-BUG)."""
    n = a
    if n:
        n = _bits_unless(n, 0)
    return n


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_attribute_of_an_inlined_literal_argument_reads_it(backend):
    check(vectorize(inlined_literal_argument, fallback="error", backend=backend), inlined_literal_argument, INTS)
