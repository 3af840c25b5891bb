"""The front-end's refusals: every construct outside the supported subset is refused with a
`VectorizeError` that names file:line:col (1-based line, 1-based CHARACTER column), shows the
source line with a caret range under the construct, says what it is in the user's words and gives
a hint (docs/internals.md, the contract, point 5).

The refused functions live in contract_cases/rejects.py; each case names the snippet of source the
error must point at, and the expected line and column are computed from the file's text (Python
string indices count characters, so a non-ASCII name before the construct checks that columns are
characters, not UTF-8 bytes).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import pickle
import re
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from contract_cases import fallbacks, nesting, rejects
from oracle import check

from vectorizer import (
    FallbackWarning,
    SourceUnavailableError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
    VectorizeError,
    VectorizeErrorGroup,
    VectorizeTypeError,
    vectorize,
)
from vectorizer.errors import SourceLocation

# -- helpers -----------------------------------------------------------------------------------


def errors_of(exc: VectorizeError) -> list[VectorizeError]:
    return list(exc.errors) if isinstance(exc, VectorizeErrorGroup) else [exc]


def expected_position(func, snippet: str, line_has: str = "") -> tuple[str, int, int, str]:
    """(file, line, column, source line) of `snippet` on the first line of func's source that
    contains `line_has` (default: the snippet itself)."""
    lines, first = inspect.getsourcelines(func)
    for offset, text in enumerate(lines):
        if (line_has or snippet) in text:
            return inspect.getsourcefile(func), first + offset, text.index(snippet) + 1, text.rstrip("\n")
    raise AssertionError(f"{snippet!r} not in the source of {func.__qualname__}")


def caret(err: VectorizeError) -> tuple[int, str, int, int]:
    """(line, source text, first caret column, column after the last caret) as rendered."""
    rendered = str(err).splitlines()
    for i, text in enumerate(rendered[:-1]):
        m = re.match(r"^ *(\d+) \| (.*)$", text)
        if m:
            body = rendered[i + 1][text.index("| ") + 2:]
            assert set(body.strip()) == {"^"}, rendered[i + 1]
            start = len(body) - len(body.lstrip(" ")) + 1
            return int(m.group(1)), m.group(2), start, start + body.count("^")
    raise AssertionError(f"no caret block in:\n{err}")


def args_for(func) -> list[np.ndarray]:
    """A small batch for each parameter, of the kind its annotation names."""
    kinds = {"int": np.array([1, 2]), "bool": np.array([True, False])}
    params = inspect.signature(func).parameters.values()
    return [kinds.get(getattr(p.annotation, "__name__", p.annotation), np.array([1.0, -2.0])) for p in params]


def refusal(func, stage: str) -> VectorizeError:
    """The error `vectorize(func, fallback="error")` raises at `stage` ("decoration" or "call")."""
    if stage == "decoration":
        with pytest.raises(VectorizeError) as info:
            vectorize(func, fallback="error")
        return info.value
    with pytest.raises(VectorizeError) as info:  # the typing analysis needs the argument kinds:
        vectorize(func, fallback="error")(*args_for(func))  # at the first call (or earlier)
    return info.value


def assert_points_at(err: VectorizeError, func, snippet: str, multiline: bool = False,
                     line_has: str = "") -> VectorizeError:
    """One of err's problems is at `snippet`, rendered with its source line, caret and hint."""
    filename, line, col, source = expected_position(func, snippet, line_has)
    found = [e for e in errors_of(err) if e.location and (e.location.line, e.location.column) == (line, col)]
    assert found, f"no problem reported at {line}:{col} ({snippet!r}); got:\n{err}"
    e = found[0]
    assert e.location.filename == filename
    assert f"{filename}:{line}:{col}: " in str(e)
    assert e.location.source_line.rstrip("\n") == source
    shown_line, shown_source, start, stop = caret(e)
    assert (shown_line, shown_source, start) == (line, source, col)
    if multiline:  # a statement spanning lines: at least one caret, at its first character
        assert stop > start
    else:
        assert stop - start == len(snippet), f"caret covers {stop - start} characters, expected {snippet!r}:\n{e}"
        assert e.location.end_column == col + len(snippet)
    assert e.hint and f"hint: {e.hint}" in str(e)
    return e


@dataclass(frozen=True)
class Case:
    func: str
    snippet: str  # the source text the caret must underline (its first line for multi-line ones)
    words: tuple[str, ...]  # the construct in the user's words: all must appear in the message
    stage: str = "decoration"  # when fallback="error" raises: syntax at decoration, typing at call
    cls: type = VectorizeError
    multiline: bool = False
    line_has: str = ""  # text identifying the line, when the snippet alone is ambiguous

    def function(self):
        return rejects.make_nonlocal() if self.func == "nonlocal_decl" else getattr(rejects, self.func)


CASES = [
    Case("gen_yield", "yield x", ("yield", "generator"), cls=UnsupportedSyntaxError),
    Case("gen_yield_from", "yield from x", ("yield",), cls=UnsupportedSyntaxError),
    Case("async_def", "async def async_def", ("async",), multiline=True),
    Case("await_expr", "await x", ("await",)),
    Case("with_stmt", "with x:", ("with",), multiline=True),
    Case("try_finally", "try:", ("try",), multiline=True),
    Case("global_decl", "global COUNTER", ("global",)),
    Case("nonlocal_decl", "nonlocal total", ("nonlocal",)),
    Case("lambda_expr", "lambda v: v + 1", ("lambda",)),
    Case("nested_def", "def inner(v):", ("nested function",), multiline=True),
    Case("class_inside", "class Inner:", ("class",), multiline=True),
    Case("list_comp", "[k * x for k in range(3)]", ("list comprehension",)),
    Case("set_comp", "{k * x for k in range(3)}", ("set comprehension",)),
    Case("dict_comp", "{k: x for k in range(3)}", ("dict comprehension",)),
    Case("generator_exp", "k * x for k in range(3)", ("generator expression",)),
    Case("walrus", "y := x * 2.0", (":=",)),
    Case("star_args", "*rest", ("*args",)),
    Case("star_kwargs", "**options", ("**kwargs",)),
    Case("star_in_call", "*TABLE", ("star",)),
    Case("print_call", "print(x)", ("print",), cls=UnsupportedCallError),
    Case("input_call", "input()", ("input",), cls=UnsupportedCallError),
    Case("open_call", "open(x)", ("open",), cls=UnsupportedCallError),
    Case("random_call", "random.random", ("random",), cls=UnsupportedCallError),
    Case("time_call", "time.time", ("time",), cls=UnsupportedCallError),
    Case("recursive_direct", "recursive_direct(n - 1)", ("recursive", "recursive_direct", "base case"), "call",
         cls=UnsupportedCallError),
    Case("unknown_builtin", "sorted(x)", ("sorted",), cls=UnsupportedCallError),
    Case("other_module_call", "other_refused(x)", ("other_refused", "'try'"), stage="call"),
    # attributes of modules, classes and locals: decided by the specialization (issue 30), else
    # refused at the call
    Case("module_attribute", "fractions.Fraction(x)", ("fractions.Fraction()", "differs per lane"), stage="call",
         cls=UnsupportedCallError),
    Case("value_attribute", "x.numerator", (".numerator",), stage="call", cls=UnsupportedCallError),  # .real: a number's
    Case("local_real", "y.real", (".real",), stage="call", cls=UnsupportedCallError),
    Case("list_literal", "[x, 1.0]", ("list",)),
    Case("dict_literal", "{1: x}", ("dict",)),
    Case("set_literal", "{x, 1.0}", ("set",)),
    # strings, `is` and `in` pass the fence at decoration (a call's uniform values may decide them:
    # passes/specialize.py); what remains after the specialization is refused at the call
    Case("string_value", '"abc"', ("string",), stage="call"),
    Case("complex_literal", "2j", ("complex",)),
    Case("is_comparison", "is", ("'is'",), line_has="x is x", stage="call"),
    Case("in_comparison", "in", ("'in'",), line_has="abs(x) in TABLE", stage="call"),
    Case("for_non_range", "values", ("for", "range"), line_has="for v in values", stage="call"),  # a tuple: a table
    Case("del_stmt", "del y", ("del",)),
    Case("import_inside", "import os", ("import",)),
    Case("match_stmt", "match x:", ("match",), multiline=True),
    Case("errstate_raise", "with", ("errstate", "raise", "FloatingPointError"), multiline=True),
    # Found by the typing analysis, which needs the argument kinds: raised at the first call.
    Case("int_array_power", "np.asarray(n) ** x", ("**", "int", "0-d array"), stage="call", cls=VectorizeTypeError),
    Case("maybe_unbound", "y", ("'y'", "unbound"), stage="call", line_has="return y"),
    Case("float_range", "limit", ("range", "float"), stage="call", cls=VectorizeTypeError, line_has="range(limit)"),
    Case("bitwise_float_array", "np.asarray(x) & 1", ("&", "arrays"), stage="call", cls=VectorizeTypeError),
    Case("huge_literal", "9223372036854775808", ("int64",), stage="call"),
    Case("call_in_and", "helper_ok(x)", ("helper_ok", "and"), stage="call"),
    Case("call_in_or", "helper_ok(x)", ("helper_ok", "or"), stage="call"),
    Case("call_in_ternary", "helper_ok(x)", ("helper_ok", "if"), stage="call"),
]


# -- every refused construct -------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.func)
def test_refused_with_location_caret_words_and_hint(case: Case):
    func = case.function()
    err = refusal(func, case.stage)
    assert isinstance(err, case.cls)
    e = assert_points_at(err, func, case.snippet, case.multiline, case.line_has)
    message = e.message.lower()
    for word in case.words:
        assert word.lower() in message, f"{word!r} not in {e.message!r}"


def test_columns_count_characters_not_bytes():
    """`    ñ = 1; y = (yield x)`: 'yield' is character 17, byte 18 (ñ is two UTF-8 bytes)."""
    err = refusal(rejects.gen_yield, "decoration")
    source = err.location.source_line
    assert source.rstrip() == "    ñ = 1; y = (yield x)"
    assert err.location.column == 17 == source.index("yield") + 1
    assert len(source[: source.index("yield")].encode()) + 1 == 18
    assert err.location.end_column == 24
    assert str(err).splitlines()[2].endswith("|                 ^^^^^^^")


def test_refused_constructs_cover_the_brief():
    """A guard against silently dropping a case from the table above."""
    assert len({c.func for c in CASES}) == len(CASES) >= 50


def test_yield_statement_is_named_as_a_generator():
    err = refusal(rejects.gen_yield_statement, "decoration")
    e = assert_points_at(err, rejects.gen_yield_statement, "yield x")
    assert "yield" in e.message


def test_mutual_recursion_without_a_base_case_is_refused_with_the_call_site():
    """mutual_b reaches itself only through mutual_a: with mutual_a's call back cut, no path of
    mutual_b returns, so the recursion has no type (mutual_a, which has a base case, vectorizes:
    tests/passes/test_recursion.py)."""
    err = refusal(rejects.mutual_b, "call")
    assert isinstance(err, UnsupportedCallError)
    assert "recursive" in err.message and "mutual_b" in err.message and err.hint
    assert err.location is not None, str(err)
    # reported at the call in the vectorized function (frontend/call_site_refusals.py: at_call_site), naming
    # where in the callee the recursive call is
    assert_points_at(err, rejects.mutual_b, "mutual_a(n)")
    _, line, col, _ = expected_position(rejects.mutual_a, "mutual_b(n - 1)")
    assert f"rejects.py:{line}:{col}" in err.message, err.message


def test_walrus_reports_one_problem():
    err = refusal(rejects.walrus, "decoration")
    assert len(errors_of(err)) == 1, str(err)


@pytest.mark.xfail(strict=True, reason="minor: statements spanning several lines (try, with, class, def, "
                   "else, match) get a single '^'; fence.py's own docstring shows '^^^' under 'try'")
def test_multiline_statement_keyword_is_underlined():
    err = refusal(rejects.try_finally, "decoration")
    assert_points_at(err, rejects.try_finally, "try", line_has="try:")


# -- several problems at once ------------------------------------------------------------------


def test_all_problems_of_a_function_are_reported_at_once():
    err = refusal(rejects.many_problems, "decoration")
    assert isinstance(err, VectorizeErrorGroup)
    snippets = ["global COUNTER", "print(x)", "[x]", "try:"]
    assert len(err.errors) == len(snippets), str(err)
    for snippet in snippets:
        assert_points_at(err, rejects.many_problems, snippet, multiline=snippet == "try:")
    text = str(err)
    assert text.startswith(f"{len(snippets)} problems found:")
    positions = [(e.location.line, e.location.column) for e in err.errors]
    assert len(set(positions)) == len(positions)
    for e in err.errors:
        assert str(e.location) in text


@pytest.mark.xfail(strict=True, reason="BUG: problems found by the typing analysis (float range bound, "
                   "variable maybe unbound, ...) are raised one at a time: only the first is reported")
def test_all_typing_problems_are_reported_at_once():
    err = refusal(rejects.many_typing_problems, "call")
    assert_points_at(err, rejects.many_typing_problems, "limit", line_has="range(limit)")
    assert_points_at(err, rejects.many_typing_problems, "result", line_has="return result")


def test_first_typing_problem_is_reported():
    err = refusal(rejects.many_typing_problems, "call")
    assert_points_at(err, rejects.many_typing_problems, "limit", line_has="range(limit)")


# -- decorated, methods, nested functions ------------------------------------------------------


def test_decorators_are_stripped_and_positions_map_to_the_file():
    err = refusal(nesting.decorated_bad, "decoration")
    assert_points_at(err, nesting.decorated_bad, "[x]")


def test_decorated_function_is_vectorized():
    vf = vectorize(nesting.decorated_good, fallback="error")
    check(vf, nesting.decorated_good, np.array([4.0, -1.0, 0.0, -0.0, np.nan, np.inf]))


def test_decorated_at_import_with_fallback_error_raises_at_decoration():
    sys.modules.pop("contract_cases.decorated_error", None)
    with pytest.raises(UnsupportedSyntaxError) as info:
        importlib.import_module("contract_cases.decorated_error")
    err = info.value
    assert err.location.filename.endswith("decorated_error.py")
    assert err.location.source_line.strip() == "with x:"
    assert "'with'" in err.message
    assert "contract_cases.decorated_error" not in sys.modules


def test_method_positions_map_to_the_class_body():
    err = refusal(nesting.Shapes.method_bad, "decoration")
    e = assert_points_at(err, nesting.Shapes.method_bad, "yield x")
    assert e.location.source_line.startswith("        ñ = 1;")  # the file's indentation, kept


def test_doubly_nested_class_positions():
    err = refusal(nesting.Shapes.Inner.deep_bad, "call")  # for v in x: x may be given a tuple
    e = assert_points_at(err, nesting.Shapes.Inner.deep_bad, "x", line_has="for v in x")
    assert e.location.column == 22


def test_static_method_is_vectorized():
    f = nesting.Shapes.static_good
    vf = vectorize(f, fallback="error")
    check(vf, f, np.array([3.0, -1.0, np.nan, 0.0]), np.array([[1.0], [-2.0]]))


def test_bound_method_is_vectorized():
    """A bound method is its function with `self` a value the code is specialized on (issue 51:
    faces/bound.py; tests/contract/test_callable_objects.py has the rest)."""
    method = nesting.Shapes().uses_self
    check(vectorize(method, fallback="error"), method, np.array([1.0, -2.5, 0.0, -0.0, np.nan, np.inf, 5e-324]))


def test_nested_function_positions_map_to_the_file():
    inner = nesting.make_inner_bad()
    err = refusal(inner, "decoration")
    e = assert_points_at(err, inner, "{ñé: x}")
    assert e.location.column == len("        ñé = 2.0; return ") + 1


def test_nested_function_is_vectorized():
    inner = nesting.make_inner_good()
    vf = vectorize(inner, fallback="error")
    check(vf, inner, np.array([1.0, -2.5, np.inf, -0.0]), 4)
    check(vf, inner, np.array([1.0, -2.5, np.nan, 3.0]), np.array([0, 3, -1, 7]))


# -- fallback="warn" (the default) ---------------------------------------------------------------


@pytest.mark.parametrize("func, construct", [
    (fallbacks.uses_try, "try:"),  # refused by the fence
    (fallbacks.call_in_conditional, "double(x)"),  # refused by the typing analysis
], ids=["fence", "analysis"])
def test_fallback_warns_once_and_gives_per_element_results(func, construct):
    _, line, col, _ = expected_position(func, construct)
    vf = vectorize(func)
    nargs = len(inspect.signature(func).parameters)
    calls = [
        (np.array([4.0, -1.0, 0.0, np.nan, -np.inf]), np.array([1, 0, -3, 2, 5])),
        (np.array([[2.0], [-0.0]]), np.array([1, -1, 0])),
        (9.0, 2),
        (np.array([1, 2, 3], dtype=np.int32), np.array([True, False, True])),  # another specialization
    ]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in calls:
            check(vf, func, *args[:nargs])
    fallback = [w for w in caught if issubclass(w.category, FallbackWarning)]
    assert len(fallback) == 1, [str(w.message) for w in caught]
    message = str(fallback[0].message)
    assert func.__qualname__ in message and "element by element" in message
    assert f":{line}:{col}" in message


def test_fallback_warning_points_at_the_callers_line():
    vf = vectorize(fallbacks.uses_try)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vf(np.array([1.0, -1.0]))
    assert [w.filename for w in caught if issubclass(w.category, FallbackWarning)] == [__file__]


def test_fallback_raises_the_first_failing_lane_like_the_loop():
    vf = vectorize(fallbacks.raises_on_negative)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        check(vf, fallbacks.raises_on_negative, np.array([1.0, 2.0, -3.0, 0.0, -4.0]))
        check(vf, fallbacks.raises_on_negative, np.array([1.0, 0.0, -3.0]))
        check(vf, fallbacks.raises_on_negative, np.array([[1.0, 2.0], [4.0, 8.0]]))


# -- functions whose source cannot be read -----------------------------------------------------


def test_lambda_is_refused_with_source_unavailable():
    square = eval("lambda x: x * x * 2.0")  # noqa: S307 - a lambda with no file to read
    with pytest.raises(SourceUnavailableError) as info:
        vectorize(square, fallback="error")
    err = info.value
    assert "lambda" in err.message and err.hint and "def" in err.hint
    assert "<string>:1" in err.message  # where the lambda is


def test_lambda_falls_back_with_one_warning():
    square = eval("lambda x: x * x * 2.0")  # noqa: S307
    vf = vectorize(square)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(vf, square, np.array([1.5, -2.0, np.nan]))
        check(vf, square, np.array([3, 4]))
    assert [issubclass(w.category, FallbackWarning) for w in caught] == [True]
    assert "lambda" in str(caught[0].message)


def test_a_closure_lambda_reads_its_cell():
    """A lambda reading an enclosing function's variable is read as a `def` closure (issue 51)."""
    k = 2.0
    square = lambda x: x * x * k  # noqa: E731 - a closure (k)
    check(vectorize(square, fallback="error"), square, np.array([1.5, -2.0, np.nan, -0.0, np.inf, 1e200]))


def test_exec_defined_function_is_refused_with_source_unavailable():
    namespace: dict = {}
    exec("def from_exec(x):\n    return x + 1.0\n", namespace)  # noqa: S102
    with pytest.raises(SourceUnavailableError) as info:
        vectorize(namespace["from_exec"], fallback="error")
    err = info.value
    assert "from_exec" in err.message and "source" in err.message and err.hint
    vf = vectorize(namespace["from_exec"])
    with pytest.warns(FallbackWarning, match="from_exec"):
        check(vf, namespace["from_exec"], np.array([1.0, -2.0]))


def test_non_functions_are_refused():
    import math

    with pytest.raises(VectorizeError, match="Python function"):
        vectorize(math.sqrt, fallback="error")
    x = np.array([0.0, 2.0, 1e300, 5e-324])
    with pytest.warns(FallbackWarning):  # by default: numpy.vectorize's element-by-element semantics
        assert vectorize(math.sqrt)(x).tolist() == [math.sqrt(v) for v in x.tolist()]


def test_errors_and_locations_survive_pickling_unchanged():
    """A VectorizeError raised in a worker process reaches the parent as it was raised."""
    loc = SourceLocation("model.py", 12, 14, 21, "    y = (yield x)\n")
    assert pickle.loads(pickle.dumps(loc)) == loc == ("model.py", 12, 14, 21, "    y = (yield x)\n")
    assert copy.deepcopy(loc).end_column == 21 and str(loc) == "model.py:12:14"
    assert repr(loc).startswith("SourceLocation(filename='model.py', line=12, column=14")
    with pytest.raises(AttributeError):
        loc.line = 3  # type: ignore[misc]
    one = UnsupportedSyntaxError("'yield' makes 'f' a generator", loc, hint="return one value", construct="yield")
    group = VectorizeErrorGroup([one, VectorizeTypeError("float range bound", SourceLocation("model.py", 13, 5))])
    for err in (one, group):
        back = pickle.loads(pickle.dumps(err))
        assert type(back) is type(err) and str(back) == str(err) and back.args == err.args
        assert (back.message, back.location, back.hint, back.construct, back.code) == (
            err.message, err.location, err.hint, err.construct, err.code)
    assert [str(e) for e in pickle.loads(pickle.dumps(group)).errors] == [str(e) for e in group.errors]
