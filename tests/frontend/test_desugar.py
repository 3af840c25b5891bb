"""frontend/desugar.py and frontend/reductions.py: local tables of numbers, `in` on number tuples,
min/max of a display, call statements kept for their exceptions, and generator expressions in
sum/any/all/min/max, against the scalar oracle on both backends, with hostile inputs; and the
forms that stay refused."""

from __future__ import annotations

import inspect
import sys

import desugar_cases as D
import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

NAN, INF = float("nan"), float("inf")
HOSTILE = np.array([0.0, -0.0, 1.5, -2.25, NAN, INF, -INF, 5e-324, 1e308, -1e308, 300.0])
BIG = np.array([0, 1, -1, 2, 3, 4, -4, -5, 5, 2**62, -(2**63), 2**63 - 1], dtype=np.int64)
YEARS = np.array([1900, 2000, 2004, 2001, 0, -4, 2**62, -(2**63), 2**63 - 1])
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

CASES = [
    (D.p23, (HOSTILE,)),
    (D.gather, (np.array([0, 1, 2, 3, -1, -4, 3]), HOSTILE[:7])),
    (D.gather, (BIG, 1.0)),  # out of range: IndexError on the first such lane (lane 4 in C order)
    (D.gather, (np.array([True, False]), 2.0)),  # bool index: an int for Python
    (D.month_len, (np.arange(-2, 15),)),
    (D.month_len, (BIG,)),
    (D.not_in, (np.array([1.0, 2.5, 0.0, -0.0, NAN, 3.0, INF, 1.0000000000000002]),)),
    (D.not_in, (BIG,)),
    (D.not_in, (np.array([True, False]),)),
    (D.central, (np.arange(1, 61),)),
    (D.central, (np.array([5, 60, 0, 70]),)),  # ValueError from the helper, lane 2
    (D.central, (BIG,)),
    (D.day_of, (np.array([1, 5, 28]), np.array([0.0, -0.0, 4.0]))),
    (D.day_of, (np.array([1, 5, 28]), np.array([1.0, -1.0, NAN]))),  # math.sqrt(-1.0) statement raises
    (D.day_of, (np.array([1, 29, 3]), np.array([1.0, 1.0, -1.0]))),  # the helper raises first
    (D.min_max, (HOSTILE[:, None], HOSTILE[None, :], np.array([[0.0], [-0.0]])[:, :, None])),
    (D.min_max, (BIG, BIG[::-1], 0)),
    (D.is_prime, (np.arange(-3, 60),)),
    (D.poly, (HOSTILE[:8],)),
    (D.poly, (HOSTILE,)),  # 1e308 ** 2 raises OverflowError
    (D.harmonic, (np.array([0, 1]),)),
    (D.harmonic, (np.array([0, 2, 5]),)),  # 1.0 / 0: ZeroDivisionError
    (D.any_below, (HOSTILE[:8], np.array([[0], [1], [2], [5]]))),
    (D.lowest, (HOSTILE[:8], np.array([[1], [2], [4]]))),
    (D.lowest, (HOSTILE[:8], np.array([[1], [0]]))),  # empty: ValueError
    (D.highest, (HOSTILE,)),
    (D.total_ints, (BIG,)),
    (D.pick, (HOSTILE, np.array([[0.5], [0.0], [-0.0]]), np.array([[[0]], [[1]], [[2]], [[-1]], [[-3]]]))),
    (D.pick, (HOSTILE[:3], 1.0, np.array([[0], [2], [3]]))),  # IndexError at i=3
    (D.pick, (1.0, 2.0, BIG)),  # IndexError at -(2**63)... first bad lane in C order
    (D.pick, (np.array([1.0]), 2.0, np.array([True, False]))),
    (D.single, (HOSTILE, np.array([[0], [-1]]))),
    (D.single, (HOSTILE[:2], np.array([0, 1]))),
    (D.unit_sum, (HOSTILE, HOSTILE[:, None])),
    (D.days_in_month, (YEARS, np.arange(1, 13)[:, None])),
    (D.days_in_month, (YEARS, np.arange(0, 3)[:, None])),  # AssertionError(0)
    (D.days_before_month, (YEARS, np.arange(-13, 13)[:, None])),
    (D.days_before_month, (YEARS, np.arange(-14, 13)[:, None])),  # IndexError before the call
    (D.branchy, (HOSTILE, YEARS[:, None])),
    (D.day_offset, (np.array([0, 5, 27, 28, 29]), YEARS[:, None], 2)),  # AssertionError() at n=28 or 29
    (D.day_offset, (np.array([-1, 5]), 2000, 13)),  # -1: the assert fails before the call; 5: the call's
    (D.chained, (HOSTILE, YEARS[:, None])),
    (D.divides, (HOSTILE, np.array([[1.0], [-0.0], [NAN]]))),  # ZeroDivisionError at y == -0.0
    (D.month_days, (np.arange(-13, 13),)),
    (D.month_days, (BIG,)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_matches_the_scalar_function(func, args, backend):
    if "sum(" in inspect.getsource(func) and sys.version_info >= (3, 12):
        pytest.skip("sum of floats is compensated from 3.12 on: not desugared there")
    check(vectorize(func, backend=backend, fallback="error"), func, *args)


def test_a_mixed_table_index_is_an_int_or_a_type_error():
    vf = vectorize(D.gather, fallback="error")
    with pytest.raises(VectorizeError, match="indices must be ints"):
        vf(np.array([0.0, 1.0]), 1.0)  # Python: TypeError on every lane of a float index


def test_generated_code_holds_the_loops_not_python_objects():
    src = vectorize(D.poly, fallback="error")
    src(np.array([1.0]))
    code = [line for line in src.source.splitlines() if not line.lstrip().startswith("#")]
    assert any("COEFFS" in line for line in code)
    assert not any("enumerate" in line or "sum(" in line for line in code)  # comments quote the original line


@pytest.mark.parametrize("func,construct", [
    (D.uses_none, "'check_zone' returns None"),
    (D.nested_gen, "generator"),
    (D.conditional_gen, "generator"),
    (D.expr_statement, "an expression statement has no effect"),
    (D.table_written, "assignment to an item is not supported"),  # the line that writes it: 160:5
])
def test_what_stays_refused_names_the_construct_and_where(func, construct):
    with pytest.raises(VectorizeError) as info:  # at decoration: the fence needs no argument types
        vectorize(func, fallback="error")
    text = str(info.value)
    assert construct in text, text
    assert "desugar_cases.py:" in text, text  # file:line:col of the user's construct


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_level_list_is_read_again_after_an_item_is_assigned(backend):
    vf = vectorize(D.month_days, backend=backend, fallback="error")
    months = np.arange(-13, 13)
    check(vf, D.month_days, months)
    for value in (29, 28.0, 28):  # 28.0 == 28 but is another value: the kernel must not be reused
        D.DAYS[2] = value
        try:
            check(vf, D.month_days, months)
            assert vf(np.array([2])).dtype == (np.float64 if isinstance(value, float) else np.int64)
        finally:
            D.DAYS[2] = 28


def test_table_names_are_reused_for_the_same_values_and_never_shared_by_others():
    from vectorizer.frontend.namespace import Namespace

    ns = Namespace.of_module_source("TAKEN = 1\n", "m.py")
    first = ns.define_table("_tbl_f_t", (1, 2), set())
    assert first == "_tbl_f_t" and ns.define_table("_tbl_f_t", (1, 2), set()) == first  # prepared again
    assert ns.define_table("_tbl_f_t", (1.0, 2), set()) == "_tbl_f_t_"  # 1.0 is another value
    assert ns.define_table("_tbl_f_t", (3,), {"_tbl_f_t_"}) == "_tbl_f_t__"
    assert ns.define_table("TAKEN", (1,), set()) == "TAKEN_"  # a name the module binds
    assert ns.resolve("_tbl_f_t").value == (1, 2) and ns.resolve("_tbl_f_t_").value == (1.0, 2)
