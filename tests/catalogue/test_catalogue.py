"""The error catalogue (vectorizer/catalogue/): a page for every code the package emits, and each
page's examples do what the page says.

For every page, the block marked `title="fails"` is run as a script (a real file, as a user's
module: vectorizer reads the source) and must raise a VectorizeError with the page's code under
`fallback="error"`; the block marked `title="works"` must run without any FallbackWarning, and the
function its last line prints is checked against its scalar function lane by lane (tests/oracle.py)
on the arguments of that line. `vectorizer errors` is run in a real subprocess.
"""

from __future__ import annotations

import ast
import os
import re
import runpy
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

from tests.oracle import check
from vectorizer import VectorizeError, VectorizeErrorGroup, catalogue, errors
from vectorizer.api import VectorizedFunction
from vectorizer.rules.base import ULP_BOUND

PACKAGE = Path(catalogue.__file__).parent.parent
# A code appears in the package as a class's `code = "..."` or a raise's `code="..."`.
CODE_RE = re.compile(r"""\bcode\s*=\s*["'](VEC(?:-[A-Z]+)?)["']""")
# VEC-BUG comes only from a bug in vectorizer: its page says what to do, and has no example.
NO_EXAMPLE = {"VEC-BUG"}
# Codes of warnings with no error behind them (FallbackWarning's own): the page's `title="warns"`
# block must warn with the code.
WARNINGS = {errors.FallbackWarning.code}


def block(text: str, title: str) -> str | None:
    found = re.findall(rf'```python title="{title}"\n(.*?)```', text, flags=re.S)
    assert len(found) <= 1, f"more than one {title!r} block"
    return found[0] if found else None


def codes_in_package() -> set[str]:
    used = set()
    for path in PACKAGE.rglob("*.py"):
        if "catalogue" not in path.parts:
            used.update(CODE_RE.findall(path.read_text(encoding="utf-8")))
    return used


def test_every_code_of_the_package_has_a_page():
    used = codes_in_package()
    # the search itself must see the codes it is meant to find (classes in errors.py, raises elsewhere)
    assert {errors.VectorizeError.code, errors.UnsupportedSyntaxError.code, "VEC-PARSE", "VEC-BUG"} <= used
    assert used - set(catalogue.codes()) == set()
    assert set(catalogue.codes()) - used == set(), "a page for a code the package never emits"


def test_page_lookup():
    assert catalogue.page("vec-syntax") == catalogue.page("VEC-SYNTAX")
    assert catalogue.page("VEC-SYNTAX").startswith("# VEC-SYNTAX: ")
    for unknown in ("VEC-NOPE", "../__init__", "", "VEC-SYNTAX.md"):
        with pytest.raises(KeyError):
            catalogue.page(unknown)


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """Run a page's block as a script in tmp_path (its temporary folders too); sys.path and
    sys.modules are restored after."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the pages' tempfile.mkdtemp() folders
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("vecparse_"):
            del sys.modules[name]


@pytest.mark.parametrize("code", catalogue.codes())
def test_the_failing_example_raises_its_code(code, isolated):
    text = catalogue.page(code)
    source = block(text, "fails")
    if code in WARNINGS:  # no error behind it: the example warns, and still gives the values
        assert source is None
        script = isolated / f"warns_{code.replace('-', '_').lower()}.py"
        script.write_text(block(text, "warns"))
        with pytest.warns(errors.FallbackWarning) as record:
            runpy.run_path(str(script), run_name="__main__")
        assert [w.message.code for w in record if isinstance(w.message, errors.FallbackWarning)] == [code]
        assert f"vectorizer errors {code}" in str(record[0].message)
        return
    if code in NO_EXAMPLE:
        assert source is None and block(text, "works") is None
        return
    assert source is not None, f"{code}: no failing example"
    script = isolated / f"fails_{code.replace('-', '_').lower()}.py"
    script.write_text(source)
    with pytest.raises(VectorizeError) as info:
        runpy.run_path(str(script), run_name="__main__")
    if code == "VEC-MANY":
        assert isinstance(info.value, VectorizeErrorGroup) and len(info.value.errors) > 1
    else:
        assert info.value.code == code, str(info.value)
        assert f"error[{code}]" in str(info.value)


@pytest.mark.parametrize("code", sorted(set(catalogue.codes()) - NO_EXAMPLE))
def test_the_rewrite_vectorizes_and_keeps_the_contract(code, isolated, capsys):
    source = block(catalogue.page(code), "works")
    assert source is not None, f"{code}: no rewrite"
    script = isolated / f"works_{code.replace('-', '_').lower()}.py"
    script.write_text(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a FallbackWarning (or any other) fails the rewrite
        namespace = runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out.strip(), "the rewrite prints its result"
    last = ast.parse(source).body[-1]
    # the last line is `print(NAME(ARGS...))`: NAME is the vectorized function, checked on ARGS
    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and last.value.func.id == "print"
    call = last.value.args[0]
    vf = namespace[call.func.id]
    assert isinstance(vf, VectorizedFunction)
    args = [eval(compile(ast.Expression(a), str(script), "eval"), namespace) for a in call.args]
    check(vf, vf.scalar, *args, ulps=ULP_BOUND)
    assert vf.backend in ("numpy", "numba"), f"{code}: the rewrite ran as {vf.backend!r}"


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    return subprocess.run([sys.executable, "-m", "vectorizer", "errors", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_cli_lists_every_code_with_one_line():
    done = _cli()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == catalogue.codes()
    for line, code in zip(lines, catalogue.codes()):
        assert line.split(None, 1)[1] == catalogue.summary(code)


def test_cli_prints_a_page_and_refuses_an_unknown_code():
    done = _cli("vec-syntax")
    assert done.returncode == 0, done.stderr
    assert done.stdout == catalogue.page("VEC-SYNTAX")
    assert 'title="fails"' in done.stdout and 'title="works"' in done.stdout
    done = _cli("VEC-NOPE")
    assert done.returncode == 2 and done.stdout == ""
    assert "VEC-NOPE" in done.stderr and "VEC-SYNTAX" in done.stderr
