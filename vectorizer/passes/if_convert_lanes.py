"""If-conversion of branchy lane functions (Numba backend): every side of each `if` is computed
and `select`s keep each lane's own, so that LLVM can run the driver's loop over lanes in SIMD
registers (it does not if-convert a lane function's early returns itself: quadratic_root's lane
kernel stays one lane at a time, 8.3 ns a lane on one thread, 3.2 once converted, at 1e6).

Before::

    def _lane_f(a, b):
        if a == 0.0:
            if b == 0:
                return (0.0, True)
            return (-1.0 / b, False)
        d = b * b - a
        if d < 0.0:
            return (math.nan, False)
        return (math.sqrt(d) / a, False)

After::

    def _lane_f(a, b):
        _ic = a == 0.0
        _ic_1 = b == 0
        _rv = -1.0 / b
        d = b * b - a
        _ic_2 = d < 0.0
        _rv_1 = math.sqrt(d) / a
        return ((0.0 if _ic_1 else _rv) if _ic else (math.nan if _ic_2 else _rv_1),
                (True if _ic_1 else False) if _ic else (False if _ic_2 else False))

Each lane's value is the one its own path computes, with the same operations on the same
operands in the same order: only operations that cannot trap, raise or touch memory are run on
every lane (float and int `+ - * /`, comparisons, `not`, bit operations, `abs`, `min`, `max`,
`math.sqrt`, `fabs`, `copysign`, `isnan`/`isinf`/`isfinite`, conditional expressions, and calls
of lane functions that are straight-line code of these), and Numba's numpy error model makes
`x / 0` inf or nan there instead of an exception; an int operation that overflows on a lane
that does not take its side wraps (LLVM's `add`/`mul` without `nsw`), and its value is never
selected. A function with anything else (a loop, a call of the C library, an index, `//`, `%`,
`**`) is left as it is: LLVM would call the C library one lane at a time, so every side would
cost its full price. So is one whose sides hold more than `_WORK_RATIO` times the work of its
longest path. Where a side returns on some of its paths only (a check inside a branch), the
statements after the `if` are copied to the end of each side that falls through, within a
budget of twice the function's size (each such `if` can double what follows it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..core.lanenodes import Comment, assign, clone, name
from .base import Context
from .ops_to_lanes import LaneKernels

_SAFE_CALLS = frozenset({"abs", "min", "max", "float", "bool", "math.sqrt", "math.fabs", "math.copysign",
                         "math.isnan", "math.isinf", "math.isfinite"})
_SAFE_ATTRIBUTES = frozenset({"math.nan", "math.inf", "math.pi", "math.e", "math.tau", "np.nan", "np.inf"})
_SAFE_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.BitAnd, ast.BitOr, ast.BitXor)
_SAFE_COMPARES = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_WORK_RATIO = 3  # convert only where all sides together are at most this many times the longest path


class _NotConvertible(Exception):
    """The function keeps its branches."""


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def speculatable(node: ast.expr, callees: frozenset[str] = frozenset()) -> bool:
    """Whether evaluating the expression on a lane that does not take its side is harmless;
    `callees`: lane functions that are (straight-line code of such expressions)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if n.keywords or _dotted(n.func) not in _SAFE_CALLS | callees:
                return False
        elif isinstance(n, ast.Attribute):
            if _dotted(n) not in _SAFE_ATTRIBUTES | _SAFE_CALLS:
                return False
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, _SAFE_BINOPS):
                return False
        elif isinstance(n, ast.Compare):
            if not all(isinstance(op, _SAFE_COMPARES) for op in n.ops):
                return False
        elif not isinstance(n, ast.Name | ast.Constant | ast.Tuple | ast.IfExp | ast.BoolOp | ast.UnaryOp
                            | ast.expr_context | ast.boolop | ast.unaryop | ast.operator | ast.cmpop):
            return False  # an index, a lambda, a comprehension...
    return True


def _work(node: ast.AST) -> int:
    return sum(isinstance(n, ast.BinOp | ast.Call | ast.Compare | ast.UnaryOp | ast.BoolOp | ast.IfExp)
               for n in ast.walk(node))


def _returns(block: list[ast.stmt]) -> str:
    """"always" (every path ends in a return), "never", or "some"."""
    some = False
    for s in block:
        if isinstance(s, ast.Return):
            return "always"
        if isinstance(s, ast.If):
            sides = {_returns(s.body), _returns(s.orelse)}
            if sides == {"always"}:
                return "always"
            some = some or sides != {"never"}
    return "some" if some else "never"


def _longest(block: list[ast.stmt]) -> int:
    """The work of the costliest path through a block."""
    total = 0
    for i, s in enumerate(block):
        if isinstance(s, ast.If):
            rest = _longest(block[i + 1:])
            sides = (_longest(side) + (0 if _returns(side) == "always" else rest) for side in (s.body, s.orelse))
            return total + _work(s.test) + max(sides)
        if not isinstance(s, Comment):
            total += _work(s)
        if isinstance(s, ast.Return):
            break
    return total


def _push_rest(block: list[ast.stmt], budget: list[int]) -> list[ast.stmt]:
    """The block with each `if` one of whose sides returns on some paths only followed by nothing:
    the statements after it are copied to the end of each side that can fall through, so that
    every `if` either returns on all paths of a side or on none (a check inside a branch). The
    copies may take `budget[0]` nodes at most (each `if` so treated can double what follows it)."""
    out: list[ast.stmt] = []
    for i, s in enumerate(block):
        if not isinstance(s, ast.If):
            out.append(s)
            continue
        sides = (s.body, s.orelse)
        if "some" in (_returns(s.body), _returns(s.orelse)):
            rest = block[i + 1:]
            budget[0] -= _size(rest) * sum(_returns(side) != "always" for side in sides)
            if budget[0] < 0:
                raise _NotConvertible
            sides = tuple(side if _returns(side) == "always" else side + [clone(r) for r in rest] for side in sides)
            out.append(ast.If(test=s.test, body=_push_rest(sides[0], budget), orelse=_push_rest(sides[1], budget)))
            return out
        out.append(ast.If(test=s.test, body=_push_rest(s.body, budget), orelse=_push_rest(s.orelse, budget)))
    return out


def _size(block: list[ast.stmt]) -> int:
    return sum(1 for s in block for _ in ast.walk(s))


@dataclass
class _Converter:
    taken: set[str]  # every name of the function: fresh names avoid them
    bound: set[str]  # the names the straight-line code binds (the parameters first)
    callees: frozenset[str]  # the lane functions it may call on every lane
    out: list[ast.stmt] = field(default_factory=list)

    def fresh(self, stem: str) -> str:
        k, candidate = 0, stem
        while candidate in self.taken:
            k += 1
            candidate = f"{stem}_{k}"
        self.taken.add(candidate)
        return candidate

    def rename(self, node: ast.expr, env: dict[str, str]) -> ast.expr:
        if not speculatable(node, self.callees):
            raise _NotConvertible
        return _Renamer(env).visit(clone(node))

    def bind(self, target: str, value: ast.expr, env: dict[str, str]) -> None:
        new = self.fresh(target) if target in self.bound else target  # each name bound once
        self.bound.add(new)
        self.out.append(assign(new, value))
        env[target] = new

    def block(self, stmts: list[ast.stmt], env: dict[str, str]) -> list[ast.expr] | None:
        """Emit a block's statements as straight-line code; the elements of the value it returns
        (a select over its paths), or None where it falls through (its bindings are in `env`)."""
        for i, s in enumerate(stmts):
            if isinstance(s, Comment):
                self.out.append(Comment(text=s.text))
            elif isinstance(s, ast.Pass):
                continue
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                self.bind(s.targets[0].id, self.rename(s.value, env), env)
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) \
                    and all(isinstance(e, ast.Name) for e in s.targets[0].elts):  # a callee's (value, flag)
                value = self.rename(s.value, env)
                names = [self.fresh(e.id) if e.id in self.bound else e.id for e in s.targets[0].elts]  # type: ignore[attr-defined]
                self.bound.update(names)
                self.out.append(assign(names, value))
                env.update({e.id: n for e, n in zip(s.targets[0].elts, names)})  # type: ignore[attr-defined]
            elif isinstance(s, ast.Return) and s.value is not None:
                elts = s.value.elts if isinstance(s.value, ast.Tuple) else [s.value]
                return [self.leaf(e, env) for e in elts]
            elif isinstance(s, ast.If):
                value = self.if_(s, stmts[i + 1:], env)
                if value is not None:
                    return value
            else:
                raise _NotConvertible
        return None

    def leaf(self, node: ast.expr, env: dict[str, str]) -> ast.expr:
        """A returned element as a name or a literal (the selects' arms stay cheap for LLVM)."""
        value = self.rename(node, env)
        if isinstance(value, ast.Name | ast.Constant) or _dotted(value) in _SAFE_ATTRIBUTES:
            return value
        if isinstance(value, ast.Tuple):  # a tuple result: its elements, each a name
            return ast.Tuple(elts=[self.leaf(e, {}) for e in value.elts], ctx=ast.Load())
        fresh = self.fresh("_rv")
        self.out.append(assign(fresh, value))
        return name(fresh)

    def if_(self, s: ast.If, rest: list[ast.stmt], env: dict[str, str]) -> list[ast.expr] | None:
        test = self.fresh("_ic")
        self.out.append(assign(test, self.rename(s.test, env)))
        then_env, else_env = dict(env), dict(env)
        kinds = (_returns(s.body), _returns(s.orelse))
        if "some" in kinds:
            raise _NotConvertible
        then = self.block(s.body, then_env)
        other = self.block(s.orelse, else_env)
        if then is None and other is None:  # no return: each name either side binds, merged
            for n in dict.fromkeys([*then_env, *else_env]):
                t, e = then_env.get(n), else_env.get(n)
                if t != e:
                    merged = self.fresh(n)
                    self.out.append(assign(merged, _select(test, name(t or e), name(e or t))))  # type: ignore[arg-type]
                    env[n] = merged
            return None
        if then is None:
            then = self.block(rest, then_env)
        elif other is None:
            other = self.block(rest, else_env)
        if then is None or other is None or len(then) != len(other):
            raise _NotConvertible
        return [_select(test, a, b) for a, b in zip(then, other)]


def _select(test: str, a: ast.expr, b: ast.expr) -> ast.expr:
    if isinstance(a, ast.Tuple) and isinstance(b, ast.Tuple) and len(a.elts) == len(b.elts):
        return ast.Tuple(elts=[_select(test, x, y) for x, y in zip(a.elts, b.elts)], ctx=ast.Load())
    if ast.dump(a) == ast.dump(b):
        return a
    return ast.IfExp(test=name(test), body=a, orelse=b)


class _Renamer(ast.NodeTransformer):
    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return name(self.env.get(node.id, node.id))


def straight(func: ast.FunctionDef, callees: frozenset[str]) -> bool:
    """Whether a lane function is straight-line code that every lane may run (no `if`, loop or
    unsafe operation): a caller may call it on every lane."""
    for s in func.body:
        if isinstance(s, ast.Assign | ast.Return) and s.value is not None and speculatable(s.value, callees):
            continue
        if not isinstance(s, Comment | ast.Pass):
            return False
    return True


def convert(func: ast.FunctionDef, callees: frozenset[str] = frozenset()) -> ast.FunctionDef | None:
    """The function in select form, or None where it keeps its branches; `callees`: the lane
    functions it may call on every lane."""
    if not any(isinstance(s, ast.If) for s in func.body) or any(isinstance(n, ast.While | ast.For) for n in ast.walk(func)):
        return None
    taken = {n.id for n in ast.walk(func) if isinstance(n, ast.Name)} | {a.arg for a in func.args.args}
    converter = _Converter(taken, {a.arg for a in func.args.args}, callees)
    env = {a.arg: a.arg for a in func.args.args}
    try:  # the copies of what follows a check inside a side: at most twice the function
        body = _push_rest(func.body, [2 * _size(func.body)])
        value = converter.block(body, env)
    except _NotConvertible:
        return None
    if value is None:
        return None
    if sum(_work(s) for s in converter.out) > _WORK_RATIO * _longest(body) + 4:
        return None
    single = not (any(isinstance(s.value, ast.Tuple) for s in ast.walk(func) if isinstance(s, ast.Return)))
    result = value[0] if single else ast.Tuple(elts=value, ctx=ast.Load())
    body = [*converter.out, ast.Return(value=result)]
    return ast.FunctionDef(name=func.name, args=func.args, body=body, decorator_list=[], returns=None,
                           type_comment=None, lineno=0)


def transform(kernels: LaneKernels, ctx: Context) -> LaneKernels:
    callees: frozenset[str] = frozenset()
    for i, func in enumerate(kernels.functions):  # callees first: a converted one may be called on every lane
        converted = convert(func, callees)
        if converted is not None:
            kernels.functions[i] = func = converted
        if straight(func, callees):
            callees |= {func.name}
    return kernels
