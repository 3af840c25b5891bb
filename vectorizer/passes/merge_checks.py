"""Checks whose failures show in the result run only when some lane's result is NaN or infinite.

A straight-line function pays a comparison and an `|=` over every lane for each check; most calls
flag nothing. Where a failing lane's result is NaN or ±inf whatever its other values
(analysis/nonfinite.py), one test of the result stands for those checks, and they run, exactly as
before, only when it finds such a lane (a result that is NaN for another reason, a NaN input,
costs the checks it would have cost anyway). Before::

    flag = np.zeros(len(spot), dtype=bool)
    flag |= strike == 0
    t_1 = spot / strike
    flag |= t_1 <= 0
    flag |= t < 0
    t_2 = np.log(t_1) + (r + 0.5 * vol * vol) * t
    t_3 = vol * np.sqrt(t)
    flag |= t_3 == 0
    return (t_2 / t_3, flag)

After::

    flag = None
    t_1 = spot / strike
    t_2 = np.log(t_1) + (r + 0.5 * vol * vol) * t
    t_3 = vol * np.sqrt(t)
    result = t_2 / t_3
    if not math.isfinite(result.dot(result)):  # a lane failing a check below is NaN or ±inf
        flag = np.zeros(len(spot), dtype=bool)
        flag |= strike == 0
        flag |= t_1 <= 0
        flag |= t < 0
        flag |= t_3 == 0
    return (result, flag)

The flags are the same bits: a check moved after the result reads names bound once, so it finds
the same lanes. Only a body of one level (no branch, loop or other block), of assignments to
names, checks, and a return of one value with the flags is changed; checks it cannot follow to
the result stay where they were. NumPy backend; before vector_math, whose functions keep ±inf
and NaN as NumPy's do.
"""

from __future__ import annotations

import ast

from ..analysis.nonfinite import guarded, taint
from ..core.binding import bindings
from .base import Context

_INDENT = "    "
# The test of the result: the sum of its squares is finite only if every lane is (NaN, ±inf and
# inf - inf are not; a sum past 1e308 is inf too, and costs the checks). One BLAS dot product:
# 0.65 µs at 1e3 lanes and 7 µs at 1e5 on an AMD EPYC, where `np.isfinite(r).all()` takes
# 1.6 µs and 18 µs. `np.vdot` reads any shape (and a NumPy scalar) as flat; where the result is
# a batched number a lane, a 1-D array (`ctx.flat_result`), the method `result.dot(result)` is the
# same product without NumPy's function dispatch: 0.42 against 0.69 µs at 1e3 lanes.
_WHY = "a lane failing a check below is NaN or ±inf"


def transform(text: str, ctx: Context) -> str:
    flag = ctx.flag
    if not flag:
        return text
    lines = text.split("\n")
    plan = _plan(lines, flag)
    if plan is None:
        return text
    init, moved, ret, value = plan
    result = ctx.namer.fresh("result")
    keep_init = any(ln.startswith(f"{_INDENT}{flag} |=") for i, ln in enumerate(lines) if i not in moved)
    out: list[str] = []
    for i, ln in enumerate(lines):
        if i == init and not keep_init:
            out.append(f"{_INDENT}{flag} = None")
        elif i in moved:
            continue
        elif i == ret:
            out.append(f"{_INDENT}{result} = {value}")
            square = f"{result}.dot({result})" if ctx.flat_result else f"np.vdot({result}, {result})"
            out.append(f"{_INDENT}if not math.isfinite({square}):  # {_WHY}")
            if not keep_init:
                out.append(_INDENT + lines[init])
            out.extend(_INDENT + lines[j] for j in sorted(moved))
            out.append(f"{_INDENT}return ({result}, {flag})")
        else:
            out.append(ln)
    return "\n".join(out)


def _plan(lines: list[str], flag: str) -> tuple[int, set[int], int, str] | None:
    """(the flag's first line, the checks to move, the return's line, the returned value's text),
    or None when the body is not one level of such statements or no check reaches the result."""
    init = ret = -1
    checks: list[tuple[int, ast.expr]] = []
    body: list[tuple[int, ast.stmt]] = []
    for i, ln in enumerate(lines[1:], start=1):
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        if not ln.startswith(_INDENT) or ln.startswith(_INDENT + " "):
            return None  # another function after it (helpers), or a block: not one level
        try:
            (node,) = ast.parse(ln.strip()).body
        except (SyntaxError, ValueError):
            return None
        if init < 0:
            if not (isinstance(node, ast.Assign) and _targets(node) == [flag]):
                return None
            init = i
            continue
        if ret >= 0:
            return None  # statements after the return
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr) and _is(node.target, flag):
            checks.append((i, node.value))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            body.append((i, node))
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2 \
                and _is(node.value.elts[1], flag) and not isinstance(node.value.elts[0], ast.Tuple):
            ret = i
            body.append((i, node))
        else:
            return None
    if ret < 0 or any(_reads(node, flag) for _, node in body):
        return None
    header = ast.parse(lines[0].strip() + " pass").body[0]
    bound = {a.arg: 1 for a in header.args.args}  # type: ignore[attr-defined]  # a parameter has a value on entry
    for _, node in body:
        for name in _targets(node):
            bound[name] = bound.get(name, 0) + 1
    value = ret_node = body[-1][1].value.elts[0]  # type: ignore[union-attr]
    moved = {i for i, pred in checks if _reaches(pred, body, bound, ret_node)}
    return (init, moved, ret, ast.unparse(value)) if moved else None


def _reaches(pred: ast.expr, body: list[tuple[int, ast.stmt]], bound: dict[str, int], result: ast.expr) -> bool:
    """Every lane failing the check `pred` has a NaN or infinite result."""
    known = guarded(pred)
    if known is None:
        return False
    name, kind, mask = known
    if any(bound.get(n, 0) > 1 for n in (name, mask) if n):
        return False  # a name bound again: the test after the result may find other lanes
    tainted: dict[str, str] = {}
    for _, node in body[:-1]:
        target = _targets(node)[0]
        got = taint(node.value, tainted, name, kind)  # type: ignore[attr-defined]
        if got is None or bound.get(target, 0) > 1:
            tainted.pop(target, None)
        else:
            tainted[target] = got
    return taint(result, tainted, name, kind) is not None


def _targets(node: ast.stmt) -> list[str]:
    """The names an assignment statement binds (none for other statements)."""
    return bindings(node) if isinstance(node, ast.Assign) else []


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _reads(node: ast.AST, name: str) -> bool:
    """`node` mentions `name` anywhere but as the flag slot of the return."""
    if isinstance(node, ast.Return):
        return _reads(node.value.elts[0], name)  # type: ignore[union-attr]
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
