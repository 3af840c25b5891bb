"""Which flag checks of straight-line array code show in the result: a lane that fails one of them
has a NaN or infinite result, whatever its other values (passes/merge_checks.py).

A check `flag |= t_3 == 0` guards a division `t_2 / t_3`: on a lane where it holds the quotient
is ±inf or NaN. `flag |= t_1 <= 0` guards `np.log(t_1)` (-inf or NaN there), `flag |= t < 0`
guards `np.sqrt(t)` (NaN), `flag |= np.isinf(t)` guards `np.sin(t)`, `np.cos(t)`, `np.tan(t)`
(NaN) and `flag |= np.abs(t) > 1` guards `np.arcsin(t)`, `np.arccos(t)` (NaN). From that operation to the returned value, every step must keep a
non-finite operand non-finite, for every value of the other operands:

* `a + b`, `a - b`, `a * b` (inf * 0 is NaN), `-a`, `+a`;
* `a / b` with `a` non-finite (inf / 0 is inf, inf / inf NaN), or with `b` NaN; not `b` infinite
  (1 / inf is 0);
* NumPy functions that map ±inf and NaN to ±inf or NaN: sqrt, the logs, abs, sin, cos, tan (inf
  gives NaN), sinh, cosh, cbrt, square. Not exp (exp(-inf) is 0), tanh, arctan, comparisons,
  selects or anything else: there the path ends.

Only names bound once are followed (a name bound again may hold another value by the end), and
a check's operands must be bound at most once so that the same test, made after the result,
finds the same lanes.
"""

from __future__ import annotations

import ast

NAN, NONFINITE = "nan", "nonfinite"  # what a tainted value is on a failing lane: NaN, or ±inf or NaN
_KEEPS = frozenset({"sqrt", "log", "log2", "log10", "log1p", "abs", "fabs", "absolute", "negative", "sin", "cos",
                    "tan", "sinh", "cosh", "cbrt", "square"})
_TO_NAN = frozenset({"sin", "cos", "tan"})  # of ±inf: NaN
# functions that are NaN where a check of their operand holds: name -> that check's kind (`guarded`)
_NAN_OUTSIDE = {"sqrt": "sqrt_or_log", "sin": "trig", "cos": "trig", "tan": "trig", "arcsin": "arc", "arccos": "arc"}


def guarded(pred: ast.expr) -> tuple[str, str, str | None] | None:
    """(the operand's name, the operation it guards, the mask) of a check predicate this module
    knows: `v == 0` (a divisor), `v <= 0` (log's operand), `v < 0` (sqrt's or log's),
    `np.isinf(v)` (sin's, cos's, tan's), `np.abs(v) > 1` (arcsin's, arccos's), each alone or as
    `m & (...)` with `m` a name."""
    mask = None
    if isinstance(pred, ast.BinOp) and isinstance(pred.op, ast.BitAnd) and isinstance(pred.left, ast.Name):
        mask, pred = pred.left.id, pred.right
    if _numpy_function(pred) == "isinf" and len(pred.args) == 1 and isinstance(pred.args[0], ast.Name):  # type: ignore[attr-defined]
        return pred.args[0].id, "trig", mask  # type: ignore[attr-defined]
    if isinstance(pred, ast.Compare) and len(pred.ops) == 1 and isinstance(pred.ops[0], ast.Gt) \
            and _numpy_function(pred.left) == "abs" and len(pred.left.args) == 1 \
            and isinstance(pred.left.args[0], ast.Name) and _is_constant(pred.comparators[0], 1):  # type: ignore[attr-defined]
        return pred.left.args[0].id, "arc", mask  # type: ignore[attr-defined]
    if not (isinstance(pred, ast.Compare) and len(pred.ops) == 1 and isinstance(pred.left, ast.Name)):
        return None
    right = pred.comparators[0]
    if not _is_constant(right, 0):
        return None
    kind = {ast.Eq: "divisor", ast.LtE: "log", ast.Lt: "sqrt_or_log"}.get(type(pred.ops[0]))
    return None if kind is None else (pred.left.id, kind, mask)


def _guarded_use(node: ast.AST, name: str, kind: str) -> str | None:
    """What `node` is on a lane failing the check, if it is the operation the check guards."""
    if kind == "divisor" and isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) \
            and isinstance(node.right, ast.Name) and node.right.id == name:
        return NONFINITE
    func = _numpy_function(node)
    if func is None or len(node.args) != 1 or node.keywords or not _is_name(node.args[0], name):  # type: ignore[attr-defined]
        return None
    if func in ("log", "log2", "log10"):
        return NONFINITE if kind in ("log", "sqrt_or_log") else None
    return NAN if _NAN_OUTSIDE.get(func) == kind else None


def _numpy_function(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "np":
        return node.func.attr
    return None


def _is_constant(node: ast.AST, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == value


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def taint(node: ast.expr, tainted: dict[str, str], name: str, kind: str) -> str | None:
    """NAN or NONFINITE when `node` is non-finite on every lane failing the check (`name`, `kind`),
    given the names already known to be (`tainted`), else None."""
    use = _guarded_use(node, name, kind)
    if use is not None:
        return use
    if isinstance(node, ast.Name):
        return tainted.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return taint(node.operand, tainted, name, kind)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
        left, right = taint(node.left, tainted, name, kind), taint(node.right, tainted, name, kind)
        if isinstance(node.op, ast.Div) and left is None:
            return NAN if right == NAN else None  # x / inf is 0: only a NaN divisor carries through
        if left is None and right is None:
            return None
        return NAN if NAN in (left, right) else NONFINITE  # NaN with anything is NaN
    func = _numpy_function(node)
    if func in _KEEPS and len(node.args) == 1 and not node.keywords:  # type: ignore[attr-defined]
        inner = taint(node.args[0], tainted, name, kind)  # type: ignore[attr-defined]
        return None if inner is None else NAN if func in _TO_NAN else inner
    return None
