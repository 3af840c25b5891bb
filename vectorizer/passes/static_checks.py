"""Fold kind checks of parameters to literals, from this specialization's parameter types.

Before (n an int64 lane, x a float64 lane)::

    if not isinstance(n, int):
        raise TypeError("n must be an int")
    if type(x) is int or x is None:
        x = 0.0
    return n * x

After::

    if not True:
        raise TypeError("n must be an int")
    if False or False:
        x = 0.0
    return n * x

and `x is NAN` (NAN any object the module binds) of a float argument `x` given to the call is
`False` (`is not`: `True`): a float lane is an object made for the call, never one that existed
before it (an int or bool lane may be an object Python caches, a parameter left at its default
holds the default's object: refused). Callees decide the same for the parameters the call gives
such a float by name (analysis/lane_args.py, passes/specialize.py).

With `not True` folded to `False` (and `True and y` to `y`...), so canonicalize then drops the
branch. For a float `n` the test of that `if` (whose body raises) becomes `0 == 0`, not `True`:
canonicalize would fold `True` and drop everything after the raise, leaving no `return` to type
the result from. A uniform test that holds, so every call raises TypeError, as the scalar loop
does on its first lane. The fence only lets through checks whose subject is a parameter the
function has not assigned by then (frontend/kind_points.py), so the parameter's type is the
value's kind where the check runs.

This runs before the analysis (the pipeline calls `fold` first; it is no entry of the pass lists,
which start after the analysis), so the analysis types a literal, never a call to isinstance.
Only the nodes on the way to a check are rebuilt: every other node keeps its identity, and with
it its position for error messages and origin comments.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from ..core.types import BOOL, FLOAT, INT, Val
from ..errors import VectorizeError
from ..frontend.kind_points import reassigned_at
from ..frontend.namespace import Namespace
from ..frontend.parse import ParsedFunction
from ..frontend.static_checks import StaticCheck, assigned_names, defaulted, recognize

KIND = {INT: "int", FLOAT: "float", BOOL: "bool"}  # a lane type -> its kind (specialized_analysis.specialized too)


def fold(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val]) -> ParsedFunction:
    """`parsed` with each kind check of a parameter replaced by `True` or `False` (itself if it
    has none); a check of a parameter whose lanes are not numbers is a `VectorizeError`."""
    func = parsed.func
    p = func.params
    names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    finder = _Find(namespace, names, assigned_names(func), reassigned_at(func))
    func.visit(finder)
    if not finder.checks:
        return parsed
    values: dict[cst.CSTNode, bool | cst.BaseExpression] = {}
    for node, check in finder.checks.items():
        kind = KIND.get(params[check.subject].type)  # type: ignore[arg-type]
        if kind is None:
            raise VectorizeError(f"the kind of {check.subject!r} (an array) is not a lane's number kind; "
                                 "this check cannot be decided", parsed.location(node),
                                 hint="check numbers only, or drop the check")
        values[node] = kind in check.holds
        if check.fresh is not None:
            why = ("an int or bool lane may be an object Python caches" if kind != "float" else
                   f"'{check.against}' is a local of this function" if check.against in finder.assigned else
                   f"{check.subject!r} has a default, whose own object it holds where the call omits it"
                   if check.subject in defaulted(func) else "")
            if why:
                raise VectorizeError(
                    f"'is {check.against}' of {check.subject!r} is decided only for a float argument given to the "
                    f"call (an object made for the call, never a module's object): {why}",
                    parsed.location(node), hint="compare numbers with ==, or math.isnan(x) for NaN")
            values[node] = check.fresh
        if check.identity is not None:  # `flag is True`: a bool lane's own value, else never
            literal, negated = check.identity
            values[node] = _identity(check.subject, literal != negated, node) if kind == "bool" else negated
    return dataclasses.replace(parsed, func=func.visit(_Fold(values, finder.on_path)))


class _Find(cst.CSTVisitor):
    """The kind checks of a function, and every node on the path to one."""

    def __init__(self, ns: Namespace, params: set[str], assigned: set[str], points: dict) -> None:
        self.ns, self.params, self.assigned, self.points = ns, params, assigned, points
        self.checks: dict[cst.CSTNode, StaticCheck] = {}
        self.on_path: set[int] = set()
        self.stack: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)  # popped in on_leave, which libcst calls even when on_visit is False
        if isinstance(node, cst.Call | cst.Comparison):
            found = recognize(node, self.ns, self.params, self.points.get(node, self.assigned))
            if isinstance(found, StaticCheck):  # the fence refused the other forms
                self.checks[node] = found
                self.on_path.update(id(n) for n in self.stack[:-1])
                return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class _Fold(cst.CSTTransformer):
    def __init__(self, values: dict[cst.CSTNode, bool | cst.BaseExpression], on_path: set[int]) -> None:
        self.values, self.on_path = values, on_path

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.on_path  # elsewhere the node is kept as it is (its identity too)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        if original_node in self.values:
            value = self.values[original_node]
            return _literal(value, original_node) if isinstance(value, bool) else value
        if isinstance(updated_node, cst.UnaryOperation) and isinstance(updated_node.operator, cst.Not) \
                and isinstance(updated_node.expression, cst.Name) and updated_node.expression.value in ("True", "False"):
            return _literal(updated_node.expression.value == "False", updated_node)
        if isinstance(updated_node, cst.BooleanOperation) and isinstance(updated_node.left, cst.Name) \
                and updated_node.left.value in ("True", "False"):
            # Python's own rule: `True and y` is y, `False and y` is False (`or`: the mirror).
            left_wins = (updated_node.left.value == "True") == isinstance(updated_node.operator, cst.Or)
            return _literal(updated_node.left.value == "True", updated_node) if left_wins else updated_node.right
        if isinstance(updated_node, cst.If) and _is_true(updated_node.test) and _raises(updated_node.body):
            # `if True: raise` would leave no return for the analysis to type the result from (and
            # canonicalize would prune the rest): a uniform test it does not prune keeps them.
            return updated_node.with_changes(test=cst.Comparison(cst.Integer("0"), [
                cst.ComparisonTarget(cst.Equal(), cst.Integer("0"))]))
        return updated_node


def _identity(subject: str, same: bool, like: cst.CSTNode) -> cst.BaseExpression:
    """`flag` (`flag is True` of a bool lane) or `(not flag)` (`flag is False`)."""
    if same:
        return cst.Name(subject, lpar=like.lpar, rpar=like.rpar)  # type: ignore[attr-defined]
    return cst.UnaryOperation(cst.Not(), cst.Name(subject), lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _raises(body: cst.BaseSuite) -> bool:
    """The block ends in a `raise` statement."""
    stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = stmts[-1] if stmts else None
    return isinstance(last, cst.SimpleStatementLine | cst.SimpleStatementSuite) and isinstance(last.body[-1], cst.Raise)


def _literal(value: bool, like: cst.CSTNode) -> cst.Name:
    return cst.Name("True" if value else "False", lpar=like.lpar, rpar=like.rpar)  # type: ignore[attr-defined]
