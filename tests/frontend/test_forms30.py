"""Imports inside a function (frontend/local_imports.py), lists read at constant positions
(frontend/local_lists.py) and try/except (frontend/try_blocks.py): against the scalar oracle on
both backends with hostile inputs, values and exceptions; and the forms that stay refused, with
what stops them and where."""

from __future__ import annotations

import forms30_cases as C
import numpy as np
import pytest
from oracle import check, libm_ulps

from vectorizer import VectorizeError, vectorize
from vectorizer.frontend.local_imports import hoist
from vectorizer.frontend.namespace import Namespace
from vectorizer.frontend.parse import parse_function
from vectorizer.frontend.source import source_of

NAN, INF = float("nan"), float("inf")
HOSTILE = np.array([0.0, -0.0, 1.5, -2.25, NAN, INF, -INF, 5e-324, -5e-324, 1e308, -1e308, 300.0, 709.78,
                    709.8, -745.2, 2.0**63, -(2.0**63)])
POSITIVE = np.array([1.5, 5e-324, 1e308, INF, 300.0, 2.0**63, 0.25])
BIG = np.array([0, 1, -1, 3, 4, 2**62, -(2**63), 2**63 - 1], dtype=np.int64)
# The math functions (libm class) a case's value goes through: the NumPy backend is held to the
# bound derived from them (oracle.libm_ulps); Numba calls libm, bit for bit.
LIBM = {"trunc_exp": ("exp",), "ppds": ("exp",), "assign_then_raise": ("log",), "exp_or_name": ("exp",),
        "exp_caught_as_value_error": ("exp",)}
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

CASES = [
    (C.jd_split, (HOSTILE, HOSTILE[:, None])),
    (C.jd_split, (BIG, 0.5)),
    # (no 1e308: the scalar function's np.float64 sum would overflow with a warning)
    (C.module_alias, (HOSTILE[(np.abs(HOSTILE) < 1e300) | np.isinf(HOSTILE)],)),  # floor(inf): OverflowError
    (C.module_alias, (HOSTILE[np.abs(HOSTILE) < 1e300],)),
    (C.other_module, (HOSTILE,)),
    (C.dew_point, (HOSTILE, HOSTILE[:, None])),  # ValueError where vp is out of [-148, 392]
    (C.dew_point, (HOSTILE, np.array([-148.0, 0.0, 392.0, -0.0])[:, None])),
    (C.dew_point, (BIG, 3)),
    (C.branch_pairs, (HOSTILE[HOSTILE != 0],)),
    (C.branch_pairs, (HOSTILE,)),  # log(0.0): ValueError on the first zero lane
    (C.trunc_exp, (HOSTILE,)),
    (C.trunc_exp, (BIG,)),  # exp of a huge int: OverflowError, caught
    (C.ppds, (HOSTILE, 2.5, np.array([[0.0], [300.0], [1.5]]))),  # 1 / 0 in the caller is not caught
    (C.ppds, (HOSTILE[HOSTILE != 0], -3.0, 0.0)),
    (C.exp_or_name, (HOSTILE, np.array([[-1.5], [NAN]]))),
    (C.exp_or_name, (np.array([709, 710, -745, 2**62, -(2**63)]), 2)),
    (C.exp_or_name, (np.nextafter(709.782712893384, np.array([0.0, 1000.0, 709.782712893384])), 0.0)),
    (C.exp_caught_as_value_error, (HOSTILE[HOSTILE < 709],)),
    (C.exp_caught_as_value_error, (HOSTILE,)),  # OverflowError at 709.8, not caught
    (C.assign_then_raise, (HOSTILE,)),
    (C.assign_then_raise, (BIG,)),
    (C.unmatched, (POSITIVE,)),
    (C.unmatched, (HOSTILE,)),  # ZeroDivisionError: no handler matches it
    (C.handler_raises, (POSITIVE,)),
    (C.handler_raises, (HOSTILE,)),  # the handler's own exception, on the first negative lane
    (C.explicit_raise, (HOSTILE, np.array([[0], [2], [3], [4], [-1]]))),
    (C.explicit_raise, (HOSTILE, BIG[:, None])),
    (C.area, (HOSTILE,)),
    (C.spread, (HOSTILE,)),  # math.sqrt of a negative: ValueError on the first such lane
    (C.spread, (POSITIVE, BIG[:, None])),
    (C.hsv_to_rgb, (HOSTILE[np.isfinite(HOSTILE)], np.array([[0.0], [0.5], [1.0], [-0.0]]), 0.75)),
    (C.hsv_to_rgb, (HOSTILE, 0.25, np.array([[0.75], [NAN]]))),  # int(nan), int(inf) raise
    (C.hsv_to_rgb, (np.linspace(-2.0, 2.0, 97), 0.3, 0.9)),
    (C.hsv_to_rgb, (BIG, 0.5, 1.0)),  # int(2**62 * 6.0) is beyond int64: those lanes are Python's
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_matches_the_scalar_function(func, args, backend):
    names = LIBM.get(func.__name__, ())
    ulps = 0 if backend == "numba" or not names else libm_ulps(func, *args, names=names)
    check(vectorize(func, backend=backend, fallback="error"), func, *args, ulps=ulps)


@pytest.mark.parametrize("func,construct,line_has", [
    (C.import_in_branch, "an import under 'if'", "from math import sqrt"),
    (C.import_rebound, "'sqrt' is bound more than once", "from math import sqrt"),
    (C.import_side_effect, "the import of 'os': the operating system is a side effect", "import os"),
    (C.import_class, "'fractions.Fraction' is imported here, but it is not a number", "x + fractions.Fraction"),
    (C.list_written, "assignment to an item is not supported", "b[0] = x"),  # the write, not the list
    (C.list_indexed_by_lane, "lists are not supported", "b = [1.0, x]"),
    (C.try_finally, "'try' with 'finally' is not supported", "try:"),
])
def test_what_stays_refused_names_the_construct_and_where(func, construct, line_has):
    with pytest.raises(VectorizeError) as info:
        vectorize(func, fallback="error")(np.array([1.0, 2.0]), *([np.array([0, 1])] if "lane" in func.__name__ else []))
    text = str(info.value)
    assert construct in text, text
    assert "forms30_cases.py:" in text and line_has in text, text


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func", [C.float_modulus, C.gap_in_cases])
def test_cases_with_a_gap_are_refused_on_the_lanes_that_fall_through(func, backend):
    # Issue 51: refused at run time on the first lane that gets None (frontend/none_ends.py),
    # batched on every other; they were refused for every lane when decorated.
    vf = vectorize(func, backend=backend, fallback="error")
    check(vf, func, np.array([0.0, 2.0, 4.0, 3.0, -2.0, 6.0]))  # no lane falls through (gap_in_cases: 3 % 3 == 0)
    check(vf, func, np.array([0.0, 2.0, 1.5, 5.0, NAN]))  # refused, naming the first lane that does


def test_an_import_becomes_a_name_of_the_namespace():
    ns = Namespace.of_function(C.jd_split)
    parsed = hoist(parse_function(source_of(C.jd_split)), ns)
    code = parsed.module.code_for_node(parsed.func)
    assert "import" not in code and "math_modf(jd1)" in code
    assert ns.resolve("math_modf").name == "math.modf"


def test_the_cli_reads_math_imports_without_importing_anything(tmp_path):
    from vectorizer.frontend.source import source_from_text

    text = "def f(x):\n    from math import modf\n    import math as m\n    return modf(x)[0] + m.pi\n"
    ns = Namespace.of_module_source(text, str(tmp_path / "m.py"), "m")
    parsed = hoist(parse_function(source_from_text(text, "f", str(tmp_path / "m.py"), 1)), ns)
    code = parsed.module.code_for_node(parsed.func)
    assert "import" not in code and "math_modf(x)" in code, code
    assert ns.resolve(code.split(" + ")[1].split(".")[0]).kind == "math", code  # `m` names the math module
    other = "def g(x):\n    import units\n    return units.SCALE * x\n"
    with pytest.raises(VectorizeError, match="only math and numpy are known"):
        hoist(parse_function(source_from_text(other, "g", str(tmp_path / "m.py"), 1)),
              Namespace.of_module_source(other, str(tmp_path / "m.py"), "m"))


def test_try_lanes_run_the_handler_through_the_scalar_function():
    """Lanes whose body raises are the flagged ones; the others never touch the handler."""
    vf = vectorize(C.trunc_exp, fallback="error")
    x = np.array([1.0, 710.0, -1.0, 1e4])
    got = vf(x)
    assert got[1] == got[3] == 1.7976931348622732e+308  # the handler's value, exactly
    check(vf, C.trunc_exp, x, ulps=libm_ulps(C.trunc_exp, x, names=("exp",)))


def test_a_lambda_that_cannot_be_told_apart_is_refused():
    with pytest.raises(VectorizeError) as info:
        vectorize(C.two_on_a_line, fallback="error")(np.array([1.0, 2.0]))
    assert "2 lambdas start on that line" in str(info.value) and "forms30_cases.py:" in str(info.value), str(info.value)


def test_a_lambda_closure_reads_its_cell():
    """A closure's free variables are its cells (issue 51; it was refused): `a` is 2.0 here."""
    func = C.make_scaled(2.0)
    check(vectorize(func, fallback="error"), func, np.array([1.0, -0.0, 2.5, np.nan, np.inf, 5e-324, -1e308]))


def test_a_lambda_is_named_after_what_it_is_assigned_to():
    vf = vectorize(C.area, fallback="error")
    vf(np.array([1.0]))
    assert vf.__name__ == "area" and "def area(" in vf.source


CLI_SOURCE = '''import math

from vectorizer import vectorize


def trunc_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return 1e308


@vectorize
def caller(x: float, a: float) -> float:
    from math import fabs
    return a * trunc_exp(fabs(x)) + 1.0
'''


def test_the_cli_generates_imports_and_try_without_importing_the_source(tmp_path, monkeypatch):
    """`vectorizer generate` reads the source only: `from math import fabs` and the callee's
    try/except are batched, and the module's own flag-and-patch runs the handler."""
    import importlib

    from vectorizer.faces.cli.main import main

    (tmp_path / "m30k.py").write_text(CLI_SOURCE)
    assert main(["generate", str(tmp_path / "m30k.py")]) == 0
    text = (tmp_path / "m30k_batched.py").read_text()
    assert "_vz_per_element(_scalar_caller" not in text  # batched, not the per-element loop
    monkeypatch.syspath_prepend(str(tmp_path))
    batched, scalar = importlib.import_module("m30k_batched"), importlib.import_module("m30k")
    x = np.array([1.0, 800.0, -900.0, NAN, -0.0, 5e-324, -INF])
    f = scalar.caller.scalar
    check(batched.caller, f, x, 2.0, ulps=libm_ulps(f, x, 2.0, names=("exp",)))


def test_a_guarded_exp_stays_batched():
    """`try: return exp(x)` / `except OverflowError: return big` is a test on x: no lane is
    re-run through the scalar function for overflowing."""
    vf = vectorize(C.trunc_exp, fallback="error")
    vf(np.array([1.0]))
    assert "709.782712893384" in vf.source
