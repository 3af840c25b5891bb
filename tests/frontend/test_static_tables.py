"""Items of module-level tables read with keys decided when the code is generated
(frontend/static_values.py): `RTD_TYPES[kind][0]` (electricpy's rtdtemp) reads a list that is an
item of a dict; the number it holds is baked in, and every container read is watched, so an
item assigned since (in the dict or in the inner list) makes new code. Both backends, against
the scalar function lane by lane."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from oracle import check
from strategies import SPECIAL_FLOATS

from vectorizer import vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
X = np.array(SPECIAL_FLOATS + [100.0, 120.0, 99.9, 138.5])

SOURCE = '''
import numpy as np

TYPES = {"PT100": [100, 0.00385], "CU100": (100, 0.00427), "NI120": [[120], 0.00672]}


def temp(r, kind="PT100", ref=None):
    if ref is None:
        ref = TYPES[kind][0]
    a = TYPES[kind][1]
    return np.around((r - ref) / (ref * a), 1)


def nested(r, kind="NI120"):
    return r * TYPES[kind][0][0]
'''


@pytest.fixture
def module(tmp_path):
    path = tmp_path / f"static_tables_{abs(hash(str(tmp_path))) % 10**9}.py"
    path.write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(tmp_path))
    try:
        yield __import__(path.stem)
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_item_of_an_item_is_read_and_watched(module, backend):
    vf = vectorize(module.temp, backend=backend, fallback="error")
    with np.errstate(all="ignore"):
        for kind in ("PT100", "CU100"):
            check(lambda r, kind=kind: vf(r, kind=kind), lambda r, kind=kind: module.temp(r, kind=kind), X)
        module.TYPES["PT100"][0] = 1000  # an item of the inner list: new code, not the old number
        check(lambda r: vf(r, kind="PT100"), lambda r: module.temp(r, kind="PT100"), X)
        assert vf(np.array([1100.0]), kind="PT100")[0] == module.temp(1100.0, kind="PT100")
    vn = vectorize(module.nested, backend=backend, fallback="error")
    check(vn, module.nested, X)
