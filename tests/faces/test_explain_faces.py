"""The explain report from the other doors: `vectorize(f, explain=...)` (a report per new
specialization, as it is made), `.explain()` on numpy.vectorize-style wrappers (otypes=,
signature=) and on callables run element by element. The values of every call are the scalar
function's, lane by lane: explaining changes no code.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import textwrap
import warnings

import numpy as np
import pytest

from vectorizer import FallbackWarning, vectorize, vmap

SOURCE = textwrap.dedent('''\
    import math


    def demo(x: float, y: float, n: int = 5) -> float:
        scale = 2.0
        if n > 3:
            scale = 3.0
        r = x / y if x > 0.0 else -x
        while r > 1.0:
            r = r / scale
        return r


    def option(x: float, mode=None) -> float:
        if mode is None:
            return x + 1.0
        return x * 2.0


    def norm(v) -> float:
        return math.sqrt(v[0] * v[0] + v[1] * v[1])


    def pick(p):
        if p["x"] > 0.0:
            return {"y": p["x"] * p["w"]}
        return {"y": -p["x"]}


    def refused(x: float) -> float:
        with open("f") as fh:
            x = x + len(fh.read())
        return x
    ''')
LINE = {text.strip(): i + 1 for i, text in enumerate(SOURCE.splitlines())}


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "explained_faces.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("explained_faces_for_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def _row(report: str, text: str) -> list[str]:
    """The margin of one source line in a text report: its number and tags."""
    line = next(r for r in report.splitlines() if r.endswith("| " + text) or r.rstrip().endswith("|" + text))
    return line.split("|")[0].split()


def _oracle(f, *columns):
    return [f(*lane) for lane in zip(*(c.tolist() for c in columns))]


def test_explain_true_reports_each_new_specialization_once(module, capsys):
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-20, 20, 500), rng.uniform(0.5, 2.0, 500)
    vf = vectorize(module.demo, explain=True)
    assert vf(x, y, 5).tolist() == _oracle(module.demo, x, y, np.full(500, 5))
    first = capsys.readouterr().err
    assert first.startswith("vectorizer explain:") and "demo (" in first
    # n is one value for all lanes here: its `if` stays Python; x's `if` is a mask, r's loop masked
    assert _row(first, "    if n > 3:")[1:] == ["if"]
    assert "mloop" in _row(first, "    while r > 1.0:")
    vf(x[:7], y[:7], 5)  # the same specialization: no second report
    assert capsys.readouterr().err == ""
    n = rng.integers(0, 8, 500)
    assert vf(x, y, n).tolist() == _oracle(module.demo, x, y, n)
    second = capsys.readouterr().err
    assert second.count("vectorizer explain:") == 1 and "mask" in _row(second, "    if n > 3:")


def test_explain_path_writes_the_html_report(module, tmp_path, capsys):
    target = tmp_path / "report.html"
    vf = vectorize(module.demo, explain=target)
    x = np.linspace(-3.0, 3.0, 50)
    assert vf(x, 1.5).tolist() == _oracle(module.demo, x, np.full(50, 1.5), np.full(50, 5))
    assert capsys.readouterr().err.strip() == f"vectorizer: explain report written to {target}"
    page = target.read_text(encoding="utf-8")
    assert page.lstrip().lower().startswith("<!doctype html") and "while r &gt; 1.0:" in page


def test_explain_names_the_values_a_specialization_is_made_for(module, capsys):
    vf = vectorize(module.option, explain=True)
    x = np.array([0.0, -0.0, np.inf, np.nan, 5e-324])
    for mode in (None, "double"):
        got = vf(x, mode)
        expected = [module.option(v, mode) for v in x.tolist()]
        assert np.array_equal(got, expected, equal_nan=True)
        report = capsys.readouterr().err
        assert f"mode={mode!r} (specialized on)" in report and "refused" not in report.splitlines()[1]


def test_explain_of_a_refused_function_lists_its_reasons_and_still_falls_back(module, capsys, tmp_path):
    (tmp_path / "f").write_text("abc")
    vf = vectorize(module.refused, explain=True)
    with warnings.catch_warnings(record=True) as caught, pytest.MonkeyPatch.context() as mp:
        warnings.simplefilter("always")
        mp.chdir(tmp_path)
        got = vf(np.array([1.0, 2.5]))
    assert got.tolist() == [4.0, 5.5]  # the scalar function, lane by lane (len("abc") == 3)
    assert any(issubclass(w.category, FallbackWarning) for w in caught)
    report = capsys.readouterr().err
    line = LINE['with open("f") as fh:']
    assert "falls back" in report and f"explained_faces.py:{line}:" in report


def test_numpy_style_wrapper_explains_with_its_own_argument_layout(module):
    f = vectorize(module.demo, otypes=[float])
    report = f.explain(np.array([1.0, -2.0]), np.array([0.5, 0.5]), 2)
    assert "vectorized" in report.splitlines()[0] and "n: int uniform" in report
    g = vectorize(module.norm, signature="(k)->()")
    v = np.array([[3.0, 4.0], [-0.0, 1e-160], [np.inf, 1.0]])
    assert np.array_equal(g(v), [module.norm(row) for row in v.tolist()])
    report = g.explain(v)
    assert "v: float[2] batched" in report  # one lane's own array: the core dimension


def test_element_by_element_callable_says_why_there_is_no_code(tmp_path):
    f = vectorize(math.cos)
    text = f.explain(np.array([0.0]))
    assert "numpy.vectorize" in text and "builtin_function_or_method" in text
    target = tmp_path / "cos.html"
    f.explain(html=target)
    assert "numpy.vectorize" in target.read_text(encoding="utf-8")


def test_vmap_explains_the_lanes_a_call_would_run(module):
    f = vmap(module.norm, in_axes=(1,))  # examples along axis 1: one example is a column of 2
    v = np.array([[3.0, -0.0, np.inf], [4.0, 1e-160, 1.0]])
    assert np.array_equal(f(v), [module.norm(col) for col in v.T.tolist()])
    report = f.explain(v)
    assert "v: float[2] batched" in report and "vectorized" in report.splitlines()[0]
    g = vmap(module.demo, in_axes=(0, 0, None))
    x = np.array([2.0, -3.0])
    assert "n: int uniform" in g.explain(x, x + 1.0, 4)


def test_vmap_of_pytrees_explains_the_function_of_the_leaves_after_a_call(module):
    f = vmap(module.pick)
    p = {"x": np.array([1.5, -2.0, 0.0]), "w": np.array([2.0, 3.0, -0.0])}
    before = f.explain(p)
    assert "a call decides whether it runs as generated code" in before
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)  # the compiled path: no fallback warning
        out = f(p)
    rows = [module.pick({"x": a, "w": b}) for a, b in zip(p["x"].tolist(), p["w"].tolist())]
    assert np.array_equal(out["y"], [r["y"] for r in rows])
    after = f.explain(p)
    assert "vectorized" in after.splitlines()[0] and 'if p["x"] > 0.0:' not in after  # the leaves' function
    assert "mask" in after


def test_vmap_of_a_callable_that_is_no_function_says_why():
    assert "no generated code" in vmap(math.cos).explain(np.array([0.0]))


def test_the_loop_chart_covers_the_whole_run_downsampled_with_every_compaction():
    """A loop of 10,597 iterations (a long tail after three compactions) is drawn whole: at most
    COLUMNS bars whose tooltips, together, name every iteration once, each bar the highest count
    of its iterations, and a mark at every compaction, the late ones too."""
    import re
    import xml.etree.ElementTree as ET

    from vectorizer.faces import explain_html

    total = 10_597
    counts = [(max(1, 20_000 >> min(i, 14)) if i < 40 else 3 if i < 10_000 else 1, 20_000) for i in range(total)]
    compactions = [1, 3, 37, 9_999]
    svg = explain_html._chart(counts, compactions, first_only=False)
    root = ET.fromstring(svg.split("<figcaption")[0].removeprefix('<figure style="margin:0">'))
    ns = "{http://www.w3.org/2000/svg}"
    bars = root.findall(f"{ns}rect")
    assert 0 < len(bars) <= explain_html.COLUMNS
    covered = []
    for bar in bars:
        title = bar.find(f"{ns}title").text
        first, _, last = re.match(r"iterations? (\d+)(-(\d+))?", title).group(1, 2, 3)
        low, high = int(first), int(last or first)
        covered.extend(range(low, high + 1))
        assert title.split(": ")[1].startswith(f"{max(a for a, _ in counts[low:high + 1]):,} active at most")
    assert covered == list(range(total))  # every iteration, once, in order
    marks = [line for line in root.findall(f"{ns}line") if line.get("stroke") == "#dc2626"]
    assert [int(m.find(f"{ns}title").text.split()[-1]) for m in marks] == compactions
    xs = [float(m.get("x1")) for m in marks]
    assert xs == sorted(xs) and xs[-1] > 0.9 * 760 - 10  # the late compaction sits at the right end
    assert f"iteration {total - 1:,}" in svg and "all 10,597 iterations" in svg
