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
    if not math.isfinite(result.sum()):  # a lane failing a check below is NaN or ±inf
        flag = np.zeros(len(spot), dtype=bool)
        flag |= strike == 0
        flag |= t_1 <= 0
        flag |= t < 0
        flag |= t_3 == 0
    return (result, flag)

The flags are the same bits: a check moved after the result reads names bound once, so it finds
the same lanes. Only a body of one level (no branch, loop or other block), of assignments to
names, checks, and a return of one value with the flags is changed; checks it cannot follow to
the result stay where they were. NumPy backend, a tree transform of the array code
(core/pyast.py); before vector_math, whose functions keep ±inf and NaN as NumPy's do.
"""

from __future__ import annotations

import ast

from ..analysis.nonfinite import guarded, taint
from ..core import pyast
from ..core.binding import bindings
from ..core.pyast import ArrayCode, Comment
from .base import Context

# The test of the result: its sum is finite only if every lane is (a NaN or ±inf lane makes every
# partial sum it enters NaN or ±inf, and no later addition makes one finite again; a sum past
# 1e308 is inf too, and costs the checks). NumPy's own sum, never the BLAS dot product, which was
# faster on an idle machine (11 against 27 µs at 1e5 lanes) but spins a thread per core: with
# every core busy (a loaded machine, Dask's workers) one dot of 1e5 lanes took 11 ms. `np.sum`
# reads a NumPy scalar too; where the result is a batched number a lane, a 1-D array
# (`ctx.flat_result`), the method `result.sum()` is the same sum without the function's dispatch.
_WHY = "a lane failing a check below is NaN or ±inf"


def transform(code: ArrayCode, ctx: Context) -> ArrayCode:
    flag = ctx.flag
    if not flag:
        return code
    plan = _plan(code.func, flag)
    if plan is None:
        return code
    init, moved, ret, value = plan
    result = ctx.namer.fresh("result")
    keep_init = any(_is_check(s, flag) and id(s) not in moved for s in code.func.body)
    out: list[ast.stmt] = []
    for s in code.func.body:
        if s is init and not keep_init:
            out.append(pyast.assign(flag, ast.Constant(None)))
        elif id(s) in moved:
            continue
        elif s is ret:
            out.append(pyast.assign(result, value))
            total = pyast.call(f"{result}.sum") if ctx.flat_result else pyast.call("np.sum", pyast.name(result))
            test = ast.UnaryOp(op=ast.Not(), operand=pyast.call("math.isfinite", total))
            checks = [t for t in code.func.body if id(t) in moved]
            merged = ast.If(test=test, body=([] if keep_init else [init]) + checks, orelse=[])
            merged.comment = f"# {_WHY}"  # type: ignore[attr-defined]  # printed after the header
            out.append(merged)
            out.append(ast.Return(value=ast.Tuple(elts=[pyast.name(result), pyast.name(flag)], ctx=ast.Load())))
        else:
            out.append(s)
    code.func.body[:] = out
    return code


def _is_check(node: ast.stmt, flag: str) -> bool:
    """`flag |= ...`."""
    return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.BitOr) and _is(node.target, flag)


def _plan(func: ast.FunctionDef, flag: str) -> tuple[ast.stmt, set[int], ast.stmt, ast.expr] | None:
    """(the flag's first statement, the ids of the checks to move, the return, the returned
    value), or None when the body is not one level of such statements or no check reaches the
    result."""
    init: ast.stmt | None = None
    ret: ast.Return | None = None
    checks: list[tuple[ast.stmt, ast.expr]] = []
    body: list[ast.stmt] = []
    for node in func.body:
        if isinstance(node, Comment):
            continue
        if init is None:
            if not (isinstance(node, ast.Assign) and _targets(node) == [flag]):
                return None
            init = node
            continue
        if ret is not None:
            return None  # statements after the return
        if _is_check(node, flag):
            checks.append((node, node.value))  # type: ignore[attr-defined]
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            body.append(node)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2 \
                and _is(node.value.elts[1], flag) and not isinstance(node.value.elts[0], ast.Tuple):
            ret = node
            body.append(node)
        else:
            return None  # a block (not one level), or another statement
    if init is None or ret is None or any(_reads(node, flag) for node in body):
        return None
    bound = {a.arg: 1 for a in func.args.args}  # a parameter has a value on entry
    for node in body:
        for name in _targets(node):
            bound[name] = bound.get(name, 0) + 1
    value = ret.value.elts[0]  # type: ignore[union-attr]
    moved = {id(s) for s, pred in checks if _reaches(pred, body, bound, value)}
    return (init, moved, ret, value) if moved else None


def _reaches(pred: ast.expr, body: list[ast.stmt], bound: dict[str, int], result: ast.expr) -> bool:
    """Every lane failing the check `pred` has a NaN or infinite result."""
    known = guarded(pred)
    if known is None:
        return False
    name, kind, mask = known
    if any(bound.get(n, 0) > 1 for n in (name, mask) if n):
        return False  # a name bound again: the test after the result may find other lanes
    tainted: dict[str, str] = {}
    for node in body[:-1]:
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
