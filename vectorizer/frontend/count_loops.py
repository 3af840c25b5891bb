"""`for v in itertools.count(start, step)` is a `while True` loop with a counter of its own (part
of frontend/desugar.py; issue 51: primefac's `isprime`, `for D in count(5, 4):` choosing the
Lucas test's parameter). Before::

    for D in count(5, 4):
        j = jacobi(D, n)
        if j == -1: break
        D = -2 - D

After::

    D_count_1 = 5
    while True:
        D = D_count_1
        D_count_1 = D_count_1 + 4
        j = jacobi(D, n)
        if j == -1: break
        D = -2 - D

CPython's count yields `start`, then adds `step` to its own counter at each step (rebinding the
loop variable in the body changes nothing), computing the next value as it returns one
(itertools `count_nextlong`: `stepped_up = cnt + step` before `return cnt`): the counter and its
update before the body are that. Python ints are unbounded; the counter is an int64 here, and the
addition's overflow check flags a lane whose counter leaves it (re-run by the scalar function, or
refused), as for any int addition. Floats add as CPython adds them, one step at a time.

Rewritten only where that is all there is to it: `count` is itertools.count (the module's own
binding, checked against the object, or `itertools.count`), the target is one name, and `start`
is omitted or a number literal (an int or float: CPython's fast mode yields `int(start)` for a
bool start with step 1, which no literal is). `step` may be any expression: evaluated once,
before the loop, as the call evaluates it. A loop's `else` never runs (count never ends); it is a
flag by then (frontend/loop_else.py). Without the module's objects (`vectorizer generate`) the
loop is left to the fence, which refuses it.
"""

from __future__ import annotations

import itertools
import types

import libcst as cst

from .namespace import Namespace
from .paths import FreshNames, PathTransformer
from .sequence_values import number


class CountLoops(PathTransformer):
    """The rewrite of the module docstring."""

    def __init__(self, ns: Namespace, local: set[str], taken: set[str]) -> None:
        super().__init__()
        self.ns, self.local, self.taken = ns, local, taken
        self.fresh = FreshNames(taken)

    def wants(self, node: cst.CSTNode) -> bool:
        return self._parts(node) is not None

    def _is_count(self, func: cst.BaseExpression) -> bool:
        g = self.ns.globals
        if g is None:
            return False
        if isinstance(func, cst.Name):
            return func.value not in self.local and g.get(func.value, None) is itertools.count
        if isinstance(func, cst.Attribute) and func.attr.value == "count" and isinstance(func.value, cst.Name):
            module = g.get(func.value.value, None) if func.value.value not in self.local else None
            return isinstance(module, types.ModuleType) and module is itertools
        return False

    def _parts(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """(start, step) of `for v in count(start, step)`, or None where the rewrite does not apply."""
        if not (isinstance(node, cst.For) and node.asynchronous is None and isinstance(node.target, cst.Name)
                and isinstance(node.iter, cst.Call) and self._is_count(node.iter.func)):
            return None
        args = node.iter.args
        if any(a.star for a in args) or len(args) > 2:
            return None
        given: dict[str, cst.BaseExpression] = {}
        for i, a in enumerate(args):
            key = a.keyword.value if a.keyword is not None else ("start", "step")[i]
            if key not in ("start", "step") or key in given:
                return None
            given[key] = a.value
        start = given.get("start", cst.Integer("0"))
        if type(number(start)) not in (int, float):
            return None
        return start, given.get("step", cst.Integer("1"))

    def leave_For(self, original: cst.For, updated: cst.For):  # noqa: ANN201 - libcst's union
        parts = self._parts(original)
        if parts is None:
            return updated
        start, step = parts
        name = original.target.value  # type: ignore[attr-defined]
        counter = self.fresh(f"{name}_count")
        lines: list[cst.BaseStatement] = [_assign(counter, start)]
        if number(step) is None:
            held = self.fresh(f"{name}_step")
            lines.append(_assign(held, step))
            step = cst.Name(held)
        head = [_assign(name, cst.Name(counter)),
                _assign(counter, cst.BinaryOperation(cst.Name(counter), cst.Add(), step))]
        body = updated.body
        inner = list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(list(body.body))]
        loop = cst.While(test=cst.Name("True"), body=cst.IndentedBlock([*head, *inner]), orelse=updated.orelse)
        for new in (*lines, *head, loop):
            self.rebuilt[id(new)] = (new, original)
            if isinstance(new, cst.SimpleStatementLine):
                self.rebuilt[id(new.body[0])] = (new.body[0], original)
        return cst.FlattenSentinel([*lines, loop])


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])
