"""Loops of `ops_to_numpy`, and the storage changes where paths meet.

A masked loop (`while active:`, from while_to_masked and if_to_select) runs while any lane is
active; a loop-carried name that becomes per-lane inside it (a Python scalar before) is made a
NumPy value first, so that `~`, `&` and overflow follow NumPy's rules from the first iteration::

    n = 0                                   n = 0
    active = x > 1.0                        active = x > 1.0
    while active:                   ->      n = np.int64(n)
        x = x / 2.0                         while np.any(active):
        n = (n + 1) if active else n            x = x / 2.0
        active = active and (x > 1.0)           n = _vz_where(active, n + 1, n)
                                                active = active & (x > 1.0)

A uniform `while` keeps its test (re-evaluated after any statements it needs); a `for` over
`range` iterates NumPy scalars (`np.arange`), so uniform arithmetic is checked as lanes are.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ...analysis.liveness import reads, writes
from ...core import nodes as n
from ...core.nodes import Mask
from ...core.pyast import assign
from ...core.types import BOOL, FLOAT, INT, NUM, ArrayType, Type
from ..base import body_of, code

if TYPE_CHECKING:
    from .lowering import Lowering

NP_SCALAR = {BOOL: "bool_", INT: "int64", FLOAT: "float64", NUM: "float64"}


class Loops:
    """Lowers the loops of one `ops_to_numpy` lowering, and converts storage where paths meet."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self.ctx = low.ctx
        self.facts = low.facts

    def convert_join(self, end: dict | None, after: dict | None, mask: Mask) -> None:
        """At the end of a branch of a uniform `if`, give the names the storage they have after
        it: only one branch runs, and the other may have widened a bool to an int."""
        if end is not None and after is not None:
            self.convert(end, after, mask)

    def convert_entry(self, loop: cst.CSTNode, mask: Mask) -> None:
        """Give loop-carried names the storage they have at the loop test (bool->int, int->float)."""
        entry, header = self.facts.loop_entry.get(loop, {}), self.facts.loop_header.get(loop, {})
        lanes = lambda: self.low.lanes[-1] if not isinstance(loop, cst.While) else self.loop_lanes(loop)  # noqa: E731
        self.convert(entry, header, mask, lanes)

    def convert(self, now: dict, then: dict, mask: Mask, lanes: Callable[[], ast.expr] | None = None) -> None:
        """Names stored as `now` has them, converted to the storage `then` gives them: a narrower
        type widened (bool -> int -> float), a Python scalar that becomes per-lane made a NumPy
        scalar (`~` on a Python bool is -1, not the logical not), and with `lanes`, a uniform array
        that becomes per-lane repeated over the lanes. A name unbound in `now` is only read
        where it has been set since."""
        scalars: list[str] = []
        for name in sorted(then):
            if name not in now or now[name].maybe_unbound or name in self.ctx.loop_masks:
                continue
            before, after = now[name].val, then[name].val
            if lanes is not None and isinstance(before.type, ArrayType) and after.batched and not before.batched:
                self.low.emit(assign(name, repeat(name, lanes())))
            elif before.type != after.type and isinstance(before.type, Type) and isinstance(after.type, Type):
                value = n.name(name)
                converted = self.low.exprs.coerce(value, before.type, after.type, mask)
                if converted is not value:  # float -> NUM keeps its storage
                    self.low.emit(assign(name, converted))
            elif after.batched and not before.batched and after.type in NP_SCALAR:
                scalars.append(name)
        if scalars:
            converted = [n.call(f"np.{NP_SCALAR[then[name].val.type]}", n.name(name)) for name in scalars]
            value = converted[0] if len(converted) == 1 else ast.Tuple(elts=converted, ctx=ast.Load())
            self.low.emit(assign(scalars, value))

    def loop_lanes(self, loop: cst.While) -> ast.expr:
        test = loop.test
        if isinstance(test, cst.Name) and test.value in self.ctx.loop_masks:
            return n.call("len", n.name(test.value))
        return self.low.lanes[-1]

    def while_loop(self, s: cst.While, mask: Mask) -> None:
        self.convert_entry(s, mask)
        test = s.test
        if isinstance(test, cst.Name) and test.value in self.ctx.loop_masks:
            self.low.emit(n.while_(n.call("np.any", n.name(test.value))))
            inner: Mask = n.name(test.value)
            self.low.lanes.append(n.call("len", n.name(test.value)))
            # What compact_loops must carry: the loop's batched values that it reads live from its
            # entry or writes live to its exit. A name live through the loop that it never touches
            # stays as it is (it may even be unbound here, assigned on a later iteration outside).
            header = self.facts.loop_header.get(s, {})
            carried = ((self.low.live.live_in.get(s, frozenset()) & reads(s))
                       | (writes(s) & self.low.live.live_out.get(s, frozenset())))
            self.ctx.loop_vars[test.value] = sorted(n for n in carried if n in header and header[n].val.batched
                                                    and n != test.value)
        else:
            inner = mask
            start, self.low.depth = len(self.low.lines), self.low.depth + 1
            cond = self.low.exprs.lower(test, mask)
            self.low.depth -= 1
            setup = self.low.lines[start:]
            del self.low.lines[start:]
            if not setup:
                self.low.emit(n.while_(cond))
            else:  # the test needs statements: they must run before every test, not once
                self.low.emit(n.while_(n.constant(True)))
                self.low.lines.extend(setup)
                self.low.emit(n.if_(n.unary("not", cond)), indent=1)
                self.low.emit(ast.Break(), indent=2)
        self.low.depth += 1
        self.low.loop_depth += 1
        self.low.suite(body_of(s.body), inner)
        self.low.loop_depth -= 1
        self.low.depth -= 1
        if inner is not mask:
            self.low.lanes.pop()

    def for_loop(self, s: cst.For, mask: Mask) -> None:
        self.convert_entry(s, mask)
        it = s.iter
        # Iterate NumPy scalars: uniform arithmetic must follow the same checked rules as lanes
        # (Python ints would raise ZeroDivisionError or grow past int64 on their own).
        if isinstance(it, cst.Call):
            args = [self.low.exprs.lower(a.value, mask) for a in it.args]
            head: ast.expr = n.call("np.arange", *args)
            if len(args) == 3 and self.low.folder.folded(it.args[2].value) is None:
                # A zero step raised (for_to_while checks it), but under a mask that only flags
                # the lanes: the loop must then be empty, not divide by zero in np.arange.
                head = n.ifexp(n.compare(args[2], "!=", n.const(0)), head, ast.Tuple(elts=[], ctx=ast.Load()))
        else:
            head = n.call("np.asarray", self.low.exprs.lower(it, mask))
        self.low.emit(ast.For(target=target(s.target), iter=head, body=[], orelse=[], type_comment=None, lineno=0))
        values = [a.value for a in it.args] if isinstance(it, cst.Call) else []
        consts = [c for c in map(self.low.folder.folded, values) if isinstance(c, int)]
        if isinstance(s.target, cst.Name) and values and len(consts) == len(values) and len(values) <= 2:
            self.low.ranges[s.target.value] = (0, consts[0]) if len(consts) == 1 else (consts[0], consts[1])
        self.low.depth += 1
        self.low.loop_depth += 1
        self.low.suite(body_of(s.body), mask)
        self.low.loop_depth -= 1
        self.low.depth -= 1
        if isinstance(s.target, cst.Name):
            self.low.ranges.pop(s.target.value, None)


def repeat(name: str, lanes: ast.expr) -> ast.expr:
    """`name` (a uniform array) repeated over the lanes."""
    return n.fill("np.repeat({0}[None], {1}, axis=0)", n.name(name), lanes)


def target(node: cst.BaseExpression) -> ast.expr:
    """An assignment's (or a `for`'s) target, stored: a name, or a tuple of them."""
    if isinstance(node, cst.Name):
        return n.as_store(n.name(node.value))
    if isinstance(node, cst.Tuple | cst.List) and all(isinstance(e, cst.Element) for e in node.elements):
        kind = ast.Tuple if isinstance(node, cst.Tuple) else ast.List
        return kind(elts=[target(e.value) for e in node.elements], ctx=ast.Store())
    return n.as_store(ast.parse(code(node).strip(), mode="eval").body)
