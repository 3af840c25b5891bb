"""What a module's top-level statements bind, judged from its source alone (the CLI reads
modules without importing them: `Namespace.of_module_source`): a name holds a function, a
constant computed from literals and earlier constants, math or NumPy, or is unknown where the
source alone does not decide it (control flow, `del`, an attribute or item assigned...)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from .namespace import Global, is_constant
from .source import source_from_text


def static_bindings(node: ast.stmt, lines: list[str], filename: str, module: str, seen: dict):
    """(name, Global) pairs a top-level statement binds, judged from source alone."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            kind = {"math": "math", "numpy": "numpy"}.get(alias.name, "unknown")
            yield bound, Global(kind, alias.name)
    elif isinstance(node, ast.ImportFrom):
        for alias in node.names:
            bound = alias.asname or alias.name
            if node.module == "math" and not node.level:
                attr = getattr(math, alias.name, None)
                if callable(attr):
                    yield bound, Global("math_func", f"math.{alias.name}")
                elif isinstance(attr, float):
                    yield bound, Global("constant", bound, attr)
                else:
                    yield bound, Global("unknown", alias.name)
            else:
                yield bound, Global("unknown", alias.name)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        text = "".join(lines[start - 1 : node.end_lineno])
        src = source_from_text(text, node.name, filename, start)
        yield node.name, Global("function", node.name, src)
    elif isinstance(node, ast.ClassDef):
        yield node.name, Global("unknown", node.name)
    elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        bound = [pair for target in targets for pair in _unpacked(target, node.value, seen)]
        yield from bound  # every value is computed before any name is bound (`a, b = b, a`)
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        name, op = node.target.id, _SAFE_BINOPS.get(type(node.op))
        before = _static_value(node.target, seen)
        value = _static_value(node.value, seen)
        if op is None or before is None or value is None or isinstance(before, tuple) or isinstance(value, tuple):
            yield name, Global("unknown", name)
        else:
            yield from _constant(name, _safely(op, before, value))
    elif not isinstance(node, ast.AnnAssign | ast.Pass):  # an annotation alone binds nothing
        # Anything else (control flow, `del`, `x := ...`, `match`, an attribute or item assigned)
        # may bind or unbind a name in a way the source alone does not decide.
        for name in _touched(node):
            yield name, Global("unknown", name)


def _unpacked(target: ast.expr, value: ast.expr | None, seen: dict, known: object = None):
    """(name, Global) for an assignment target: a tuple or list target takes the items of a display
    of the same length, or of a constant tuple; anything else makes its names unknown."""
    if isinstance(target, ast.Name):
        computed = _static_value(value, seen) if value is not None else known
        yield from _constant(target.id, computed)
    elif isinstance(target, ast.Tuple | ast.List) and not any(isinstance(e, ast.Starred) for e in target.elts):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in value.elts):
            pairs = [list(_unpacked(t, v, seen)) for t, v in zip(target.elts, value.elts)]
            yield from (pair for group in pairs for pair in group)
            return
        computed = _static_value(value, seen) if value is not None else known
        if isinstance(computed, tuple) and len(computed) == len(target.elts):
            for t, item in zip(target.elts, computed):
                yield from _unpacked(t, None, seen, item)
            return
        yield from ((name, Global("unknown", name)) for name in _touched(target))
    else:
        yield from ((name, Global("unknown", name)) for name in _touched(target))


def _constant(name: str, value: object):
    yield name, Global("constant", name, value) if value is not None and is_constant(value) else Global("unknown", name)


def _safely(op: Callable, a: object, b: object) -> object | None:
    try:
        return op(a, b)
    except (ArithmeticError, ValueError, TypeError):
        return None


def _touched(node: ast.AST):
    """Every name a statement or target may bind, rebind or delete (also the object named by an
    attribute or item assignment: `obj.x = 1`, `TABLE[0] = 1`)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            yield sub.id
        elif isinstance(sub, ast.Attribute | ast.Subscript) and isinstance(sub.ctx, ast.Store | ast.Del):
            base = sub.value
            while isinstance(base, ast.Attribute | ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                yield base.id
        elif isinstance(sub, ast.alias):
            yield sub.asname or sub.name.split(".")[0]
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and sub is not node:
            yield sub.name
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            yield sub.name
        elif isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
            yield sub.name
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            yield sub.rest


_SAFE_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Pow: lambda a, b: a**b,
}


def _static_value(node: ast.expr, seen: dict) -> object | None:
    """Evaluate a constant expression of literals, earlier constants and math constants."""
    try:
        if isinstance(node, ast.Constant) and is_constant(node.value):
            return node.value
        if isinstance(node, ast.Tuple):
            items = [_static_value(e, seen) for e in node.elts]
            return tuple(items) if all(i is not None and not isinstance(i, tuple) for i in items) else None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = _static_value(node.operand, seen)
            return None if v is None or isinstance(v, tuple) else (-v if isinstance(node.op, ast.USub) else +v)
        if isinstance(node, ast.BinOp) and type(node.op) in _SAFE_BINOPS:
            a, b = _static_value(node.left, seen), _static_value(node.right, seen)
            if a is None or b is None or isinstance(a, tuple) or isinstance(b, tuple):
                return None
            if isinstance(node.op, ast.Pow) and abs(b) > 64:
                return None
            return _SAFE_BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.Name):
            found = seen.get(node.id)
            if found and found[-1].kind == "constant":  # the binding the top level holds here
                return found[-1].value
        if isinstance(node, ast.Subscript):  # an item of a constant tuple: TABLE[0], TABLE[-1]
            table, index = _static_value(node.value, seen), _static_value(node.slice, seen)
            if isinstance(table, tuple) and type(index) is int and -len(table) <= index < len(table):
                return table[index]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in ("pi", "e", "tau", "inf", "nan")
        ):
            found = seen.get(node.value.id)
            if found and found[-1].kind == "math":
                return getattr(math, node.attr)
    except (ArithmeticError, ValueError, TypeError):
        return None
    return None
