"""Phase one of `lanes_to_jax`: a lane function's exits become flags, its `for` loops `while`
loops, so that the only control flow left is `if` and `while` (functional.py lowers those).

Before (lane code of ops_to_lanes)::

    def _lane_f(x, n):
        if x < 0:
            return (0.0, True)                  # a check: flag the lane
        for i in range(n):
            if x > 10.0:
                break
            x = x * 2.0
        return (x, False)

After (still scalar Python, one exit)::

    def _lane_f(x, n):
        _failed, _done = _vz.start(x, n)        # lanes with a subnormal float argument: flagged
        _out = _vz.UNDEF
        _failed, _done = _vz.fail(x < 0, _failed, _done)
        _brk = False
        _k = 0
        _stop = n
        _step = 1
        while _vz.range_live(_k, _stop, _step) [and not _done and not _brk]:
            i = _k
            _k = _k + _step
            if x > 10.0:
                _brk = True
            if not _brk:
                x = x * 2.0
        _out = _vz.put(_out, (x, False), _done)
        _done = True
        return _vz.result(_out, _failed)

The bracketed conjuncts are kept apart (`While.conjuncts`): the user's test is decided with its
error bound (functional.py), the flags are exact. A `return` needs no guard for the statements
after it (they compute values no lane that returned reads); later returns, checks and loops test
`_done`. `break` and `continue` do guard the rest of their loop's body.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ...analysis.names import Namer

VZ = "_vz"


def call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(VZ), name), list(args), [])


def assign(targets: list[str], value: ast.expr) -> ast.Assign:
    target: ast.expr = ast.Name(targets[0]) if len(targets) == 1 else ast.Tuple([ast.Name(t) for t in targets])
    return ast.Assign([target], value)


def not_(name: str) -> ast.expr:
    return ast.UnaryOp(ast.Not(), ast.Name(name))


def is_check(node: ast.stmt) -> bool:
    """`if cond: return (<zeros>, True)`: a check of the lane code."""
    return isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 and is_fail_return(node.body[0])


def is_fail_return(node: ast.stmt) -> bool:
    """`return (<zeros>, True)`: the lane fails (a check's body, or a `raise`)."""
    value = node.value if isinstance(node, ast.Return) else None
    return isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[1], ast.Constant) \
        and value.elts[1].value is True


@dataclass
class _Loop:
    brk: str | None
    cont: str | None


@dataclass
class State:
    """The names of a lane function's exit state."""

    out: str
    failed: str
    done: str
    loops: list[_Loop] = field(default_factory=list)


class Structure:
    def __init__(self, namer: Namer, uniform: frozenset[str]) -> None:
        self.namer = namer
        self.uniform = uniform  # names with one value for every lane (module constants, uniform arguments)

    def function(self, fn: ast.FunctionDef, live_param: str | None) -> tuple[list[ast.stmt], State]:
        """The body with one exit; `live_param` names a callee's parameter that says which lanes
        run it (the caller's path), None for the main lane (its arguments are checked)."""
        state = State(self.namer.fresh("_out"), self.namer.fresh("_failed"), self.namer.fresh("_done"))
        params = [a.arg for a in fn.args.args]
        body: list[ast.stmt] = []
        if live_param is None:
            if params:  # the arguments as lane values (backends/jax/approx.py), exact
                body.append(ast.Assign([ast.Tuple([ast.Name(p) for p in params])],
                                       call("arguments", *[ast.Name(p) for p in params])))
            body.append(assign([state.failed, state.done], call("start", *[ast.Name(p) for p in params])))
        else:
            body.append(assign([state.failed, state.done], call("start_callee", ast.Name(live_param))))
        body.append(assign([state.out], ast.Attribute(ast.Name(VZ), "UNDEF")))
        body += self.block(fn.body, state)
        return body, state

    def block(self, stmts: list[ast.stmt], state: State) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for i, s in enumerate(stmts):
            lowered, exits = self.statement(s, state)
            out += lowered
            if exits == "always":
                return out  # the rest never runs (after break / continue)
            if exits == "maybe" and i + 1 < len(stmts):
                guard = self._guard(state)
                rest = self.block(stmts[i + 1:], state)
                if rest:
                    node = ast.If(guard, rest, [])
                    node.internal = True  # type: ignore[attr-defined]
                    out.append(node)
                return out
        return out

    def _guard(self, state: State) -> ast.expr:
        loop = state.loops[-1]
        flags = [n for n in (loop.brk, loop.cont) if n is not None]
        test: ast.expr = ast.Name(flags[0]) if len(flags) == 1 else ast.BoolOp(ast.Or(), [ast.Name(f) for f in flags])
        return ast.UnaryOp(ast.Not(), test)

    def statement(self, s: ast.stmt, state: State) -> tuple[list[ast.stmt], str]:
        """The lowered statements and whether `s` leaves the loop's body: "never", "maybe" (a
        break or continue inside an if) or "always"."""
        comments = getattr(s, "comments", [])
        lowered, exits = self._statement(s, state)
        if lowered and comments and lowered[0] is not s:
            lowered[0].comments = comments + getattr(lowered[0], "comments", [])  # type: ignore[attr-defined]
        return lowered, exits

    def _statement(self, s: ast.stmt, state: State) -> tuple[list[ast.stmt], str]:
        if is_check(s):
            return [self._fail(s.test, state, s)], "never"  # type: ignore[attr-defined]
        if isinstance(s, ast.Return):
            if is_fail_return(s):
                return [self._fail(ast.Constant(True), state, s)], "never"
            put = assign([state.out], call("put", ast.Name(state.out), s.value or ast.Constant(None), ast.Name(state.done)))
            return [_at(put, s), _at(assign([state.done], ast.Constant(True)), s)], "never"
        if isinstance(s, ast.If):
            then = self.block(s.body, state)
            other = self.block(s.orelse, state)
            node = _at(ast.If(s.test, then or [ast.Pass()], other), s)
            return [node], "maybe" if self._exits(s) else "never"
        if isinstance(s, ast.While):
            return self._while(s, state), "never"
        if isinstance(s, ast.For):
            return self._for(s, state), "never"
        if isinstance(s, ast.Break | ast.Continue):
            loop = state.loops[-1]
            flag = loop.brk if isinstance(s, ast.Break) else loop.cont
            assert flag is not None
            return [_at(assign([flag], ast.Constant(True)), s)], "always"
        return [s], "never"

    def _fail(self, test: ast.expr, state: State, at: ast.stmt) -> ast.stmt:
        return _at(assign([state.failed, state.done], call("fail", test, ast.Name(state.failed), ast.Name(state.done))), at)

    def _exits(self, s: ast.stmt) -> bool:
        """Whether `s` holds a break or continue of the loop being lowered (not of an inner one)."""
        if isinstance(s, ast.Break | ast.Continue):
            return True
        if isinstance(s, ast.If):
            return any(self._exits(c) for c in s.body + s.orelse)
        return False

    def _while(self, s: ast.While, state: State, before: list[ast.stmt] | None = None,
               head: list[ast.stmt] | None = None, test: ast.expr | None = None, uniform: bool = False) -> list[ast.stmt]:
        """`before`: statements ahead of the loop; `head`: statements that open each iteration
        (a for loop's counter); `test`: an exact test (the counter's) instead of s.test."""
        exits = [n for n in _own(s.body) if isinstance(n, ast.Break | ast.Continue)]
        loop = _Loop(self.namer.fresh("_brk") if any(isinstance(n, ast.Break) for n in exits) else None,
                     self.namer.fresh("_cont") if any(isinstance(n, ast.Continue) for n in exits) else None)
        out = list(before or [])
        if loop.brk:
            out.append(assign([loop.brk], ast.Constant(False)))
        state.loops.append(loop)
        try:
            inner = self.block(s.body, state)
        finally:
            state.loops.pop()
        body = ([assign([loop.cont], ast.Constant(False))] if loop.cont else []) + list(head or []) + inner
        node = _at(ast.While(test if test is not None else s.test, body or [ast.Pass()], []), s)
        node.exact_test = test is not None  # type: ignore[attr-defined]
        # A lane that is done (returned, flagged, or off its caller's path) may hold values that
        # would keep a loop going forever; a range over uniform bounds ends for every lane.
        node.conjuncts = ([] if uniform else [not_(state.done)]) + ([not_(loop.brk)] if loop.brk else [])  # type: ignore[attr-defined]
        node.uniform = uniform  # type: ignore[attr-defined]  # flagged lanes need not stop it either (loops.py)
        return out + [node]

    def _for(self, s: ast.For, state: State) -> list[ast.stmt]:
        if not (isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name) and s.iter.func.id == "range"):
            return self._for_items(s, state)
        args = s.iter.args
        start, stop, step = (ast.Constant(0), args[0], ast.Constant(1)) if len(args) == 1 else \
            (args[0], args[1], ast.Constant(1)) if len(args) == 2 else (args[0], args[1], args[2])
        k, end, by = self.namer.fresh("_k"), self.namer.fresh("_stop"), self.namer.fresh("_step")
        before = [assign([k], start), assign([end], stop), assign([by], step)]
        head = [ast.Assign([copy.deepcopy(s.target)], ast.Name(k)),
                assign([k], ast.BinOp(ast.Name(k), ast.Add(), ast.Name(by)))]
        uniform = all(self._uniform(a) for a in args) and not _assigns(s.body, {n.id for a in args for n in ast.walk(a) if isinstance(n, ast.Name)})
        return self._while(ast.While(s.iter, s.body, []), state, before, head,
                           call("range_live", ast.Name(k), ast.Name(end), ast.Name(by)), uniform)

    def _uniform(self, node: ast.expr) -> bool:
        """An expression of constants and uniform names only."""
        return all(isinstance(n, ast.Constant | ast.BinOp | ast.UnaryOp | ast.operator | ast.unaryop | ast.Load)
                   or (isinstance(n, ast.Name) and n.id in self.uniform) for n in ast.walk(node))

    def _for_items(self, s: ast.For, state: State) -> list[ast.stmt]:
        """`for x in <tuple>`: by index."""
        seq, k = self.namer.fresh("_items"), self.namer.fresh("_k")
        before = [assign([seq], s.iter), assign([k], ast.Constant(0))]
        head = [ast.Assign([copy.deepcopy(s.target)], call("index", ast.Name(seq), ast.Name(k))),
                assign([k], ast.BinOp(ast.Name(k), ast.Add(), ast.Constant(1)))]
        test = ast.Compare(ast.Name(k), [ast.Lt()], [ast.Call(ast.Name("len"), [ast.Name(seq)], [])])
        return self._while(ast.While(s.iter, s.body, []), state, before, head, test)


def _own(stmts: list[ast.stmt]):
    """The statements of a loop body, not those of loops nested in it."""
    for s in stmts:
        yield s
        if isinstance(s, ast.If):
            yield from _own(s.body + s.orelse)


def _assigns(stmts: list[ast.stmt], names: set[str]) -> bool:
    """Whether the statements bind one of `names`."""
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
               for n in ast.walk(ast.Module(stmts, [])))


def _at(node: ast.stmt, origin: ast.stmt) -> ast.stmt:
    """`node` at `origin`'s place (its line, for refusals)."""
    node.lineno = getattr(origin, "lineno", 0)
    node.origin = getattr(origin, "origin", None)  # type: ignore[attr-defined]
    return node
