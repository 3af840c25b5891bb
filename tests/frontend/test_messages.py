"""What a user reads when a function is refused (issue 34): the default `FallbackWarning` carries
the same full report as `fallback="error"`'s `VectorizeError` (every problem, file:line:col, caret,
hint), once per function; every message ends with "(see `vectorizer errors CODE`)" naming its own
code; hints name the construct the user wrote (`frontend/hints.py`)."""

from __future__ import annotations

import math
import os
import pickle
import re
import warnings

import numpy as np
import pytest

from vectorizer import FallbackWarning, VectorizeError, VectorizeErrorGroup, vectorize
from vectorizer.errors import (
    SourceLocation,
    UnsupportedCallError,
    UnsupportedSyntaxError,
    VectorizeInputError,
    see,
)

POINTER = re.compile(r"\(see `vectorizer errors (VEC(?:-[A-Z]+)?)`\)$")


def two_problems(x):
    y = os.getpid()  # a side effect
    return (z := x) + y + z  # an assignment expression


def none_of_local(x):
    y = x * 2.0
    if y is None:
        return 0.0
    return y


def none_not_of_local(x):
    if x * 2.0 is not None:
        return x
    return 0.0


def helper(x):
    return x


def calls(x):
    return sorted(x) + undefined_function(x) + helper.__name__ + os.path.join("a")  # noqa: F821


def none_into_a_variable(x):  # (`return None` itself is refused at run time: tests/frontend/test_none_returns.py)
    y = None if x > 0.0 else x
    return y


def refusal(func, *args) -> VectorizeError:
    with pytest.raises(VectorizeError) as info:
        vectorize(func, fallback="error")(*args)
    return info.value


def problems(exc: VectorizeError) -> list[VectorizeError]:
    return list(exc.errors) if isinstance(exc, VectorizeErrorGroup) else [exc]


def fallback_warnings(func, *args) -> tuple[list[warnings.WarningMessage], object]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vf = vectorize(func)
        result = vf(*args)
        result_again = vf(*args)
    assert np.array_equal(result, result_again)
    return [w for w in caught if issubclass(w.category, FallbackWarning)], result


def test_the_warning_carries_every_problem_of_the_error():
    xs = np.array([0.5, 3.0, -7.25])
    error = refusal(two_problems, xs)
    assert len(problems(error)) == 2
    caught, result = fallback_warnings(two_problems, xs)
    assert len(caught) == 1, "one warning per function, however many calls and problems"
    text = str(caught[0].message)
    for problem in problems(error):
        assert str(problem) in text  # location, caret, hint and pointer, as the error renders them
        assert f"{problem.location}: error[{problem.code}]" in text
        assert problem.location.caret_block() in text
        assert f"hint: {problem.hint}" in text
    assert text.splitlines()[0].startswith("two_problems runs element by element (slow, exact): ")
    assert caught[0].message.error is not None and str(caught[0].message.error) == str(error)
    assert result.tolist() == [two_problems(x) for x in xs.tolist()]


def test_every_message_ends_with_the_pointer_to_its_own_code():
    location = SourceLocation("m.py", 3, 5, 8, "    y = f(x)\n")
    made = [
        VectorizeError("plain"),
        UnsupportedSyntaxError("with a caret and no hint", location),
        UnsupportedCallError("with everything", location, hint="do this"),
        VectorizeInputError("an input", hint="pass numbers"),
        VectorizeError("a code given", location, hint="h", code="VEC-PARSE"),
    ]
    refused = [refusal(f, np.array([1.0])) for f in (two_problems, none_of_local, calls, none_into_a_variable)]
    for error in made + [p for e in refused for p in problems(e)]:
        found = POINTER.search(str(error))
        assert found is not None, str(error)
        assert found.group(1) == error.code
        assert str(error).count("(see `vectorizer errors") == 1
    # A group: each problem's block ends with its own pointer.
    group = refused[0]
    blocks = str(group).split("\n\n")
    assert [POINTER.search(b).group(1) for b in blocks] == [p.code for p in problems(group)] == ["VEC-CALL", "VEC-SYNTAX"]
    assert see("VEC-CALL") == "(see `vectorizer errors VEC-CALL`)"


def test_warnings_end_with_a_pointer():
    caught, _ = fallback_warnings(two_problems, np.array([1.0]))
    assert POINTER.search(str(caught[0].message)).group(1) == "VEC-SYNTAX"  # the last problem's page
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        vectorize(math.cos)(np.array([0.0, 1.0]))  # a builtin: numpy.vectorize's own loop, no VectorizeError
    [warning] = [w for w in got if issubclass(w.category, FallbackWarning)]
    assert POINTER.search(str(warning.message)).group(1) == warning.message.code == "VEC-FALLBACK"


def test_a_warning_survives_pickling():
    caught, _ = fallback_warnings(two_problems, np.array([1.0]))
    again = pickle.loads(pickle.dumps(caught[0].message))
    assert str(again) == str(caught[0].message) and again.code == caught[0].message.code
    assert str(again.error) == str(caught[0].message.error)


def test_hints_for_none_name_the_test_written():
    [problem] = problems(refusal(none_of_local, np.array([1.0])))
    assert problem.hint.startswith("a batched argument is never None")
    assert "'y is None' is always False here" in problem.hint
    [problem] = problems(refusal(none_not_of_local, np.array([1.0])))
    assert "'x * 2.0 is not None' is always True here" in problem.hint
    [problem] = problems(refusal(none_into_a_variable, np.array([1.0])))
    assert problem.hint.startswith("a batched argument is never None") and "math.nan" in problem.hint


def test_hints_for_calls_name_the_function():
    hints = [p.hint for p in problems(refusal(calls, np.array([1.0])))]
    assert any(h.startswith("vectorizer has no batched version of the builtin sorted(): call sorted(...) outside") for h in hints), hints
    assert any(h.startswith("'undefined_function' is not a function vectorizer can batch") for h in hints), hints
    assert any(h.startswith("read helper.__name__ outside the vectorized function") for h in hints), hints
    assert any(h.startswith("call os.path.join(...) outside the vectorized function") for h in hints), hints


def or_default(x):
    return -1.0 if x is None else x * 2.0


def test_an_object_input_warning_ends_with_the_fallback_pointer():
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = vectorize(or_default)(np.array([1.5, None], dtype=object))
    [warning] = [w for w in got if issubclass(w.category, FallbackWarning)]
    assert str(warning.message).startswith("or_default runs element by element (slow, exact): ")
    assert POINTER.search(str(warning.message)).group(1) == warning.message.code == "VEC-FALLBACK"
    assert result.tolist() == [or_default(1.5), or_default(None)]
