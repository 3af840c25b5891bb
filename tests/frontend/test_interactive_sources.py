"""Functions defined in an IPython cell, by `exec`, or with `python -c` (frontend/source.py).

IPython keeps each cell's text in linecache and compiles a cell one top-level statement at a
time: such a function is read from that text, checked to be the code that runs (`running_code`),
and vectorized. Where no text is held (`exec` of a bare string, `python -c`), the function runs
element by element, at the loop's speed, after one FallbackWarning that says why. Real IPython
(its InteractiveShell and run_cell), real subprocesses.
"""

from __future__ import annotations

import linecache
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from oracle import check

from vectorizer import FallbackWarning, vectorize
from vectorizer.errors import SourceUnavailableError, StaleSourceError
from vectorizer.frontend.source import source_of

HOSTILE = np.array([0.25, 4.0, -1.0, -0.0, 0.0, np.nan, np.inf, -np.inf, 5e-324, 1e308, 2.0**53])


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """IPython's own shell, its history in memory and its profile in a temporary directory."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    previous = os.environ.get("IPYTHONDIR")
    os.environ["IPYTHONDIR"] = str(tmp_path_factory.mktemp("ipython"))
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    try:
        yield InteractiveShell.instance(config=config)
    finally:
        InteractiveShell.clear_instance()
        if previous is None:
            os.environ.pop("IPYTHONDIR", None)
        else:
            os.environ["IPYTHONDIR"] = previous


def run(shell, cell: str) -> None:
    result = shell.run_cell(textwrap.dedent(cell))
    result.raise_error()


def test_a_cell_function_that_calls_an_imported_module_vectorizes(shell):
    """`import math` in the same cell: compiled as the whole cell, `math.sqrt(x)` is other
    bytecode than IPython's, which compiles the `def` alone (CPython 3.11+)."""
    run(shell, """
        import math
        %time t = 1
        def cell_root(x, k=2.0):
            if x > 0:
                return math.sqrt(x) * k
            return -x
    """)
    f = shell.user_ns["cell_root"]
    assert f.__code__.co_filename in linecache.cache  # the text IPython holds for the cell
    assert "math.sqrt(x) * k" in source_of(f).text  # read, and checked to be the running code
    vf = vectorize(f, fallback="error")
    check(vf, f, HOSTILE)
    assert vf.backend in ("numpy", "numba")  # vectorized, by either route of auto


def test_each_cell_defines_its_own_function(shell):
    run(shell, """
        def cell_twice(x):
            return 2.0 * x
    """)
    first = shell.user_ns["cell_twice"]
    run(shell, """
        def cell_twice(x):
            if x < 1.0:
                return x - 1.0
            return 3.0 * x
    """)
    second = shell.user_ns["cell_twice"]
    check(vectorize(first, fallback="error"), first, HOSTILE)
    check(vectorize(second, fallback="error"), second, HOSTILE)


def test_a_cell_run_with_every_node_interactive(shell):
    shell.ast_node_interactivity = "all"
    try:
        run(shell, """
            import math
            def cell_all(x):
                return math.floor(x) if x < 1e300 else 0
            cell_all(2.5)
        """)
    finally:
        shell.ast_node_interactivity = "last_expr"
    f = shell.user_ns["cell_all"]
    check(vectorize(f, fallback="error"), f, np.array([0.5, -2.5, 1e301, 7.0]))


def test_a_cell_text_that_changed_is_not_the_running_code(shell):
    run(shell, """
        def cell_changed(x):
            return x + 1.0
    """)
    f = shell.user_ns["cell_changed"]
    size, mtime, lines, name = linecache.cache[f.__code__.co_filename]
    linecache.cache[name] = (size, mtime, [line.replace("+ 1.0", "+ 2.0") for line in lines], name)
    with pytest.raises(StaleSourceError, match="is not the code that runs"):
        vectorize(f, fallback="error")
    with pytest.warns(FallbackWarning, match="is not the code that runs"):
        got = vectorize(f)(np.array([1.0, 2.0]))
    assert got.tolist() == [2.0, 3.0]  # the code that runs, lane by lane


def test_exec_of_a_text_registered_in_linecache_vectorizes():
    text = "def registered(x, y):\n    if x > y:\n        return x - y\n    return y * 0.5\n"
    filename = "<vectorizer-test registered>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)  # as IPython registers a cell
    try:
        namespace = {}
        exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - the test's own text
        f = namespace["registered"]
        vf = vectorize(f, fallback="error")
        check(vf, f, HOSTILE, np.array([[0.5], [-np.inf]]))
    finally:
        del linecache.cache[filename]


def test_exec_of_a_bare_text_runs_the_loop_after_one_warning():
    namespace = {}
    exec(compile("def bare(x):\n    return x * 3.0 if x > 0 else -x\n", "<string>", "exec"), namespace)  # noqa: S102
    f = namespace["bare"]
    with pytest.raises(SourceUnavailableError):
        vectorize(f, fallback="error")
    vf = vectorize(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            check(vf, f, HOSTILE)
    fallback = [str(w.message) for w in caught if issubclass(w.category, FallbackWarning)]
    assert len(fallback) == 1 and "cannot read the source of 'bare'" in fallback[0], fallback
    assert vf.backend == "python"


PYTHON_C = """
import sys, time, warnings
import numpy as np
from vectorizer import FallbackWarning, vectorize
def f(x, k):
    if x > k:
        return x * 2.0 + k
    return -x
x = np.random.default_rng(0).random(100_000)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    vf = vectorize(f)
    got = [vf(x, 0.5) for _ in range(2)]
loop = np.array([f(a, 0.5) for a in x.tolist()])
print(sum(issubclass(w.category, FallbackWarning) for w in caught))
print(all(g.tobytes() == loop.tobytes() for g in got))
print("libcst" in sys.modules)
print([str(w.message) for w in caught][0])
"""


def test_python_c_runs_the_loop_without_the_compiler():
    """No source with `python -c`: one FallbackWarning saying why, the loop's values, and the
    compiler never imported (reading the source fails first)."""
    out = subprocess.run([sys.executable, "-c", PYTHON_C], capture_output=True, text=True, timeout=120,
                         check=True).stdout.splitlines()
    assert out[:3] == ["1", "True", "False"], out
    assert "f runs element by element" in out[3] and "cannot read the source of 'f' (defined in <string>)" in out[3]
