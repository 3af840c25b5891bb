"""Lane code as Python `ast` nodes: the builders `ops_to_lanes` writes its lane functions with, the
templates of `rules.py` as trees, and the one printer.

A lane function is an `ast.FunctionDef` whose comment lines are `pyast.Comment` statements (the
array code's form, core/pyast.py); the passes after ops_to_lanes edit or read the tree, and its
text is printed once, by `text` (the module, a dump, a test); so are the JAX lane functions
lowered from it (passes/lanes_to_jax/), whose loop bodies are functions inside. Brackets are
the printer's: it writes the ones Python needs, so no builder guesses them::

    fill("{0} / {1}", name("a"), BinOp(b + 1))    ->    a / (b + 1)

A template (a check or an operation of rules.py: text over `{0}`, `{1}`... and `{r}`) is parsed
once; `fill` copies its tree with the holes replaced by nodes.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

from .pyast import Comment, dotted, name, store  # noqa: F401 - re-exported: the lane passes build with them
from .text import literal

__all__ = ["Comment", "assign", "call", "const", "dotted", "expression", "fail_return", "fill", "function",
           "is_call_of", "is_fail_return", "is_number", "name", "statements", "store", "target", "template",
           "text"]

_HOLE = "__vz_hole_{}__"
_HOLES = tuple(_HOLE.format(i) for i in range(16))
_R = _HOLE.format("r")
_INDEX = {h: i for i, h in enumerate(_HOLES)}


# -- building ------------------------------------------------------------------------------------
def call(func: str | ast.expr, *args: ast.expr, keywords: Sequence[ast.keyword] = ()) -> ast.Call:
    return ast.Call(func=dotted(func) if isinstance(func, str) else func, args=list(args), keywords=list(keywords))


def assign(targets: str | Sequence[str] | ast.expr, value: ast.expr) -> ast.Assign:
    """`name = value`; several names: `a, b = value`; or any target node."""
    if isinstance(targets, ast.expr):
        target = targets
    elif isinstance(targets, str):
        target = store(targets)
    else:
        target = ast.Tuple(elts=[store(t) for t in targets], ctx=ast.Store())
    return ast.Assign(targets=[target], value=value, lineno=0)


def function(name_: str, params: Sequence[str], body: list[ast.stmt]) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=name_, args=args, body=body, decorator_list=[], returns=None, type_comment=None,
                           lineno=0)


def target(node: ast.expr) -> ast.expr:
    """An expression as an assignment (or `for`) target: its names stored."""
    if isinstance(node, ast.Name):
        return store(node.id)
    if isinstance(node, ast.Tuple | ast.List):
        return type(node)(elts=[target(e) for e in node.elts], ctx=ast.Store())
    if isinstance(node, ast.Starred):
        return ast.Starred(value=target(node.value), ctx=ast.Store())
    if isinstance(node, ast.Subscript):
        return ast.Subscript(value=node.value, slice=node.slice, ctx=ast.Store())
    return node


def const(value: object) -> ast.expr:
    """A constant as `literal` writes it (core/text.py): a negative number is a minus sign and
    its magnitude, so that `(-3) ** 2` keeps its brackets; NaN and infinities are `np.nan`, `np.inf`."""
    if isinstance(value, bool) or value is None:
        return ast.Constant(value=value)
    if isinstance(value, int):
        return ast.Constant(value=value) if value >= 0 else ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
    if isinstance(value, float):
        if math.isnan(value):
            return dotted("np.nan")
        magnitude = dotted("np.inf") if math.isinf(value) else ast.Constant(value=abs(value))
        return ast.UnaryOp(op=ast.USub(), operand=magnitude) if math.copysign(1.0, value) < 0 else magnitude
    if isinstance(value, tuple):
        return ast.Tuple(elts=[const(v) for v in value], ctx=ast.Load())
    return expression(literal(value))  # a uniform table: np.array([...])


def is_number(node: ast.expr) -> bool:
    """A number literal, signed or not (`3`, `-0.5`: a name for itself, never a temporary)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def is_call_of(node: ast.expr, func: str) -> bool:
    """`node` is a call of the plain name `func` (`int(...)`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == func


def fail_return(zeros: Sequence[ast.expr], tuple_result: bool) -> ast.Return:
    """`return (<zeros>, True)`: the lane fails (its value is never read)."""
    value = ast.Tuple(elts=list(zeros), ctx=ast.Load()) if tuple_result else zeros[0]
    return ast.Return(value=ast.Tuple(elts=[value, ast.Constant(value=True)], ctx=ast.Load()))


def is_fail_return(node: ast.stmt) -> bool:
    """`return (<zeros>, True)`: a check's body, or a `raise`."""
    value = node.value if isinstance(node, ast.Return) else None
    return isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[1], ast.Constant) \
        and value.elts[1].value is True


def statements(block: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a block and of the blocks under it, in order (not their expressions)."""
    for s in block:
        yield s
        for inner in (getattr(s, "body", None), getattr(s, "orelse", None)):
            if isinstance(inner, list):
                yield from statements(inner)


# -- templates -----------------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def template(text: str) -> ast.expr:
    """A template's tree (holes `{0}`... `{r}` as names of their own), parsed once. Do not edit
    it: `fill` copies it."""
    return ast.parse(text.format(*_HOLES, r=_R), mode="eval").body


def expression(text: str) -> ast.expr:
    """The tree of expression text with no holes (a fresh copy)."""
    return fill(text)


def fill(tree: str | ast.expr, *args: ast.expr, r: ast.expr | None = None,
         invert: Callable[[ast.expr], bool] | None = None) -> ast.expr:
    """A copy of the template `tree` (or text) with `{i}` replaced by `args[i]` and `{r}` by `r`.
    A node used twice is copied the second time. With `invert`, `~{i}` becomes `not {i}` where
    `invert(args[i])` holds (scalar code's `not` of a bool: ops_to_lanes/scalarize.py)."""
    used: set[int] = set()

    def copy(node):
        kind = _KINDS.get(type(node))
        if kind is None:
            kind = _kind(type(node))
        if kind == _ATOM:
            return node
        if kind == _LIST:
            return [copy(n) for n in node]
        if kind == _NAME:
            at = _INDEX.get(node.id)
            arg = (args[at] if at < len(args) else None) if at is not None else r if node.id == _R else None
            if arg is None:
                return ast.Name(id=node.id, ctx=node.ctx)
            if id(arg) in used:
                return clone(arg)
            used.add(id(arg))
            return arg
        if invert is not None and kind == _UNARY and type(node.op) is ast.Invert:
            operand = copy(node.operand)
            return ast.UnaryOp(op=ast.Not() if invert(operand) else ast.Invert(), operand=operand)
        return type(node)(**{f: copy(getattr(node, f, None)) for f in node._fields})

    return copy(template(tree) if isinstance(tree, str) else tree)


def clone(node):
    """A deep copy of a tree of nodes (faster than copy.deepcopy; attributes other than fields
    and a statement's line, such as marks, are not kept)."""
    kind = _KINDS.get(type(node))
    if kind is None:
        kind = _kind(type(node))
    if kind == _ATOM:
        return node
    if kind == _LIST:
        return [clone(n) for n in node]
    if isinstance(node, Comment):
        return Comment(text=node.text)
    new = type(node)(**{f: clone(getattr(node, f, None)) for f in node._fields})
    if isinstance(node, ast.stmt):
        new.lineno = getattr(node, "lineno", 0)  # ast.unparse reads an assignment's line
    return new


_ATOM, _LIST, _NAME, _UNARY, _NODE = range(5)
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    """How `fill` and `clone` copy a value of class `cls` (kept per class: a lookup a node)."""
    kind = _LIST if cls is list else _NAME if cls is ast.Name else _UNARY if cls is ast.UnaryOp else \
        _NODE if issubclass(cls, ast.AST) and not issubclass(cls, ast.expr_context | ast.operator | ast.unaryop
                                                               | ast.cmpop | ast.boolop) else _ATOM
    _KINDS[cls] = kind
    return kind


# -- printing ------------------------------------------------------------------------------------
_INDENT = "    "


def text(func: ast.FunctionDef) -> str:
    """A function's source: each simple statement and each block's test as `ast.unparse` writes
    it (only the brackets Python needs), comments as lines of their own, `if`/`else` as two
    blocks (never `elif`), a `def` inside (a JAX loop body) as a block, four spaces a level."""
    out: list[str] = []
    _emit(func, 0, out)
    return "\n".join(out) + "\n"


def _emit(s: ast.stmt, depth: int, out: list[str]) -> None:
    pad = _INDENT * depth
    if isinstance(s, Comment):
        out.append(pad + s.text)
        return
    if isinstance(s, ast.FunctionDef):
        out.append(f"{pad}def {s.name}({', '.join(a.arg for a in s.args.args)}):")
    elif isinstance(s, ast.If | ast.While):
        out.append(f"{pad}{'if' if isinstance(s, ast.If) else 'while'} {ast.unparse(s.test)}:")
    elif isinstance(s, ast.For):  # the target as a `for` writes it (`a, b`, not `(a, b)`)
        out.append(pad + ast.unparse(ast.For(target=s.target, iter=s.iter, body=[ast.Pass()], orelse=[], lineno=0,
                                             type_comment=None)).split("\n")[0])
    else:
        out.append(pad + ast.unparse(s))
        return
    for i, block in enumerate((s.body, getattr(s, "orelse", None))):
        if i and not block:
            break
        if i:
            out.append(pad + "else:")
        if all(isinstance(b, Comment) for b in block):
            out.append(pad + _INDENT + "pass")
        for b in block:
            _emit(b, depth + 1, out)
