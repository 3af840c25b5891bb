"""Values decided when the code is generated, from an option that is the same for every lane
(issue 51, "reach that generalizes"): `isinstance(opt, np.ndarray)` of an option a callee was
given (its class read from NumPy), `TABLE[opt]` of a module-level dict or tuple, and a call of a
function of the module every argument of which is decided and one of which is no number
(`code_of("end")`): its value, a number every lane would get, is written into the code.

Each function runs on both backends against the scalar function lane by lane on hostile floats:
values bit for bit, and the first failing lane's exception. A key the table lacks is refused
(with `fallback="error"`), never guessed; an item assigned since the last call gives new code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
HOSTILE = np.array(SPECIAL_FLOATS + [1e-300, -1e-300, 1e200, 3.0, -7.5])

_CODES = {"end": 0, "begin": 1, 0: 0, 1: 1}
SCALE = {"m": 1.0, "km": 1000.0, "mi": 1609.344}
ORDER = (3, 5, 7)


def code_of(when):
    """numpy_financial's shape of helper: an array is passed through, a key looked up."""
    if isinstance(when, np.ndarray):
        return when
    try:
        return _CODES[when]
    except (KeyError, TypeError):
        return [_CODES[x] for x in when]


def annuity(rate, when="end"):
    when = code_of(when)
    return (1.0 + rate * when) * 2.0 - rate


def scaled(x, unit="m"):
    return x * SCALE[unit] if x > 0 else -x


def nth_order(x, k=1):
    return x ** ORDER[k] if abs(x) < 1e10 else 0.0


def kind_of(unit):
    if isinstance(unit, str):
        return 1.5
    return 2


def by_kind(x, unit="km"):
    return x * kind_of(unit) + SCALE[unit]


def bounded(x, unit="m"):
    if isinstance(unit, np.ndarray | float):
        raise TypeError("unit must be a name")
    return math.sqrt(x) if x >= 0 else SCALE[unit]


CASES = [(annuity, ("end",)), (annuity, ("begin",)), (scaled, ("km",)), (scaled, ("mi",)),
         (nth_order, (0,)), (nth_order, (2,)), (by_kind, ("m",)), (by_kind, ("km",)), (bounded, ("mi",))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("f", "options"), CASES, ids=lambda c: getattr(c, "__name__", repr(c)))
def test_decided_values_match_the_loop(f, options, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, HOSTILE, *options)
    check(vf, f, -HOSTILE[::-1], *options)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_key_the_table_lacks_is_refused(backend) -> None:
    with pytest.raises(VectorizeError, match="'unit' is 'ft' here"):
        vectorize(scaled, fallback="error", backend=backend)(HOSTILE, "ft")
    # An int position is a number, not an option: each lane indexes, and raises IndexError as the loop does.
    check(vectorize(nth_order, fallback="error", backend=backend), nth_order, HOSTILE, 3)


def test_an_item_assigned_since_gives_new_code() -> None:
    vf = vectorize(scaled, fallback="error", backend="numpy")
    x = np.array([1.0, 2.0, -3.0])
    assert vf(x, "km").tolist() == [1000.0, 2000.0, 3.0]
    SCALE["km"] = 999.0
    try:
        assert vf(x, "km").tolist() == [999.0, 1998.0, 3.0]
    finally:
        SCALE["km"] = 1000.0
    assert vf(x, "km").tolist() == [1000.0, 2000.0, 3.0]


def test_an_array_class_is_no_number_kind() -> None:
    """isinstance(opt, np.ndarray) is False for a str option: the branch that raises is dropped,
    and for a float option (a number: batched, not specialized) the check is the parameter's."""
    vf = vectorize(bounded, fallback="error")
    assert vf(np.array([4.0, -1.0]), "km").tolist() == [2.0, 1000.0]
