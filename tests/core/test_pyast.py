"""core/pyast.py: the array code's tree form. Every golden's function reads into the tree and
prints back to the same bytes; comments stay statements of their own through a transform."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from vectorizer.core import pyast

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GOLDENS = sorted(p.parent.name for p in FIXTURES.glob("*/expected.py"))


def function_of(module: str) -> str:
    """The generated function of a golden module: from its `def` to the first line back at the
    module's level (the carried helpers' comment, a helper)."""
    lines = module.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("def "))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")), len(lines))
    while not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]) + "\n"


read = pyast.parse_function


@pytest.mark.parametrize("case", GOLDENS)
def test_every_golden_function_round_trips(case: str) -> None:
    text = function_of((FIXTURES / case / "expected.py").read_text())
    code = read(text)
    assert code.text() == text
    assert pyast.emit(code.func) == text
    assert len(pyast.lines(code.func)) == len(text.splitlines())  # a Line a printed line


def test_the_goldens_are_many() -> None:
    assert len(GOLDENS) > 50


SAMPLE = """\
def f(x, n):
    flag = np.zeros(len(x), dtype=bool)
    # line 3: if n > 0:
    if n > 0:
        # line 4: y = x
        y = ((x + 1) * 2)
    else:
        # only a comment
        pass
    for a, b in ((1, 2), (3, 4)):
        y = y + a
    # line 8: return y
    if not math.isfinite(y.dot(y)):  # a lane failing a check below is NaN or ±inf
        flag |= (x < 0)
    return (y, flag)
"""


def test_comments_are_statements_and_brackets_are_pythons() -> None:
    code = read(SAMPLE)
    kinds = [type(s).__name__ for s in code.func.body]
    assert kinds == ["Assign", "Comment", "If", "For", "Comment", "If", "Return"]
    assert code.func.body[1].text == "# line 3: if n > 0:"
    assert code.func.body[5].comment == "# a lane failing a check below is NaN or ±inf"
    text = code.text()
    assert "        y = (x + 1) * 2\n" in text  # only the brackets Python needs
    assert "    for a, b in ((1, 2), (3, 4)):\n" in text
    assert "    else:\n        # only a comment\n        pass\n" in text
    assert "flag |= x < 0" in text


def test_comments_move_with_their_block() -> None:
    code = read(SAMPLE)

    class Drop(ast.NodeTransformer):
        def visit_If(self, node: ast.If) -> ast.AST | None:
            return None if isinstance(node.test, ast.Compare) else node

    Drop().visit(code.func)
    assert code.text().splitlines()[2:4] == ["    # line 3: if n > 0:", "    for a, b in ((1, 2), (3, 4)):"]


def test_an_emptied_block_prints_pass_and_repeats_can_go() -> None:
    code = read("def g(x):\n    # line 2: y = x\n    y = x\n    if x:\n        # line 4: z = 1\n        z = 2\n")
    code.func.body[2].body.pop()
    assert code.text() == "def g(x):\n    # line 2: y = x\n    y = x\n    if x:\n        pass\n        # line 4: z = 1\n"
    assert code.text(repeats=False) == "def g(x):\n    y = x\n    if x:\n        pass\n        # line 4: z = 1\n"


def test_bad_nesting_is_refused() -> None:
    with pytest.raises(IndentationError):
        pyast.parse("f", [], ["    a = 1", "        b = 2"])
    with pytest.raises(SyntaxError, match="follows no if"):
        pyast.parse("f", [], ["    a = 1", "    else:", "        b = 2"])


def test_built_nodes_print() -> None:
    body: list[ast.stmt] = [
        pyast.assign(["flag"], pyast.call("lanes.expand", pyast.name("flag")), tuple_target=True),
        pyast.assign("r", pyast.call("np.fmax", pyast.name("x"), ast.Constant(0.0))),
        ast.Return(value=ast.Tuple(elts=[pyast.name("r"), pyast.name("flag")], ctx=ast.Load())),
    ]
    text = pyast.emit(pyast.function("h", ["x"], body))
    assert text == "def h(x):\n    flag, = lanes.expand(flag)\n    r = np.fmax(x, 0.0)\n    return (r, flag)\n"
