"""Statement lines from Python's parser (frontend/lines.py) against libcst's PositionProvider.

The cheap mapping feeds the `# line N:` comments of generated code; where it answers at all, it
must give every statement libcst's own line, and where it cannot map a construct it must say so.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from vectorizer.core.tree import walk
from vectorizer.frontend.lines import statement_lines
from vectorizer.frontend.parse import parse_function
from vectorizer.frontend.source import source_from_text

ROOT = Path(__file__).resolve().parents[2]
STATEMENTS = (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.If, cst.While, cst.For, cst.Try, cst.With,
              cst.FunctionDef, cst.ClassDef)

TRICKY = {
    "decorated, multi-line, semicolons": '''
        @some.decorator(1,
                        2)
        def f(x, y):
            a = (x +
                 y); b = 2
            c = x \\
                + 1
            if a: d = 1; e = 2
            return a
    ''',
    "elif chains and else clauses": '''
        def f(x):
            if x > 1:
                y = 1
            elif x > 0:

                # a comment
                y = 2
            elif x > -1: y = 3
            else:
                y = 4
            while x > 0:
                x -= 1
            else:
                y += 1
            for i in range(3):
                y += i
            else:
                pass
            return y
    ''',
    "try, with, nested definitions": '''
        def f(x):
            try:
                y = 1 / x
            except ZeroDivisionError:
                y = 0
            except (ValueError, TypeError) as e:
                raise
            else:
                y += 1
            finally:
                z = 2
            with open(x) as fh, open(y):
                pass
            def g(v):
                return v
            class C:
                k = 1
                def m(self):
                    return 2
            return g(y)
    ''',
}


def _expected(module: cst.Module) -> dict[cst.CSTNode, int]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {n: positions[n].start.line for n in walk(module) if isinstance(n, STATEMENTS)}


def _check(text: str) -> None:
    module = cst.parse_module(text)
    got = statement_lines(module, text)
    assert got is not None, "a construct the mapping should know fell back"
    want = _expected(module)
    for node, line in want.items():
        if isinstance(node, cst.FunctionDef | cst.ClassDef) and node.decorators:
            continue  # libcst starts a decorated definition at its first decorator, ast at `def`
        assert got.get(node) == line, (cst.Module(body=[]).code_for_node(node), got.get(node), line)


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_sources(name: str) -> None:
    _check(textwrap.dedent(TRICKY[name]).lstrip("\n"))


def _corpus() -> list[str]:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "scripts")]
    try:
        import bench_kernels
        import kernels
    finally:
        del sys.path[:2]
    texts = []
    for module in (kernels, bench_kernels):
        for value in vars(module).values():
            f = getattr(value, "scalar", value)
            if inspect.isfunction(f) and f.__module__ == module.__name__:
                texts.append(textwrap.dedent(inspect.getsource(f)))
    return texts


def test_every_kernel_of_the_suites() -> None:
    texts = _corpus()
    assert len(texts) > 50
    for text in texts:
        _check(text)


def test_a_match_statement_is_not_mapped_and_lines_come_from_positions() -> None:
    text = textwrap.dedent('''
        def f(x):
            match x:
                case 1:
                    y = 1
                case _:
                    y = 2
            return y
    ''').lstrip("\n")
    assert statement_lines(cst.parse_module(text), text) is None
    parsed = parse_function(source_from_text(text, "f", "<test>"))
    assert parsed.lines is None
    ret = parsed.func.body.body[-1]
    assert parsed.line_of(ret) == 7  # from libcst's positions instead


def test_positions_are_resolved_only_for_an_error() -> None:
    text = "def f(x):\n    y = x + 1\n    return y\n"
    parsed = parse_function(source_from_text(text, "f", "<test>"))
    assert "positions" not in vars(parsed)
    assert parsed.line_of(parsed.func.body.body[1]) == 3
    assert "positions" not in vars(parsed)
    loc = parsed.location(parsed.func.body.body[1])
    assert (loc.line, loc.column) == (3, 5)
    assert "positions" in vars(parsed)


def test_tree_children_are_libcsts_without_layout() -> None:
    """analysis/tree.py reads children from dataclass fields; they must be libcst's own children
    minus whitespace, comments and parentheses, for every node of every kernel."""
    from vectorizer.core import tree

    layout = tree._SKIPPED
    nodes = 0
    for text in [*_corpus(), *(textwrap.dedent(t) for t in TRICKY.values())]:
        for node in walk(cst.parse_module(text)):
            want = [c for c in node.children if not isinstance(c, layout)]
            got = tree.child_nodes(node)
            assert sorted(map(id, got)) == sorted(map(id, want)), type(node).__name__
            nodes += 1
    assert nodes > 5000
