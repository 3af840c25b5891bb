"""core/lanenodes.py: lane code as `ast` nodes. Templates filled with nodes keep Python's meaning
(the printer, not the builder, writes the brackets), constants print as `literal` writes them, and
the printer writes lane and JAX functions (a `def` inside, comments as lines)."""

from __future__ import annotations

import ast
import math

import pytest

from vectorizer.core import lanenodes as ln
from vectorizer.core.text import literal


def expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


@pytest.mark.parametrize("template, args, expected", [
    ("{0} / {1}", ["a", "b + 1"], "a / (b + 1)"),
    ("{0} ** {1}", ["-1", "0"], "(-1) ** 0"),
    ("-{0}", ["-2"], "--2"),
    ("{0} * {0}", ["x + y"], "(x + y) * (x + y)"),
    ("({0} < {1}) | ({0} > {2})", ["n", "-5", "5"], "(n < -5) | (n > 5)"),
    ("not {0}", ["a and b"], "not (a and b)"),
])
def test_fill_keeps_the_meaning_of_the_text_it_stands_for(template, args, expected):
    filled = ln.fill(template, *(expr(a) for a in args))
    assert ast.unparse(filled) == expected
    # the same value as the template's text with bracketed arguments
    values = {"a": 3.0, "b": 1.0, "x": 2.0, "y": -5.0, "n": 7}
    text = template.format(*(f"({a})" for a in args))
    assert eval(ast.unparse(filled), {}, values) == eval(text, {}, values)  # noqa: S307 - literal test expressions


def test_a_node_used_twice_is_copied():
    x = expr("a + b")
    filled = ln.fill("{0} * {0}", x)
    assert filled.left is x and filled.right is not x and ast.dump(filled.right) == ast.dump(x)


def test_invert_becomes_not_of_a_bool_only():
    is_bool = lambda n: isinstance(n, ast.Compare)  # noqa: E731
    assert ast.unparse(ln.fill("~{0}", expr("x < 0"), invert=is_bool)) == "not x < 0"
    assert ast.unparse(ln.fill("~{0}", expr("x"), invert=is_bool)) == "~x"


@pytest.mark.parametrize("value", [0, 7, -7, 2**70, -(2**70), 0.5, -0.0, 0.0, 1e308, -1e-300, math.inf, -math.inf,
                                   math.nan, True, False, (1, -2.5)])
def test_constants_print_as_literal_writes_them(value):
    assert ast.unparse(ln.const(value)) == literal(value)


def test_numbers_are_names_for_themselves():
    assert ln.is_number(ln.const(-3)) and ln.is_number(ln.const(2.5))
    assert not ln.is_number(ln.const(math.inf)) and not ln.is_number(ln.name("x"))


def test_the_printer_writes_blocks_comments_and_a_def_inside():
    body = ln.function("_body", ["_carry"], [ln.assign(["x", "y"], ln.name("_carry")),
                                             ast.Return(value=ast.Tuple(elts=[ln.name("x")], ctx=ast.Load()))])
    loop = ast.If(test=expr("x > 0"), body=[ln.Comment(text="# only a comment")],
                  orelse=[ast.If(test=expr("y"), body=[ast.Break()], orelse=[])])
    func = ln.function("f", ["x", "y"], [ln.Comment(text="# line 3: y = x"), body, loop,
                                          ast.For(target=ln.target(expr("a, b")), iter=expr("t"), body=[ast.Pass()],
                                                  orelse=[], lineno=0),
                                          ast.Return(value=ln.fail_return([ln.const(0)], False).value)])
    assert ln.text(func) == (
        "def f(x, y):\n"
        "    # line 3: y = x\n"
        "    def _body(_carry):\n"
        "        x, y = _carry\n"
        "        return (x,)\n"
        "    if x > 0:\n"
        "        pass\n"
        "        # only a comment\n"
        "    else:\n"
        "        if y:\n"
        "            break\n"
        "    for a, b in t:\n"
        "        pass\n"
        "    return (0, True)\n"
    )


def test_fail_returns_are_recognized():
    assert ln.is_fail_return(ln.fail_return([ln.const(0), ln.const(0.0)], True))
    assert not ln.is_fail_return(ast.parse("return (x, False)").body[0])
    statements = list(ln.statements(ast.parse("if a:\n    return (0, True)\nelse:\n    x = 1\n").body))
    assert [type(s).__name__ for s in statements] == ["If", "Return", "Assign"]


def test_clone_copies_every_node():
    tree = ast.parse("if a:\n    x = f(b, -1)\n").body[0]
    copy = ln.clone(tree)
    assert ast.unparse(copy) == ast.unparse(tree)
    assert not {id(n) for n in ast.walk(copy) if not isinstance(n, ast.expr_context | ast.operator | ast.unaryop)} & \
        {id(n) for n in ast.walk(tree)}
