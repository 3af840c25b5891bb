"""frontend/sequence_args.py (issue 51): a sequence of numbers the same for every lane and known
when the code is generated, passed to a function of the module, specializes the callee on it.
Differential against the scalar function lane by lane on both backends (hostile floats, ints
near 2**63, IndexError lanes); what could mutate or keep the list, or differs per lane, is
refused; a module-level list changed after the function was vectorized is noticed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS, floats

from tests.frontend import sequence_args_cases as cases
from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
FLOATS = np.array(SPECIAL_FLOATS + [1e-300, 3.0, -7.25, 40.0, -40.0, 1e154, -1e155])
INTS = np.array([0, 1, -1, 2, -2, 3, 1000, -99999, 2**31, 3037000499, -3037000500])
BIG_INTS = np.array(SPECIAL_INTS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [cases.f, cases.g, cases.from_tuple, cases.operations, cases.two_lists, cases.horner,
                               cases.member, cases.enumerated, cases.signed_zeros], ids=lambda f: f.__name__)
def test_sequences_passed_on_run_as_the_loop_runs(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, FLOATS)
    check(vf, f, FLOATS[::-1].copy())
    check(vf, f, INTS)


_KERNELS: dict = {}


@settings(max_examples=40, deadline=None)
@given(st.lists(floats(), min_size=1, max_size=30), st.sampled_from([cases.f, cases.operations, cases.horner]))
def test_the_cephes_pattern_on_any_floats(xs, f) -> None:
    vf = _KERNELS.setdefault(f, vectorize(f, fallback="error", backend="numpy"))
    check(vf, f, np.array(xs, dtype=float))


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_coefficients_stay_ints(backend) -> None:
    vf = vectorize(cases.ints, fallback="error", backend=backend)
    check(vf, cases.ints, INTS)
    check(vf, cases.ints, BIG_INTS)
    check(vf, cases.ints, FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_index_raises_where_python_raises(backend) -> None:
    vf = vectorize(cases.pick, fallback="error", backend=backend)
    check(vf, cases.pick, FLOATS[:6], np.array([0, 1, 2, -1, -3, 1]))
    check(vf, cases.pick, FLOATS[:6], np.array([0, 1, 3, -1, -3, 1]))  # IndexError on lane 2
    check(vf, cases.pick, FLOATS[:6], np.array([0, -4, 1, -1, -3, 1]))  # IndexError on lane 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [cases.in_loop], ids=lambda f: f.__name__)
def test_what_python_cannot_compute_raises_as_python_raises(f, backend) -> None:
    vf = vectorize(f, fallback="error", backend=backend)
    check(vf, f, FLOATS)  # the first lane that reaches it: TypeError, Python's message
    check(vf, f, np.array([0.5, -1.0, 0.25]))


def test_each_sequence_gets_its_own_specialization() -> None:
    vf = vectorize(cases.two_lists, fallback="error", backend="numpy")
    vf(FLOATS)
    text = vf.source if isinstance(vf.source, str) else vf.source()
    assert "(1.0, 2.0)" in text and "(3.0, -4.0)" in text, text


def test_a_module_list_changed_after_vectorizing_is_noticed() -> None:
    vf = vectorize(cases.changing, fallback="error", backend="numpy")
    check(vf, cases.changing, FLOATS)
    saved = list(cases.CHANGING)
    try:
        cases.CHANGING[0] = -3.5
        check(vf, cases.changing, FLOATS)
        cases.CHANGING.append(0.25)  # a longer list: len() and the loop change too
        check(vf, cases.changing, FLOATS)
    finally:
        cases.CHANGING[:] = saved


@pytest.mark.parametrize(("f", "message"), [
    (cases.appends, "the call to '_appends' cannot be vectorized: 'coefs' holds a sequence of numbers passed in; "
                    "'coefs.append' may change or keep it"),
    (cases.assigns, "'coefs' holds a sequence of numbers passed in; this use may change or keep it"),
    (cases.sorts, "'coefs.sort' may change or keep it"),
    (cases.rebinds, "'coefs' holds a sequence of numbers passed in, and is rebound"),
    (cases.returns, "'coefs' holds a sequence of numbers passed in; this use"),
    (cases.per_lane, "lists are not supported"),
    (cases.after_a_division, "Python raises TypeError here"),
    # `[1] + coefs` of a tuple raises TypeError in the callee, on every lane that calls it: a callee
    # that never returns a value is refused by the analysis
    (cases.tuple_plus_list, "never returns a value"),
    (cases.some_lanes, "never returns a value"),
], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("backend", BACKENDS)
def test_what_could_change_keep_or_vary_the_list_is_refused(f, message, backend) -> None:
    with pytest.raises(VectorizeError, match=message.replace("(", r"\(").replace(".", r"\.")):
        vectorize(f, fallback="error", backend=backend)(FLOATS)
