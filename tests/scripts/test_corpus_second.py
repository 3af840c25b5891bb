"""The second corpus's machinery on local functions (nothing is installed): the fallback ratio
(corpus/fallback.py), the selection rule's parts (corpus/second/selection.py) and excluded.md.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's corpus/ package

from corpus.fallback import broadcast_loop, fallback_ratio  # noqa: E402
from corpus.report import excluded_markdown  # noqa: E402
from corpus.second.selection import (  # noqa: E402
    batched_params,
    control_flow_nodes,
    doc_type,
    judge,
    kind_of,
)


def refused(x, y):  # try/finally: refused by the front end, run element by element by the fallback
    try:
        z = x * y + 1.0
    finally:
        pass
    return z


def test_the_loop_broadcasts_the_arguments_as_numpy_does():
    a, b = np.arange(3.0).reshape(3, 1), np.array([10.0, 20.0])
    assert broadcast_loop(refused, [a, b]) == [x * y + 1.0 for x in (0.0, 1.0, 2.0) for y in (10.0, 20.0)]


def test_the_fallback_ratio_times_the_warned_fallback_against_the_loop():
    x = np.linspace(0.5, 2.0, 2000)
    fb = fallback_ratio(refused, [x, x[:1]], "numpy")
    assert fb["lanes"] == 2000
    assert fb["warning"].startswith("FallbackWarning")  # the default fallback="warn" path was timed
    assert fb["ratio"] == pytest.approx(fb["fallback_seconds"] / fb["loop_seconds"])
    assert fb["loop_seconds"] > 0 and fb["first_call_seconds"] > 0


def test_the_fallback_ratio_uses_the_given_vectorize_and_the_loop():
    calls = []

    def slow_vectorize(f, backend):  # a stand-in: element by element through Python twice
        def run(*arrays):
            calls.append(backend)
            return [broadcast_loop(f, arrays), broadcast_loop(f, arrays)][0]
        return run
    x = np.linspace(0.5, 2.0, 20000)
    fb = fallback_ratio(refused, [x, x], "numba", vectorize=slow_vectorize)
    assert calls == ["numba"] * 4  # a warm-up call, then three timed ones
    assert fb["warning"] == "no warning"
    assert fb["ratio"] == pytest.approx(fb["fallback_seconds"] / fb["loop_seconds"])  # timings: noisy here


def numpydoc(x, n, name):
    """Numpydoc.

    Parameters
    ----------
    x : float or array_like
    n : int
    name : str
    """


def google(x, flag):
    """Google.

    Args:
        x (float): a number.
        flag (bool): a switch.
    """


def sphinx(x, c):
    """Sphinx.

    :param float x: a number.
    :type c: complex
    """


def test_docstring_types_in_three_styles():
    assert [doc_type(numpydoc.__doc__, p) for p in ("x", "n", "name")] == ["float or array_like", "int", "str"]
    assert [doc_type(google.__doc__, p) for p in ("x", "flag")] == ["float", "bool"]
    assert [doc_type(sphinx.__doc__, p) for p in ("x", "c")] == ["float", "complex"]
    assert doc_type(sphinx.__doc__, "missing") is None
    # numpydoc with the name's dependence in parentheses (seawater): not Google's `name (type):`
    assert doc_type("Parameters\n----------\ns(p) : array_like\n    salinity\n", "s") == "array_like"


def test_a_type_is_a_number_by_its_words():
    assert kind_of("typing.Union[numpy._typing._array_like._Buffer, float]") == "f"
    assert kind_of("StrictNumber") == "f" and kind_of("int") == "i" and kind_of("bool") == "b"
    assert kind_of("float or int") == "f"
    assert [kind_of(t) for t in ("Point", "Vector", "complex", "str", "Color")] == [None] * 5


def typed(x: float, n: int = 3, mode: str = "a", later: float = 1.0, *, k: float = 2.0):
    return x * n


def test_parameters_batched_options_and_reasons():
    params, options = batched_params(typed)
    assert params == [["x", "f", None, None], ["n", "i", 0, 100]]
    assert options == {"mode": "'a'", "later": "1.0", "k": "2.0"}  # lanes are passed by position
    assert batched_params(numpydoc) == "parameter 'name' is not a number by its docstring: str"
    assert batched_params(lambda *a: 0) == "takes *args or **kwargs"
    assert batched_params(lambda *, k: k) == "keyword-only parameter 'k' without a default"
    assert batched_params(lambda: 1.0) == "no number parameter"
    untyped, _ = batched_params(lambda a: a)
    assert untyped == [["a", "?", None, None]]


def branchy(n):
    if n < 0:
        raise ValueError("negative")
    total = 0
    for k in range(n):
        total += k if k % 2 else -k
    return total


def test_control_flow_nodes_and_the_probe():
    assert control_flow_nodes(branchy) == 5  # if, raise, for, conditional expression, return
    entry = judge(branchy)  # untyped: ints (0..100) return numbers where floats raise TypeError
    assert entry["params"] == [["n", "i", 0, 100]] and entry["typical_rate"] == 1.0
    assert judge(text).startswith("numbers on 0% of the typical lanes; most lanes returned str")
    assert judge(domain) == "numbers on 0% of the typical lanes; most lanes raised ValueError: math domain error (256/256)"


def text(x):
    return str(x)


def domain(x):
    return math.log(-abs(x) - 1.0)


def test_excluded_markdown_lists_every_entry_with_its_reason():
    text = excluded_markdown([{"package": "p", "id": "p.f"}],
                             [{"package": "p", "what": "p.g", "reason": "no number parameter"},
                              {"package": "q", "what": "q", "reason": "not pure Python: a.so"}], "The rule.")
    assert "The rule." in text and "| p | 1 | 1 |" in text and "| q | 0 | 1 |" in text
    assert "| p | `p.g` | no number parameter |" in text and "| q | `q` | not pure Python: a.so |" in text


def test_one_candidate_per_function_even_when_a_package_ships_a_file_twice(tmp_path, monkeypatch):
    from corpus.second.selection import candidates, public_modules

    body = "def twice(n):\n    return n + 1\n\n\ndef Once(n):\n    return n\n"
    (tmp_path / "shipped_twice").mkdir()
    (tmp_path / "shipped_twice" / "__init__.py").write_text(body + "\n\ndef _private(n):\n    return n\n")
    (tmp_path / "shipped_twice" / "copy.py").write_text(body.replace("Once", "other"))
    monkeypatch.syspath_prepend(str(tmp_path))
    modules, failed = public_modules("shipped_twice")
    assert failed == [] and [m.__name__ for m in modules] == ["shipped_twice", "shipped_twice.copy"]
    found = [(module, name) for module, name, _ in candidates("shipped_twice", modules)]
    assert found == [("shipped_twice", "twice"), ("shipped_twice", "Once"), ("shipped_twice.copy", "other")]
