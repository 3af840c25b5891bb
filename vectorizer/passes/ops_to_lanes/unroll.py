"""A lane's `while` loop whose body opens with range checks runs two iterations per check.

ops_to_lanes hoists an int64 overflow test to the top of the loop body (lane.hoist_overflow_checks).
It then runs on every iteration, and costs collatz_steps 10% on one thread. When interval
arithmetic over the body shows that a narrower range at the top of an iteration keeps the
checked names within their checks' ranges at the top of the next one, that narrower check covers
both, and the second iteration runs without it. Before::

    while n != 1:
        if (n < -3074457345618258602) | (n > 3074457345618258602):
            return (0, True)
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1

After::

    while n != 1:
        # covers this iteration and the next (unrolled below)
        if (n < -1024819115205154133) | (n > 1024819115205154133):
            return (0, True)
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1
        if not n != 1:
            break
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps = steps + 1

A lane between the two ranges is flagged where it was not, and re-run by the scalar function, as
every flagged lane is: the values and exceptions do not change. Only an innermost loop of the
plain form (its test has no checks), whose checked names are ints, and only where the narrower
range keeps at least 1/64 of the old one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from ...core.lanenodes import Comment, clone, const, fail_return, fill, is_fail_return

I64 = (-(2**63), 2**63 - 1)
_STEPS = 1 << 40  # the scale of the narrower range is searched to 1/_STEPS of the old one
_MIN_SCALE = _STEPS // 64

Interval = tuple[int, int]


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _one_side(node: ast.expr) -> tuple[str, int | None, int | None] | None:
    """`name < c` or `name > c`: (name, lowest allowed, highest allowed)."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name)):
        return None
    c = _int(node.comparators[0])
    if c is None:
        return None
    op = node.ops[0]
    if isinstance(op, ast.Lt):
        return node.left.id, c, None
    if isinstance(op, ast.Gt):
        return node.left.id, None, c
    return None


def range_check(node: ast.stmt) -> list[tuple[str, int | None, int | None]] | None:
    """The sides of `if (v < L) | (v > H): return (<zeros>, True)` (or one side): None for any
    other statement."""
    if not (isinstance(node, ast.If) and not node.orelse and len(node.body) == 1 and is_fail_return(node.body[0])):
        return None
    test = node.test
    parts = [test.left, test.right] if isinstance(test, ast.BinOp) and isinstance(test.op, ast.BitOr) else [test]
    sides = [_one_side(p) for p in parts]
    return None if any(s is None for s in sides) else sides  # type: ignore[return-value]


def _hull(a: Interval | None, b: Interval | None) -> Interval | None:
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def interval(node: ast.expr, env: dict[str, Interval | None]) -> Interval | None:
    """The ints `node` can take where each name lies in its interval (None: not known)."""
    c = _int(node)
    if c is not None:
        return c, c
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        x = interval(node.operand, env)
        return None if x is None else (-x[1], -x[0])
    if isinstance(node, ast.IfExp):
        return _hull(interval(node.body, env), interval(node.orelse, env))
    if not isinstance(node, ast.BinOp):
        return None
    a, b = interval(node.left, env), interval(node.right, env)
    if a is None or b is None:
        return None
    if isinstance(node.op, ast.Add):
        return a[0] + b[0], a[1] + b[1]
    if isinstance(node.op, ast.Sub):
        return a[0] - b[1], a[1] - b[0]
    if isinstance(node.op, ast.Mult):
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    if isinstance(node.op, ast.FloorDiv) and b[0] == b[1] and b[0] != 0:
        ends = sorted((a[0] // b[0], a[1] // b[0]))  # floor division is monotone in the dividend
        return ends[0], ends[1]
    if isinstance(node.op, ast.Mod) and b[0] == b[1] and b[0] != 0:
        return (0, b[0] - 1) if b[0] > 0 else (b[0] + 1, 0)
    return None


_EXITS = (ast.Return, ast.Break, ast.Continue)


def _run(stmts: list[ast.stmt], env: dict[str, Interval | None]) -> dict[str, Interval | None] | None:
    """The intervals at the end of `stmts` on the paths that reach it (None: no path does); raises
    ValueError for a statement it does not follow."""
    for s in stmts:
        if isinstance(s, _EXITS):
            return None
        if isinstance(s, ast.Pass | ast.Expr | Comment):
            continue
        if isinstance(s, ast.Assign):
            for target in s.targets:
                if isinstance(target, ast.Name):
                    env = {**env, target.id: interval(s.value, env)}
                else:  # a tuple target: its names are not known
                    env = {**env, **{n.id: None for n in ast.walk(target) if isinstance(n, ast.Name)}}
            continue
        if isinstance(s, ast.If):
            ends = [e for e in (_run(s.body, env), _run(s.orelse, env)) if e is not None]
            if not ends:
                return None
            env = {k: ends[0][k] if len(ends) == 1 else _hull(ends[0].get(k), ends[1].get(k))
                   for k in set(ends[0]) | set(ends[-1])}
            continue
        raise ValueError(type(s).__name__)
    return env


def _scaled(bound: int | None, scale: int, side: int) -> int:
    if bound is None:
        return I64[side]
    return bound * scale // _STEPS if bound >= 0 else -((-bound) * scale // _STEPS)


def _covers(checks: dict[str, list[int | None]], body: list[ast.stmt], scale: int) -> bool:
    env: dict[str, Interval | None] = {v: (_scaled(lo, scale, 0), _scaled(hi, scale, 1)) for v, (lo, hi) in checks.items()}
    end = _run(body, env)
    if end is None:
        return True
    for v, (lo, hi) in checks.items():
        got = end.get(v)
        if got is None or (lo is not None and got[0] < lo) or (hi is not None and got[1] > hi):
            return False
    return True


def unroll_twice(body: list[ast.stmt], test: ast.expr, ints: Iterable[str]) -> list[ast.stmt] | None:
    """The statements of a `while test:` body that run two iterations under narrower checks, or
    None where the loop does not qualify."""
    n_checks = 0
    checks: dict[str, list[int | None]] = {}
    fail: ast.stmt | None = None
    first = len(body)  # the first statement after the checks (comments among them skipped)
    for at, s in enumerate(body):
        if isinstance(s, Comment):
            continue
        sides = range_check(s)
        if sides is None:
            first = at
            break
        n_checks += 1
        fail = s.body[0]  # type: ignore[attr-defined]
        for name, lo, hi in sides:
            bounds = checks.setdefault(name, [None, None])
            bounds[0] = lo if bounds[0] is None or (lo is not None and lo > bounds[0]) else bounds[0]
            bounds[1] = hi if bounds[1] is None or (hi is not None and hi < bounds[1]) else bounds[1]
    rest = [s for s in body[first:] if not isinstance(s, Comment)]
    around_zero = all((lo is None or lo <= 0) and (hi is None or hi >= 0) for lo, hi in checks.values())
    if not rest or not around_zero or not checks or not set(checks) <= set(ints) or any(isinstance(n, ast.While | ast.For) for s in rest for n in ast.walk(s)):
        return None
    try:
        if _covers(checks, rest, _STEPS) or not _covers(checks, rest, _MIN_SCALE):
            return None  # the old check covers two iterations already, or no useful range does
    except ValueError:
        return None
    low, high = _MIN_SCALE, _STEPS  # low covers, high does not: find the largest scale that does
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if _covers(checks, rest, mid) else (low, mid)
    assert isinstance(fail, ast.Return) and isinstance(fail.value, ast.Tuple)
    value = fail.value.elts[0]
    zeros, many = (value.elts, True) if isinstance(value, ast.Tuple) else ([value], False)
    narrowed: list[ast.stmt] = [Comment(text="# covers this iteration and the next (unrolled below)")]
    for name, (lo, hi) in checks.items():
        sides = [fill("{0} < {1}", ast.Name(id=name, ctx=ast.Load()), const(_scaled(lo, low, 0))) if lo is not None else None,
                 fill("{0} > {1}", ast.Name(id=name, ctx=ast.Load()), const(_scaled(hi, low, 1))) if hi is not None else None]
        tests = [t for t in sides if t is not None]
        either = tests[0] if len(tests) == 1 else ast.BinOp(left=tests[0], op=ast.BitOr(), right=tests[1])
        narrowed.append(ast.If(test=either, body=[fail_return(clone(zeros), many)], orelse=[]))
    comments = [s for s in body[:first] if isinstance(s, Comment)]
    after = body[first:]
    stop = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=clone(test)), body=[ast.Break()], orelse=[])
    return comments + narrowed + after + [stop] + clone(comments) + clone(after)
