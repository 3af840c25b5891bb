"""Where a function that returns a value returns None instead (part of frontend/desugar.py): a
bare `return`, a `return None`, or the end of its body reached without a `return` (an `if`/`elif`
chain with no `else`, which a NaN falls through), becomes a `raise`, so the lanes that get there
are flagged and re-run through the scalar function (engine/patch.py); `return None if c else e`
becomes `if c:` the raise, then `return e` (and `return e if c else None` the mirror). Before::

    def band(x):
        if x < 0.0:
            return -1.0
        elif x >= 0.0:
            return 1.0

After::

    def band(x):
        if x < 0.0:
            return -1.0
        elif x >= 0.0:
            return 1.0
        raise TypeError("band() returns None here")   # flags the lanes that get here

On a lane that gets there the scalar function returns None, which no batched result can hold:
the call is refused at run time with an error naming the first such lane (engine/patch.py's
`store`) and the line that returned None (engine/none_lines.py), unless a lane raises first, as
a loop over the lanes would raise it. Every other lane is batched as before; a callee's None reaches its caller on those lanes only, which the re-run
of the caller computes as CPython does. The exception named in the `raise` is never raised (the
re-run gives the lane's outcome): it says, in the generated code, why the lanes are flagged.
A function that never returns a value is left as it was (a callee then returns 0, desugar.py).
"""

from __future__ import annotations

import libcst as cst

from ..errors import UnsupportedSyntaxError
from .namespace import Namespace, function_source
from .parse import ParsedFunction, parse_function
from .paths import PathTransformer


def returns_none(name: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Raise(cst.parse_expression(f"TypeError({name + '() returns None here'!r})"))])


def may_fall_off(stmts: list[cst.BaseStatement]) -> bool:
    """Whether running `stmts` may reach their end (conservatively: True when unsure)."""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine | cst.SimpleStatementSuite):
        return not any(isinstance(s, cst.Return | cst.Raise) for s in last.body)
    if isinstance(last, cst.If):
        if last.orelse is None or may_fall_off(_body(last.body)):
            return True
        return may_fall_off([last.orelse] if isinstance(last.orelse, cst.If) else _body(last.orelse.body))
    if isinstance(last, cst.While):  # `while True:` without a break leaves only by return or raise
        forever = isinstance(last.test, cst.Name) and last.test.value == "True"
        return not forever or _breaks(last.body)
    return True


def is_none(node: cst.BaseExpression | None) -> bool:
    """No value, or the literal `None` (a keyword: no name rebinds it)."""
    return node is None or isinstance(node, cst.Name) and node.value == "None"


def _none_arm(node: cst.CSTNode) -> bool:
    """`return None if c else e` / `return e if c else None`."""
    return isinstance(node, cst.Return) and isinstance(node.value, cst.IfExp) \
        and (is_none(node.value.body) or is_none(node.value.orelse))


class NoneEnds(PathTransformer):
    """`return`, `return None` become the raise, `return None if c else e` an `if` of it; `end`
    appends it where the body may fall off its end."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Return) and (is_none(node.value) or _none_arm(node))

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.BaseSmallStatement:
        return updated if not is_none(updated.value) else returns_none(self.name).body[0]

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        split = self._split(updated, original)
        return split[0] if len(split) == 1 else cst.FlattenSentinel(split)

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite):
        split = self._split(cst.SimpleStatementLine(updated.body), original)
        return updated if len(split) == 1 else cst.IndentedBlock(split)

    def _split(self, line: cst.SimpleStatementLine, source: cst.CSTNode) -> list[cst.BaseStatement]:
        """`return None if c else e` -> `if c: raise ...` + `return e`; `return e if c else None`
        -> `if c: return e` + the raise: `c` runs once, and `e` where Python runs it."""
        last = line.body[-1] if line.body else None
        if not _none_arm(last):  # type: ignore[arg-type]
            return [line]
        choice = last.value  # type: ignore[union-attr]
        before = [line.with_changes(body=line.body[:-1])] if len(line.body) > 1 else []
        test = choice.test.with_changes(lpar=[], rpar=[]) if hasattr(choice.test, "lpar") else choice.test
        if is_none(choice.body):
            taken, rest = [returns_none(self.name)], self._split(cst.SimpleStatementLine([cst.Return(choice.orelse)]), source)
        else:
            taken, rest = self._split(cst.SimpleStatementLine([cst.Return(choice.body)]), source), [returns_none(self.name)]
        out = [*before, cst.If(test, cst.IndentedBlock(taken)), *rest]
        for stmt in out:
            self.rebuilt[id(stmt)] = (stmt, source)
        return out

    def end(self, func: cst.FunctionDef) -> cst.FunctionDef:
        body = _body(func.body)
        if not may_fall_off(body):
            return func
        block = func.body.with_changes(body=[*body, returns_none(self.name)]) if isinstance(func.body, cst.IndentedBlock) \
            else cst.IndentedBlock([*body, returns_none(self.name)])
        self.rebuilt[id(block)] = (block, func.body)
        new = func.with_changes(body=block)
        self.rebuilt[id(new)] = (new, func)
        return new


def _body(suite: cst.BaseSuite) -> list[cst.BaseStatement]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]  # type: ignore[attr-defined]


def _breaks(node: cst.CSTNode) -> bool:
    """A `break` of this loop (not of a loop nested in it)."""
    for child in node.children:
        if isinstance(child, cst.Break):
            return True
        if not isinstance(child, cst.While | cst.For | cst.FunctionDef | cst.ClassDef) and _breaks(child):
            return True
    return False


def returns_value(func: cst.FunctionDef) -> bool:
    """A `return` with a value other than None (`return None` is a bare `return`)."""
    return any(isinstance(n, cst.Return) and not is_none(n.value) for n in _walk(func.body))


def no_value_use(parsed: ParsedFunction, func: cst.FunctionDef, ns: Namespace, local: set[str]) -> None:
    """Refuse a call whose value is used, of a same-module function that returns no value (None in
    Python: a generator's value is a generator)."""
    statements = {id(s.value) for s in _walk(func.body) if isinstance(s, cst.Expr)}
    for node in _walk(func.body):
        if isinstance(node, cst.Call) and id(node) not in statements and isinstance(node.func, cst.Name):
            if node.func.value in local or node.func.value == func.name.value:
                continue
            glob = ns.resolve(node.func.value)
            if glob.kind != "function":
                continue
            try:
                callee = parse_function(function_source(glob))
            except Exception:  # noqa: BLE001 - the fence reports an unreadable callee itself
                continue
            if any(isinstance(n, cst.Yield) for n in _walk(callee.func.body)):
                raise UnsupportedSyntaxError(
                    f"'{node.func.value}' is a generator (it has 'yield'): its value is an iterator, not a number",
                    parsed.location(node), hint="compute the values with a loop in the function itself")
            if not returns_value(callee.func):
                raise UnsupportedSyntaxError(
                    f"'{node.func.value}' returns None (it has no 'return' with a value); its value cannot be used here",
                    parsed.location(node), hint="call it as a statement, or make it return a number")


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
