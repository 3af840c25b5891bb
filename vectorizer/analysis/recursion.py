"""Recursion, self and mutual, by flag and patch.

A per-lane recursion depth has no batched form, but the engine already re-runs flagged lanes
with the ORIGINAL scalar function (engine/patch.py). So a lane that reaches a recursive call is
flagged, and its value (or its exception, `RecursionError` included) comes from that re-run;
lanes that end in a base case are computed batched.

Two halves:

* `cut`: the statement that holds a recursive edge (a call to a function on the call chain being
  vectorized or inlined) becomes `raise RecursionError()`, which both backends lower as a flag on
  the lanes that reach it (NumPy: `flag |= mask`; lanes: `return <zeros>, True`). Lanes that
  raise leave loops, so no garbage value can make a loop spin. A conditional at the top of a
  `return` or an assignment (`return a if b == 0 else gcd(b, a % b)`, `return x or f(y)`) is
  first split into an `if` statement, so only the lanes that take the recursive side are flagged;
  so are `if a and f(x):` (no else) and `while a and f(x):` (no else: the loop body becomes
  `if f(x): ... else: break`).
* `edge_result`: the type of a recursive call for the analysis, a fixpoint. First the function
  is analyzed with its recursive edges cut (the base cases alone type it; none: refused), then
  again with each recursive call typed as the joined result so far, until the result is stable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ..core.tree import walk
from ..core.types import TupleType, Val
from ..errors import UnsupportedCallError, VectorizeError
from ..frontend import fence
from .facts import join_val

if TYPE_CHECKING:
    from ..frontend.namespace import Global
    from .calls import Callees

ROUNDS = 8  # the type lattice is shallow (bool < int < num, float < num): stable in 2-3 rounds


def calls_any(node: cst.CSTNode, targets: frozenset[str]) -> bool:
    """Whether `node` holds a call by name to one of `targets`."""
    return any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in targets
               for n in walk(node))


def _raise(leading: object = ()) -> cst.SimpleStatementLine:
    stmt = cst.parse_statement("raise RecursionError()\n")
    return stmt.with_changes(leading_lines=leading)  # type: ignore[return-value]


def _block(stmts: list[cst.BaseStatement]) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=stmts)


class _Cut:
    def __init__(self, targets: frozenset[str]) -> None:
        self.targets = targets

    def has(self, node: cst.CSTNode | None) -> bool:
        return node is not None and calls_any(node, self.targets)

    def body(self, stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for s in stmts:
            new, ends = self.statement(s)
            out += new
            if ends:
                break  # what follows a raise is unreachable
        return out

    def suite(self, suite: cst.BaseSuite) -> cst.BaseSuite:
        if isinstance(suite, cst.IndentedBlock):
            return suite.with_changes(body=self.body(list(suite.body)))
        line = cst.SimpleStatementLine(body=list(suite.body))  # type: ignore[attr-defined]
        return _block(self.body([line]))

    def statement(self, s: cst.BaseStatement) -> tuple[list[cst.BaseStatement], bool]:
        if not self.has(s):
            return [s], False
        if isinstance(s, cst.SimpleStatementLine):
            if len(s.body) == 1:
                split = self.split(s.body[0])
                if split is not None:
                    new, ends = self.statement(split.with_changes(leading_lines=s.leading_lines))
                    return new, ends
            return [_raise(s.leading_lines)], True
        if isinstance(s, cst.If):
            if self.has(s.test) and s.orelse is None and self.first_and(s.test):
                # `if a and f(x):` -> `if a: if f(x):`: lanes where a is false do not reach f
                inner = s.with_changes(test=s.test.right, leading_lines=())  # type: ignore[attr-defined]
                return self.statement(s.with_changes(test=s.test.left, body=_block([inner])))  # type: ignore[attr-defined]
            if self.has(s.test):
                return [_raise(s.leading_lines)], True
            return [s.with_changes(body=self.suite(s.body), orelse=self.orelse(s.orelse))], False
        if isinstance(s, cst.While) and s.orelse is None and self.first_and(s.test):
            # `while a and f(x): body` -> `while a: if f(x): body / else: break`
            inner = cst.If(test=s.test.right, body=s.body, orelse=cst.Else(_block([cst.SimpleStatementLine([cst.Break()])])))  # type: ignore[attr-defined]
            return self.statement(s.with_changes(test=s.test.left, body=_block([inner])))  # type: ignore[attr-defined]
        if isinstance(s, cst.While | cst.For):
            head = s.test if isinstance(s, cst.While) else cst.Tuple([cst.Element(s.target), cst.Element(s.iter)])
            if self.has(head):
                return [_raise(s.leading_lines)], True
            orelse = s.orelse.with_changes(body=self.suite(s.orelse.body)) if s.orelse else None
            return [s.with_changes(body=self.suite(s.body), orelse=orelse)], False
        return [_raise(s.leading_lines)], True  # any other compound statement: the fence refused it

    def first_and(self, test: cst.BaseExpression) -> bool:
        """`a and b` whose left side does not recurse (its right side does)."""
        return isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) \
            and not test.lpar and not self.has(test.left)

    def orelse(self, orelse: cst.If | cst.Else | None) -> cst.If | cst.Else | None:
        if orelse is None:
            return None
        if isinstance(orelse, cst.Else):
            return orelse.with_changes(body=self.suite(orelse.body))
        if self.has(orelse.test):  # an elif whose test recurses: every lane reaching it does
            return cst.Else(body=_block([_raise()]))
        return orelse.with_changes(body=self.suite(orelse.body), orelse=self.orelse(orelse.orelse))

    def split(self, small: cst.BaseSmallStatement) -> cst.If | None:
        """`return a if c else b` -> `if c: return a / else: return b` (also `x = ...`, and `or` /
        `and` whose left side does not recurse), so only the recursive side's lanes are flagged."""
        if isinstance(small, cst.Return) and small.value is not None:
            value = small.value

            def make(v: cst.BaseExpression) -> cst.SimpleStatementLine:
                return cst.SimpleStatementLine([cst.Return(v)])
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            value = small.value
            target = small.targets[0]

            def make(v: cst.BaseExpression) -> cst.SimpleStatementLine:
                return cst.SimpleStatementLine([cst.Assign([target], v)])
        else:
            return None
        value = value.with_changes(lpar=[], rpar=[]) if getattr(value, "lpar", None) else value
        if isinstance(value, cst.IfExp) and not self.has(value.test):
            return cst.If(test=value.test, body=_block([make(value.body)]), orelse=cst.Else(_block([make(value.orelse)])))
        if isinstance(value, cst.BooleanOperation) and not self.has(value.left):
            left, right = value.left, value.right
            # `x or y` is x where x is truthy, else y; `x and y` is y where x is truthy, else x
            then, other = (left, right) if isinstance(value.operator, cst.Or) else (right, left)
            return cst.If(test=left, body=_block([make(then)]), orelse=cst.Else(_block([make(other)])))
        return None


def cut(func: cst.FunctionDef, targets: frozenset[str]) -> cst.FunctionDef:
    """`func` with each statement holding a call to one of `targets` replaced by a raise (the
    lanes reaching it are flagged and re-run by the scalar function)."""
    if not calls_any(func.body, targets):
        return func
    body = _Cut(targets).body(list(func.body.body))  # type: ignore[attr-defined]
    return func.with_changes(body=func.body.with_changes(body=body or [_raise()]))


def _plain(vals: tuple[Val, ...]) -> tuple[Val, ...]:
    return tuple(Val(v.type, v.batched) for v in vals)


def edge_result(callees: Callees, glob: Global, args: list[Val], keywords: dict[str, Val],
                default: Callable[[cst.BaseExpression], Val],
                analyze: Callable[..., object]) -> tuple[Val, ...]:
    """The values a recursive call returns, for the analysis of its caller (a fixpoint per
    function and argument types; see the module docstring). Raises `UnsupportedCallError` when no
    path of the function returns without recursing."""
    parsed = callees.parse(glob)
    params = {n: Val(v.type, v.batched) for n, v in callees.bind(parsed, args, keywords, default).items()}  # type: ignore[union-attr]
    key = (glob.name, tuple((v.type, v.batched) for v in params.values()))
    batched = any(v.batched for v in params.values())
    if key not in callees.assumed:
        # Typed as parsed, not decided per call: what a kind check may rule out is fenced here
        # (Callees.parse fences a callee's such branches later, in for_call's strict look).
        fence.check(parsed, callees.namespace)
        callees.stack.append(glob.name)
        try:
            base = cut(parsed.func, frozenset(callees.stack))
            if not any(isinstance(n, cst.Return) for n in walk(base.body)):
                raise UnsupportedCallError(
                    f"recursive call to {glob.name!r}, which has no base case: no statement of {glob.name!r} returns "
                    f"without a call back into the recursion ({' -> '.join(callees.stack)}), so nothing gives the type "
                    "of its result", hint="give it a base case as a statement of its own, before the recursive "
                    "call: 'if n <= 0: return 0'")
            result = _plain(analyze(base, params, callees.namespace, parsed.location, callees.result).result)  # type: ignore[attr-defined]
            for _ in range(ROUNDS):
                callees.assumed[key] = result
                facts = analyze(parsed.func, params, callees.namespace, parsed.location, callees.result)
                new = facts.result  # type: ignore[attr-defined]
                if len(new) != len(result):
                    raise VectorizeError(f"{glob.name!r} returns tuples of different lengths on different paths",
                                         hint="return the same number of values on every path")
                joined = tuple(join_val(a, b) for a, b in zip(result, _plain(new)))
                if joined == result:
                    break
                result = joined
            else:
                raise UnsupportedCallError(f"the type of the recursive function {glob.name!r} does not settle",
                                           hint="annotate the variables it returns with one type")
        except BaseException:
            callees.assumed.pop(key, None)
            raise
        finally:
            callees.stack.pop()
    result = callees.assumed[key]
    if any(isinstance(v.type, TupleType) for v in result):
        raise UnsupportedCallError(f"recursive call to {glob.name!r} returning a nested tuple", hint="return numbers")
    return tuple(Val(v.type, v.batched or batched) for v in result)
