"""The generation-time interpreter (frontend/pure_eval.py), differentially: on pure functions it
computes what the real call computes (values, or the exception's type and arguments); on impure
ones it refuses with the reason and runs none of their effects; what it reads from outside the
call is recorded for the cache key and the Watch."""

from __future__ import annotations

import colorsys

import pytest

from tests.frontend import pure_cases as pc
from vectorizer.frontend.pure_builtins import Impure
from vectorizer.frontend.pure_eval import Raised, evaluate

PURE = [(pc.arithmetic, (2.5,)), (pc.arithmetic, (7, 9)), (pc.control, (3.0,)), (pc.control, (-2,)),
        (pc.containers, ("a",)), (pc.strings, ("banana",)), (pc.objects, (1.5,)), (pc.handled, (0,)),
        (pc.handled, (4.0,)), (pc.recursive, (12,)), (pc.closures, (10,)), (pc.generator_sum, (20,)),
        (colorsys.rgb_to_hls, (0.2, 0.4, 0.6)), (colorsys.hsv_to_rgb, (0.9, 0.5, 0.25)),
        (colorsys.rgb_to_yiq, (1.0, 0.0, 0.5))]


def real(f, args):
    try:
        return f(*args), None
    except Exception as exc:  # noqa: BLE001 - compared with the interpreter's
        return None, exc


@pytest.mark.parametrize(("f", "args"), PURE)
def test_pure_functions_compute_what_the_call_computes(f, args):
    value, _ = evaluate(f, args, {})
    assert not isinstance(value, Raised), value.exception
    assert value == real(f, args)[0]


@pytest.mark.parametrize(("f", "args"), [(pc.raises_key, ("zz",)), (pc.raises_custom, (-1.5,)),
                                         (pc.raises_custom, (3,)), (pc.arithmetic, (2.5, "x")),
                                         (pc.recursive, ("x",))])
def test_exceptions_are_the_calls_result(f, args):
    value, _ = evaluate(f, args, {})
    _, expected = real(f, args)
    assert isinstance(value, Raised) and expected is not None
    assert type(value.exception) is type(expected) and value.exception.args == expected.args


@pytest.mark.parametrize(("f", "words"), [(pc.prints, "print"), (pc.warns, "warnings"),
                                          (pc.environment, "environment"), (pc.clock, "clock"),
                                          (pc.draws, "random"), (pc.appends, "did not make"),
                                          (pc.declares_global, "global SCALE"), (pc.endless, "did not finish"),
                                          (pc.exits, "SystemExit"), (pc.opens, "with"), (pc.huge, "too large")])
def test_impure_functions_are_refused_saying_why(f, words, capsys):
    before = list(pc.SEEN), pc.SCALE
    with pytest.raises(Impure) as info:
        evaluate(f, (1.0,), {})
    assert words in info.value.reason, info.value.reason
    assert (list(pc.SEEN), pc.SCALE) == before and capsys.readouterr() == ("", "")  # nothing happened


def test_reads_of_state_outside_the_call_are_recorded():
    _, reads = evaluate(pc.containers, ("b",), {})
    found = {(type(c).__name__, k) for c, k, _ in reads}
    assert ("dict", "TABLE") in found  # the module global
    assert any(c is pc.TABLE and k == "b" for c, k, _ in reads)  # the item read from it
    _, reads = evaluate(pc.objects, (2.0,), {})
    assert any(c is pc.Shape and k == "sides" for c, k, _ in reads)  # a class attribute


def test_uncovered_reads_are_refused():
    with pytest.raises(Impure, match="does not cover"):
        evaluate(pc.containers, ("a",), {}, covered=lambda container, key: key != "TABLE")


def test_the_budget_bounds_the_work():
    with pytest.raises(Impure, match="did not finish within 1,000 steps"):
        evaluate(pc.endless, (1.0,), {}, budget=1_000)
    with pytest.raises(Impure, match="nest more than"):
        evaluate(pc.recursive, (900,), {})
    assert evaluate(pc.recursive, (20,), {}, budget=1_000)[0] == pc.recursive(20)


def test_the_contract_page_states_the_budget_the_code_uses():
    from pathlib import Path

    from vectorizer.frontend.pure_eval import BUDGET

    text = (Path(__file__).resolve().parents[2] / "docs" / "contract.md").read_text()
    assert f"within {BUDGET:,} interpreted steps" in text
