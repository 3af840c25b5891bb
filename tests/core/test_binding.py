"""core/binding.py against CPython's own answer (symtable: the names a function's body makes local),
on both tree forms, and the same answer from libcst and ast on the same text."""

from __future__ import annotations

import ast
import symtable
import textwrap
from collections import Counter

import libcst as cst
import pytest

from vectorizer.core.binding import bindings, bound_names

BODIES = {
    "assign": "a = 1\nb, (c, [d, *e]) = x\nf = g = 2\nx[0] = 1\nx.y = 2",
    "augmented": "h += 1\nk: float = 2.0\nonly_annotated: int",
    "loops": "for i, j in x:\n    m = i\nelse:\n    n = 0\nwhile x:\n    p = 1",
    "with_except": "with open(x) as fh, lock:\n    q = 1\ntry:\n    r = 1\nexcept ValueError as err:\n    s = 2",
    "walrus": "if (t := x + 1) > 0:\n    u = [w := v for v in x]\nz = [y2 for y2 in x if (y3 := y2)]",
    "comprehension_targets": "a = [v * 2 for v in x]\nb = {k: 1 for k, _ in x}\nc = (g for g in x)",
    "imports": "import os.path\nimport numpy as np\nfrom math import sqrt, pi as PI",
    "nested_scopes": "def inner(a1):\n    b1 = a1\nclass K:\n    c1 = 1\nlam = lambda d1: (e1 := d1)",
    "delete": "del x[0], dd\nee = 1\ndel ee",
}


def _symtable_locals(body: str) -> set[str]:
    """What CPython makes local in the function: local symbols that are not parameters, less the
    names only annotated (`x: int` makes a name local, as symtable says, without binding it)."""
    source = "def f(x, lock):\n" + textwrap.indent(body, "    ") + "\n"
    table = next(t for t in symtable.symtable(source, "<case>", "exec").get_children() if t.get_name() == "f")
    local = {s.get_name() for s in table.get_symbols() if s.is_local() and not s.is_parameter()}
    tree = ast.parse(source)
    bare = [n.target for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and n.value is None]
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
              and not any(n is t for t in bare)}
    annotated = {t.id for t in bare}
    return local - (annotated - stored)


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_names_bound_are_the_ones_cpython_makes_local(name):
    body = BODIES[name]
    expected = _symtable_locals(body)
    source = "def f(x, lock):\n" + textwrap.indent(body, "    ") + "\n"
    func_cst = cst.parse_module(source).body[0]
    func_ast = ast.parse(source).body[0]
    assert bound_names(func_cst.body) == expected
    assert bound_names(ast.Module(body=func_ast.body, type_ignores=[])) == expected
    assert bindings(func_cst.body) == bindings(ast.Module(body=func_ast.body, type_ignores=[]))  # order, repeats


def test_each_binding_counts_in_source_order():
    source = "a = 1\nb, a = 2, 3\nfor a in x:\n    a += 1\n"
    assert bindings(cst.parse_module(source)) == ["a", "b", "a", "a", "a"]
    assert Counter(bindings(ast.parse(source))) == Counter({"a": 4, "b": 1})


def test_a_nested_function_is_bound_but_its_body_is_its_own():
    source = "def outer(x):\n    def inner(y):\n        z = y\n    return inner\n"
    assert bound_names(cst.parse_module(source).body[0]) == {"inner"}
    assert bound_names(ast.parse(source).body[0]) == {"inner"}


def test_comprehension_targets_count_only_when_asked():
    source = "a = [v for v in x]\nb = {k for k, _ in x if (w := k)}\n"
    for tree in (cst.parse_module(source), ast.parse(source)):
        assert bound_names(tree) == {"a", "b", "w"}
        assert bound_names(tree, comprehensions=True) == {"a", "b", "v", "k", "_", "w"}
