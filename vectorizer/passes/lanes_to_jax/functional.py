"""Phase two of `lanes_to_jax`: `if` and `while` of one lane function (after structure.py) as JAX
code a `jax.vmap` can batch: both sides of an `if` run and merge lane by lane, a `while` is a
`lax.while_loop` over the names it carries.

Before (structure.py's output)::

    while _vz.range_live(_k, _stop, _step) [and not _done]:
        i = _k
        _k = _k + _step
        if x > 10.0:
            x = x * 0.5
        s = s + x

After::

    _live_1 = _vz.and_(_vz.range_live(_k, _stop, _step), _vz.not_(_done))
    def _body_1(_carry):
        x, s, _k, _live_1 = _carry
        i = _k
        _k = _k + _step
        _if_1, _failed_1, _done_1 = _vz.decide(x > 10.0, _failed, _done)   # unsure: flag the lane
        x_1 = x * 0.5
        x = _vz.select(_if_1, x_1, x)
        s = s + x
        _live_1 = _vz.and_(_vz.range_live(_k, _stop, _step), _vz.not_(_done))
        return (x, s, _k, _live_1)
    x, s, _k, _live_1 = _vz.while_loop(_body_1, (x, s, _k, _live_1))

Inside an `if`'s side a name is bound to a fresh name (`x_1`), so that the other side still reads
the value before the `if`; after it, `_vz.select` merges the names read later. A loop carries the
names its body binds that are read after it or before being bound in it; the loop's test, decided
at the end of each iteration, is the carry's last item. A loop inside an `if` or another loop
starts only on the lanes of its path (a loop run on a lane that does not reach it could spin);
a callee's lane function takes that path as its first argument, for the same reason.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from ...analysis.names import Namer
from ...core.lanenodes import Comment, assign, clone, dotted, function, name
from .exprs import Expressions, Refusal
from .structure import VZ, State, call


@dataclass
class Scope:
    env: dict[str, str]  # source name -> the name that holds its value here
    branch: bool = False  # inside an if's side: bindings get fresh names
    path: list[ast.expr] = field(default_factory=list)  # what holds on this path (bools)

    def child(self, test: ast.expr) -> Scope:
        return Scope(dict(self.env), True, [*self.path, test])


class Functional:
    def __init__(self, namer: Namer, state: State, callees: frozenset[str], locate: Callable[[ast.stmt, Refusal], Exception]) -> None:
        self.namer = namer
        self.state = state
        self.callees = callees
        self.locate = locate  # a Refusal at a statement -> the user's error
        self.out: list[ast.stmt] = []  # the block being written

    # -- helpers ---------------------------------------------------------------------------------
    def expr(self, node: ast.expr, scope: Scope) -> ast.expr:
        def path() -> ast.expr:
            return call("active", name(scope.env[self.state.done]), *scope.path)

        def name_of(name_: str) -> str:
            return scope.env.get(name_, name_)

        return Expressions(name_of, self.callees, path).convert(node)

    def bind(self, name_: str, scope: Scope) -> str:
        new = self.namer.fresh(name_) if scope.branch else name_
        scope.env[name_] = new
        return new

    def emit(self, targets: list[str], value: ast.expr, unpack: bool = False) -> None:
        """`a, b = value` (`a, = value` with `unpack`)."""
        self.out.append(assign(targets if unpack or len(targets) != 1 else targets[0], value))

    # -- statements ------------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt], scope: Scope, later: frozenset[str]) -> None:
        """`later`: the names live after the block (read before they are bound again)."""
        # failed and done are also read where no name says so (a callee's path, `_vz.active`)
        afters = live_afters(stmts, later | {self.state.failed, self.state.done})
        for s, after in zip(stmts, afters):
            self.out += [Comment(text=c) for c in getattr(s, "comments", [])]
            try:
                self.statement(s, scope, after)
            except Refusal as refusal:
                raise self.locate(s, refusal) from None

    def statement(self, s: ast.stmt, scope: Scope, later: frozenset[str]) -> None:
        if isinstance(s, ast.Assign):
            self.assign(s, scope)
        elif isinstance(s, ast.If):
            self.if_(s, scope, later)
        elif isinstance(s, ast.While):
            self.while_(s, scope, later)
        elif isinstance(s, ast.Return):
            self.out.append(ast.Return(value=self.expr(s.value, scope)))  # type: ignore[arg-type]
        elif isinstance(s, ast.Expr):
            self.emit([self.namer.fresh("_unused")], self.expr(s.value, scope))
        elif not isinstance(s, ast.Pass):
            raise Refusal(f"the statement {ast.unparse(s).splitlines()[0]!r}")

    def assign(self, s: ast.Assign, scope: Scope) -> None:
        if len(s.targets) != 1:
            raise Refusal("a chained assignment")
        target = s.targets[0]
        names = [target.id] if isinstance(target, ast.Name) else \
            [e.id for e in target.elts] if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts) else None
        if names is None:
            raise Refusal(f"the assignment to {ast.unparse(target)!r}")
        value = self.expr(s.value, scope)
        if _constant(s.value):  # a device value, so that arithmetic on it is XLA's (no Python error at trace)
            value = call("exact", value)
        bound = [self.bind(n, scope) for n in names]
        self.emit(bound, value, unpack=isinstance(target, ast.Tuple))

    def decide(self, test: ast.expr, scope: Scope) -> str:
        """Emit the decision of a user test; the name holding its truth."""
        fresh = self.namer.fresh("_if")
        st = self.state
        value = self.expr(test, scope)
        failed, done = scope.env[st.failed], scope.env[st.done]
        targets = [fresh, self.bind(st.failed, scope), self.bind(st.done, scope)]
        scope.env[fresh] = fresh
        self.emit(targets, call("decide", value, name(failed), name(done)))
        return fresh

    def if_(self, s: ast.If, scope: Scope, later: frozenset[str]) -> None:
        if getattr(s, "internal", False):
            test = self.namer.fresh("_if")
            self.emit([test], self.expr(s.test, scope))
            scope.env[test] = test
        else:
            test = self.decide(s.test, scope)
        then, other = scope.child(name(test)), scope.child(call("not_", name(test)))
        self.block(s.body, then, later)
        self.block(s.orelse, other, later)
        for n in _order(then.env, other.env):
            t, e = then.env.get(n), other.env.get(n)
            if n not in later or (t == e == scope.env.get(n)):
                continue
            merged = self.bind(n, scope)
            self.emit([merged], call("select", name(test), _value(t), _value(e)))

    def live(self, s: ast.While, scope: Scope, outer: bool) -> ast.expr:
        """The loop's test as it is decided: the user's (or an exact one), its conjuncts, and at
        the loop's start the path it runs on."""
        test = self.expr(s.test, scope) if getattr(s, "exact_test", False) else name(self.decide(s.test, scope))
        parts = [test] + [self.expr(c, scope) for c in getattr(s, "conjuncts", [])]
        if outer:
            parts += [clone(p) for p in scope.path]
        out = parts[-1]
        for p in reversed(parts[:-1]):
            out = call("and_", p, out)
        return out

    def while_(self, s: ast.While, scope: Scope, later: frozenset[str]) -> None:
        st = self.state
        live = self.namer.fresh("_live")
        head = live_before([s], later)  # live where each iteration's test is decided
        bound = bindings(s.body) | {st.failed, st.done}
        carry = [n for n in _order_set(s.body, bound) if n in head and n not in (st.failed, st.done)]
        carry += [st.failed, st.done]  # the runtime reads (failed, done, live) at the carry's end
        self.emit([live], self.live(s, scope, outer=True))
        body_name = self.namer.fresh("_body")
        outside, self.out = self.out, []
        self.emit([*carry, live], name("_carry"))
        inner = Scope({**scope.env, **{n: n for n in carry}, live: live}, False, [name(live)])
        self.block(s.body, inner, head)
        self.emit([live], self.live(s, inner, outer=False))
        self.out.append(ast.Return(value=_tuple([_value(inner.env.get(n)) for n in carry] + [name(inner.env[live])])))
        body, self.out = self.out, outside
        self.out.append(function(body_name, ["_carry"], body))
        init = [_value(scope.env.get(n)) for n in carry]
        results = [self.bind(n, scope) for n in carry]
        loop = call("while_loop", name(body_name), _tuple([*init, name(live)]))
        if getattr(s, "uniform", False):  # a range over uniform bounds: its trip count is every lane's
            loop.keywords.append(ast.keyword("uniform", ast.Constant(True)))
        self.emit([*results, live], loop)


def _value(bound: str | None) -> ast.expr:
    """A name's value, or `_vz.UNDEF` where it has none (a side that does not bind it)."""
    return name(bound) if bound is not None else dotted(f"{VZ}.UNDEF")


def _tuple(items: list[ast.expr]) -> ast.Tuple:
    return ast.Tuple(elts=items, ctx=ast.Load())


# -- names ---------------------------------------------------------------------------------------
def _constant(node: ast.expr) -> bool:
    """An expression of literals only (`0.0`, `-1`, `True`)."""
    return all(isinstance(n, ast.Constant | ast.UnaryOp | ast.BinOp | ast.unaryop | ast.operator | ast.Tuple | ast.Load)
               for n in ast.walk(node)) and not isinstance(node, ast.Tuple)


def reads(stmts: list[ast.stmt] | list[ast.AST]) -> frozenset[str]:
    """Every name the statements read (loop tests and conjuncts included)."""
    out: set[str] = set()
    for s in stmts:
        for node in _nodes(s):
            if isinstance(node, ast.Name) and not isinstance(getattr(node, "ctx", None), ast.Store) and not getattr(node, "target", False):
                out.add(node.id)
    return frozenset(out)


def _nodes(s: ast.AST):
    """The nodes of s that are read: assignment targets left out, a loop's conjuncts in."""
    if isinstance(s, ast.Assign):
        yield from ast.walk(s.value)
        for t in s.targets:
            if not isinstance(t, ast.Name | ast.Tuple):
                yield from ast.walk(t)
        return
    if isinstance(s, ast.While):
        yield from ast.walk(s.test)
        for c in getattr(s, "conjuncts", []):
            yield from ast.walk(c)
        for b in s.body:
            yield from _nodes(b)
        return
    if isinstance(s, ast.If):
        yield from ast.walk(s.test)
        for b in s.body + s.orelse:
            yield from _nodes(b)
        return
    yield from ast.walk(s)


def bindings(stmts: list[ast.stmt]) -> set[str]:
    """Every name the statements bind (nested blocks included)."""
    out: set[str] = set()
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    out |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return out


def live_before(stmts: list[ast.stmt], after: frozenset[str]) -> frozenset[str]:
    """The names live before the statements (read before they are bound, on some path), given
    those live after them: backward dataflow over assignments, `if` sides and loops."""
    live = set(after)
    for s in reversed(stmts):
        live = _live_before_one(s, live)
    return frozenset(live)


def live_afters(stmts: list[ast.stmt], after: frozenset[str]) -> list[frozenset[str]]:
    """The names live after each statement (the last one's: `after`)."""
    out = [frozenset(after)]
    for s in reversed(stmts[1:]):
        out.append(frozenset(_live_before_one(s, set(out[-1]))))
    return out[::-1]


def _live_before_one(s: ast.stmt, live: set[str]) -> set[str]:
    if isinstance(s, ast.Assign):
        return (live - bindings([s])) | reads([s])
    if isinstance(s, ast.If):
        return set(reads([ast.Expr(s.test)])) | live_before(s.body, frozenset(live)) | live_before(s.orelse, frozenset(live))
    if isinstance(s, ast.While):  # it may run no iteration; an iteration reads what is live at its head
        head = set(live) | reads([ast.Expr(s.test), *(ast.Expr(c) for c in getattr(s, "conjuncts", []))])
        while True:
            grown = head | live_before(s.body, frozenset(head))
            if grown == head:
                return head
            head = grown
    return live | reads([s])


def _order(*envs: dict[str, str]) -> list[str]:
    seen: dict[str, None] = {}
    for env in envs:
        for n in env:
            seen.setdefault(n, None)
    return list(seen)


def _order_set(stmts: list[ast.stmt], names: set[str]) -> list[str]:
    """`names` in the order the statements first bind them (deterministic output)."""
    order: dict[str, None] = {}
    for s in stmts:
        for node in ast.walk(s):
            if isinstance(node, ast.Name) and node.id in names:
                order.setdefault(node.id, None)
    for n in sorted(names):
        order.setdefault(n, None)
    return list(order)
