"""Building the array code's expressions as Python `ast` nodes (issue 54: one code form from the
lowering to the printer): constants as the text renders them, operators by their spelling, rule
templates filled with nodes, the masks of the lanes that run a statement, and tests on nodes
that the lowering used to make on text (a simple operand, a call of a given function, depth).

A rule's template (`np.floor_divide({0}, {1})`, `({0} < 0) | ({r} != {r})`: rules/) is parsed
once into a tree whose slots are names, and filled with operand nodes as AutoGraph fills its
templates: brackets come out right by construction, where a text splice needed a guess::

    fill("{0} ** 2", a + b)      ->   BinOp(BinOp(a, Add, b), Pow, 2)     printed (a + b) ** 2

A node built here is the very tree `ast.parse` gives for the text the lowering wrote before
(`-0.0` is `-(0.0)`, `np.inf`, `-np.inf`, NaN `np.nan`), so the printed code is unchanged.
"""

from __future__ import annotations

import ast
import copy
import math
from functools import cache

from .pyast import call, dotted, name
from .text import literal

Mask = ast.expr | None  # the lanes that run a statement, as a bool expression; None: every lane

_BINOPS: dict[str, type[ast.operator]] = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "/": ast.Div, "//": ast.FloorDiv, "%": ast.Mod,
    "**": ast.Pow, "&": ast.BitAnd, "|": ast.BitOr, "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift,
    "@": ast.MatMult,
}
_UNARY: dict[str, type[ast.unaryop]] = {"-": ast.USub, "+": ast.UAdd, "~": ast.Invert, "not": ast.Not}
_COMPARES: dict[str, type[ast.cmpop]] = {
    "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq,
}


# -- constants -----------------------------------------------------------------------------------
def constant(value: object) -> ast.Constant:
    return ast.Constant(value=value, kind=None)


def const(value: object) -> ast.expr:
    """A constant as `core.text.literal` writes it, parsed: a negative number is `-` of its
    magnitude, infinities and NaN are NumPy's names, a tuple a tuple."""
    kind = type(value)
    if kind is bool or value is None:
        return constant(value)
    if kind is float:
        if math.isnan(value):  # type: ignore[arg-type]
            return dotted("np.nan")
        if math.isinf(value):  # type: ignore[arg-type]
            return dotted("np.inf") if value > 0 else neg(dotted("np.inf"))  # type: ignore[operator]
        return neg(constant(-value)) if math.copysign(1.0, value) < 0 else constant(value)  # type: ignore[operator, arg-type]
    if kind is int:
        return neg(constant(-value)) if value < 0 else constant(value)  # type: ignore[operator]
    if kind is tuple:
        return ast.Tuple(elts=[const(v) for v in value], ctx=ast.Load())  # type: ignore[attr-defined]
    return ast.parse(literal(value), mode="eval").body  # a NumPy number, a table: its own source


def is_bool(node: ast.expr, value: bool) -> bool:
    """`node` is the literal True (or False)."""
    return isinstance(node, ast.Constant) and node.value is value


def int_literal(node: ast.expr) -> int | None:
    """The value of an int literal (`3`, `-3`), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


# -- operations ----------------------------------------------------------------------------------
def neg(operand: ast.expr) -> ast.UnaryOp:
    return ast.UnaryOp(op=ast.USub(), operand=operand)


def unary(op: str, operand: ast.expr) -> ast.UnaryOp:
    """`-x`, `+x`, `~x`, `not x`."""
    return ast.UnaryOp(op=_UNARY[op](), operand=operand)


def binop(left: ast.expr, op: str, right: ast.expr) -> ast.BinOp:
    return ast.BinOp(left=left, op=_BINOPS[op](), right=right)


def compare(left: ast.expr, op: str, right: ast.expr) -> ast.Compare:
    return ast.Compare(left=left, ops=[_COMPARES[op]()], comparators=[right])


def chain(op: str, parts: list[ast.expr]) -> ast.expr:
    """`a & b & c` (left to right, as the parser groups it) of at least one part."""
    out = parts[0]
    for part in parts[1:]:
        out = binop(out, op, part)
    return out


def ifexp(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.IfExp:
    return ast.IfExp(test=test, body=body, orelse=orelse)


def boolop(is_and: bool, values: list[ast.expr]) -> ast.BoolOp:
    return ast.BoolOp(op=ast.And() if is_and else ast.Or(), values=values)


def if_(test: ast.expr) -> ast.If:
    """`if test:`, its blocks to fill (core/pyast.build)."""
    return ast.If(test=test, body=[], orelse=[])


def while_(test: ast.expr) -> ast.While:
    """`while test:`, its block to fill."""
    return ast.While(test=test, body=[], orelse=[])


def keyword_call(func: str | ast.expr, args: list[ast.expr], keywords: dict[str, ast.expr]) -> ast.Call:
    node = call(func, *args)
    node.keywords = [ast.keyword(arg=k, value=v) for k, v in keywords.items()]
    return node


def subscript(value: ast.expr, items: list[ast.expr]) -> ast.Subscript:
    """`value[a]`, or `value[a, b]` with several items."""
    index = items[0] if len(items) == 1 else ast.Tuple(elts=items, ctx=ast.Load())
    return ast.Subscript(value=value, slice=index, ctx=ast.Load())


def full_slice(lower: ast.expr | None = None, upper: ast.expr | None = None, step: ast.expr | None = None) -> ast.Slice:
    return ast.Slice(lower=lower, upper=upper, step=step)


def as_store(target: ast.expr) -> ast.expr:
    """An expression as an assignment's target (its top node, and a tuple's items, stored)."""
    target.ctx = ast.Store()  # type: ignore[attr-defined]
    if isinstance(target, ast.Tuple | ast.List):
        for item in target.elts:
            as_store(item)
    return target


# -- masks ---------------------------------------------------------------------------------------
def same(a: ast.expr | None, b: ast.expr | None) -> bool:
    """The same expression (the same tree; what equal text meant)."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    return type(a) is type(b) and ast.dump(a) == ast.dump(b)


def mask_and(mask: Mask, cond: ast.expr) -> ast.expr:
    """The lanes of `mask` where `cond` holds."""
    if mask is None or same(mask, cond):
        return cond
    return binop(mask, "&", cond)


# -- templates -----------------------------------------------------------------------------------
_SLOTS = tuple(f"__vz_slot_{i}__" for i in range(10))
_RESULT = "__vz_slot_r__"


@cache
def _template(text: str) -> ast.expr:
    return ast.parse(text.format(*_SLOTS, r=_RESULT).strip(), mode="eval").body


def fill(template: str, *args: ast.expr, r: ast.expr | None = None) -> ast.expr:
    """The rule template (`{0}`, `{1}`... for operands, `{r}` for the result) with its slots
    filled by nodes (a node filling two slots is shared: `pyast.unshare` copies it at the end)."""
    slots: dict[str, ast.expr] = dict(zip(_SLOTS, args))
    if r is not None:
        slots[_RESULT] = r
    return _copy(_template(template), slots)  # type: ignore[return-value]


def _copy(node: ast.AST, slots: dict[str, ast.expr]) -> ast.AST:
    if isinstance(node, ast.Name):
        filled = slots.get(node.id)
        return filled if filled is not None else ast.Name(id=node.id, ctx=node.ctx)
    fields = node._fields
    if not fields:
        return node  # an operator or a context: one shared instance, as the parser makes them
    new = node.__class__()
    for field in fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.AST):
            value = _copy(value, slots)
        elif isinstance(value, list):
            value = [_copy(v, slots) if isinstance(v, ast.AST) else v for v in value]
        setattr(new, field, value)
    return new


# -- reading nodes -------------------------------------------------------------------------------
def path(node: ast.expr) -> str | None:
    """"np.int64" for the expression `np.int64`, "x" for `x`; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = path(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def calls(node: ast.expr, func: str) -> bool:
    """`node` is a call of `func` (`np.int64(...)`)."""
    return isinstance(node, ast.Call) and path(node.func) == func


_NUMPY_CONSTANTS = frozenset({"np.pi", "np.e", "np.inf", "np.nan"})


def simple(node: ast.expr) -> bool:
    """A name, a number or a NumPy constant: an operand to use twice without a temporary."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return node.value is None or type(node.value) in (bool, int, float)
    if isinstance(node, ast.Attribute):
        return path(node) in _NUMPY_CONSTANTS
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = node.operand
        if isinstance(operand, ast.Constant):
            return type(operand.value) in (int, float)
        return isinstance(node.op, ast.USub) and path(operand) == "np.inf"
    return False


_BRACKETED = (ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Tuple, ast.List,
              ast.Subscript)


def depth(node: ast.AST) -> int:
    """How deeply operations nest in an expression (a call, an operator, a subscript... a level
    each: `((a + b) + c)`, as the lowering's text bracketed them, is 2); kept on each node, so
    that a chain built an operation at a time is measured an operation at a time."""
    known = node.__dict__.get("_vz_depth")
    if known is not None:
        return known
    inner = 0
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.AST):
            inner = max(inner, depth(value))
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, ast.AST):
                    inner = max(inner, depth(v))
    out = inner + isinstance(node, _BRACKETED)
    node._vz_depth = out  # type: ignore[attr-defined]
    return out


def unshare(func: ast.FunctionDef) -> None:
    """Copy each expression node met a second time (the lowering puts a name, a mask, an operand
    in several places): the passes after it may edit a node in place."""
    seen: set[int] = set()

    def visit(node: ast.AST) -> None:
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                if value._fields:
                    setattr(node, field, own(value))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST) and item._fields:
                        value[i] = own(item)

    def own(node: ast.AST) -> ast.AST:
        if id(node) in seen:
            return copy.deepcopy(node)
        seen.add(id(node))
        visit(node)
        return node

    for stmt in func.body:
        own(stmt)


__all__ = ["Mask", "binop", "boolop", "call", "calls", "chain", "compare", "const", "depth",
           "dotted", "fill", "if_", "ifexp", "int_literal", "is_bool", "keyword_call", "mask_and", "name", "neg",
           "path", "same", "simple", "subscript", "unary", "unshare", "while_"]
