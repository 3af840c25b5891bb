"""The array code after the lowering: a Python `ast` function whose comments are statements of
their own, and the one printer of it.

`ops_to_numpy` builds an `ArrayCode` from its statements (`build`); the passes after it (compact_loops, select_to_fmax,
merge_checks, vector_math) edit its tree, and the text is printed once, by `emit` (the module,
a dump, a test). A comment the passes carry (`# line 5: while i < 40:`) is a `Comment` statement
in its block, so it moves with the statements around it; a comment after a block's header
(`if ...:  # why`) is the header node's `comment`::

    def f(n):                                 FunctionDef(f, [n], [
        total = 0                                 Assign(total, 0),
        # line 5: while i < 40:           <->     Comment("# line 5: while i < 40:"),
        while np.any(active):                     While(np.any(active), [...]),
            ...                                   ...])

The printer writes each simple statement, and the test of each block header, as `ast.unparse`
writes it (only the brackets Python needs), `if`/`else` as two blocks (never `elif`: the
lowering's nesting is kept), four spaces a level, and `pass` in a block with no code.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .text import ORIGIN_PREFIX

_INDENT = "    "


class Comment(ast.stmt):
    """A comment line of its own; `text` starts with `#`."""

    _fields = ("text",)
    text: str


@dataclass
class ArrayCode:
    """The array function (the code form `ARRAY_AST` of passes/order.py)."""

    func: ast.FunctionDef

    def text(self, repeats: bool = True) -> str:
        """The function's source; without `repeats`, an origin comment followed by its own
        line, unchanged, is left out (the module shows it once)."""
        return emit(self.func, repeats)


# -- building ------------------------------------------------------------------------------------
def name(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Load())


def store(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Store())


def dotted(path: str) -> ast.expr:
    """`np.fmax` as an expression."""
    first, *rest = path.split(".")
    node: ast.expr = name(first)
    for part in rest:
        node = ast.Attribute(value=node, attr=part, ctx=ast.Load())
    return node


def call(func: str | ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func=dotted(func) if isinstance(func, str) else func, args=list(args), keywords=[])


def assign(targets: Sequence[str] | str, value: ast.expr, *, tuple_target: bool = False) -> ast.Assign:
    """`name = value`, or with `tuple_target` (or several names) `a, b = value` (`a, = value`)."""
    names = [targets] if isinstance(targets, str) else list(targets)
    target: ast.expr = store(names[0])
    if tuple_target or len(names) != 1:
        target = ast.Tuple(elts=[store(n) for n in names], ctx=ast.Store())
    return ast.Assign(targets=[target], value=value, lineno=0)


def function(name_: str, params: Sequence[str], body: list[ast.stmt]) -> ast.FunctionDef:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=name_, args=args, body=body, decorator_list=[], returns=None, type_comment=None,
                           lineno=0)


# -- the lowering's statements, and lines of text ------------------------------------------------
class Else(ast.stmt):
    """The `else:` of the `if` just before it at the same level (in `build`'s entries only)."""
    _fields = ()


def build(name_: str, params: Sequence[str], entries: Sequence[tuple[int, ast.stmt]]) -> ArrayCode:
    """`def name_(params):` over `entries`, a statement each with its level (1: the body): an
    `If`, `While` or `For` with an empty body opens a block the deeper entries below fill, `Else()`
    the else of the `if` before it; a `Comment` goes at its level, or the deepest open one."""
    func = function(name_, params, [])
    stack: list[list[ast.stmt]] = [func.body]
    with_else: list[ast.If] = []
    for level, node in entries:
        if isinstance(node, Comment):
            level = max(1, min(level, len(stack)))
        elif not 1 <= level <= len(stack):
            raise IndentationError(f"array code line at level {level} under {len(stack)} open blocks: "
                                   f"{'else:' if isinstance(node, Else) else _header(node) or ast.unparse(node)!r}")
        del stack[level:]
        block = stack[-1]
        if isinstance(node, Else):
            stack.append(_open_else(block, with_else))
            continue
        block.append(node)
        if isinstance(node, ast.If | ast.While | ast.For):
            stack.append(node.body)
    for node in with_else:  # an `else:` with no line under it
        if not node.orelse:
            node.orelse = [ast.Pass()]
    return ArrayCode(func)


def parse(name_: str, params: Sequence[str], lines: Sequence[str]) -> ArrayCode:
    """`build` from lines of text (a test's): four spaces a level, a statement, header or comment a line."""
    shape: list[tuple[int, str, str, str | None]] = []  # (level, kind, text, its comment) a line
    code: list[str] = []
    for line in lines:
        text = line.lstrip(" ")
        level = (len(line) - len(text)) // len(_INDENT)
        comment = _trailing_comment(text) if "#" in text and not text.startswith("#") else None
        if comment is not None:
            text = text[: -len(comment)].rstrip()
        kind = "comment" if text.startswith("#") else "else" if text == "else:" else \
            "header" if text.endswith(":") else "stmt"
        shape.append((level, kind, text, comment))
        if kind in ("header", "stmt"):
            code.append(text + " pass" if kind == "header" else text)
    nodes = ast.parse("\n".join(code)).body
    parsed = [[n] for n in nodes] if len(nodes) == len(code) else [ast.parse(t).body for t in code]
    it = iter(parsed)
    entries: list[tuple[int, ast.stmt]] = []
    for level, kind, text, comment in shape:
        if kind == "comment":
            entries.append((level, Comment(text=text)))
        elif kind == "else":
            entries.append((level, Else()))
        else:
            stmts = next(it)
            if comment is not None:
                stmts[-1].comment = comment  # type: ignore[attr-defined]
            if kind == "header":
                stmts[0].body = []  # type: ignore[attr-defined]  # its `pass`: the lines below fill it
            entries.extend((level, s) for s in stmts)
    return build(name_, params, entries)


def parse_function(text: str) -> ArrayCode:
    """`parse` of a printed function (`def f(x):` and its body): a test's, or a golden's."""
    header, *body = text.rstrip("\n").split("\n")
    tree = ast.parse(header + " pass").body[0]
    assert isinstance(tree, ast.FunctionDef), header
    return parse(tree.name, [a.arg for a in tree.args.args], body)


def _trailing_comment(text: str) -> str | None:
    """The comment that ends a line of code (`if t:  # why` -> "# why"), by Python's tokenizer."""
    found = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    return found[-1].string if found else None


def _open_else(block: list[ast.stmt], with_else: list[ast.If]) -> list[ast.stmt]:
    """The `else` block of the `if` ending `block` (comments after it at its level end its body)."""
    at = len(block)
    while at and isinstance(block[at - 1], Comment):
        at -= 1
    node = block[at - 1] if at else None
    if not isinstance(node, ast.If) or node.orelse:
        raise SyntaxError("array code: 'else:' follows no if")
    node.body.extend(block[at:])
    del block[at:]
    with_else.append(node)
    return node.orelse


# -- walking -------------------------------------------------------------------------------------
def blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    """The statement blocks directly under a statement (a function's body, an if's two...)."""
    if isinstance(node, ast.If | ast.While | ast.For):
        return [node.body, node.orelse] if node.orelse else [node.body]
    if isinstance(node, ast.FunctionDef):
        return [node.body]
    return []


def statements(block: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of `block` and of the blocks under it, in order (comments too)."""
    for s in block:
        yield s
        for inner in blocks(s):
            yield from statements(inner)


@dataclass
class Line:
    """One line of the printed function: `kind` is "def", "stmt", "header" (of a block, `node`
    its statement), "else" (`node` its if) or "comment"; `block` holds `node` (None for "def"
    and "else"); `depth` is its indentation in levels."""

    node: ast.stmt
    kind: str
    depth: int
    block: list[ast.stmt] | None


def lines(func: ast.FunctionDef) -> list[Line]:
    """The function as its printed lines, in order (the first is the `def`)."""
    out = [Line(func, "def", 0, None)]

    def walk(block: list[ast.stmt], depth: int) -> None:
        for s in block:
            if isinstance(s, Comment):
                out.append(Line(s, "comment", depth, block))
            elif isinstance(s, ast.If | ast.While | ast.For):
                out.append(Line(s, "header", depth, block))
                walk(s.body, depth + 1)
                if s.orelse:
                    out.append(Line(s, "else", depth, None))
                    walk(s.orelse, depth + 1)
            else:
                out.append(Line(s, "stmt", depth, block))

    walk(func.body, 1)
    return out


def own_parts(line: Line) -> Iterator[ast.AST]:
    """The nodes printed on a line: a statement, a header's test (target and iterable)."""
    node = line.node
    if line.kind == "stmt":
        yield node
    elif line.kind == "header":
        if isinstance(node, ast.For):
            yield from (node.target, node.iter)
        else:
            yield node.test  # type: ignore[attr-defined]


# -- printing ------------------------------------------------------------------------------------
def emit(func: ast.FunctionDef, repeats: bool = True) -> str:
    """The function's source (see the module docstring)."""
    out: list[str] = [f"def {func.name}({', '.join(a.arg for a in func.args.args)}):"]
    origins: set[int] = set()  # indexes of origin comments in `out`
    _emit_block(func.body, 1, out, origins)
    if not repeats:
        out = [ln for i, ln in enumerate(out) if i not in origins or not _repeated(ln, out[i + 1: i + 2])]
    return "\n".join(out) + "\n"


def _repeated(comment: str, after: list[str]) -> bool:
    """`# line 5: n = 0` above `n = 0`: the code is the user's line, unchanged."""
    text = comment.strip()
    return bool(after) and after[0].strip() == (text.split(": ", 1)[1] if ": " in text else "")


def _emit_block(block: list[ast.stmt], depth: int, out: list[str], origins: set[int]) -> None:
    pad = _INDENT * depth
    if all(isinstance(s, Comment) for s in block):
        out.append(pad + "pass")
    for s in block:
        if isinstance(s, Comment):
            if s.text.startswith(ORIGIN_PREFIX):
                origins.add(len(out))
            out.append(pad + s.text)
            continue
        head = _header(s)
        comment = getattr(s, "comment", None)
        text = head if head is not None else ast.unparse(s)
        out.append(pad + text + (f"  {comment}" if comment else ""))
        if head is None:
            continue
        _emit_block(s.body, depth + 1, out, origins)  # type: ignore[attr-defined]
        if s.orelse:  # type: ignore[attr-defined]
            out.append(pad + "else:")
            _emit_block(s.orelse, depth + 1, out, origins)  # type: ignore[attr-defined]


def _header(s: ast.stmt) -> str | None:
    """The header line of a block statement, None for a simple statement."""
    if isinstance(s, ast.If):
        return f"if {ast.unparse(s.test)}:"
    if isinstance(s, ast.While):
        return f"while {ast.unparse(s.test)}:"
    if isinstance(s, ast.For):  # the target as a `for` writes it (`a, b`, not `(a, b)`)
        return ast.unparse(ast.For(target=s.target, iter=s.iter, body=[ast.Pass()], orelse=[], lineno=0,
                                   type_comment=None)).split("\n")[0]
    if isinstance(s, ast.FunctionDef | ast.ClassDef | ast.With | ast.Try | ast.AsyncFor | ast.AsyncWith):
        raise TypeError(f"array code holds no {type(s).__name__}")
    return None
