"""Shrink a disagreement: fewer lanes, simpler arguments, then a smaller program, keeping the
failure's class on the same backend (greedy, one change at a time, to a fixpoint or a time bound).

The program is reduced over its `ast`: statements deleted (in `f`, in helpers, at module level),
compound statements replaced by one of their blocks, expressions replaced by one of their operands
or a small constant. A candidate counts only if its loop raises nothing the grammar never raises
(NameError, UnboundLocalError, TypeError...): a reduction must not turn the program into another.
"""

from __future__ import annotations

import ast
import copy
import time
from collections.abc import Callable, Iterator

import numpy as np

from .check import Outcome, check, load, prepare, run_loop

INVALID = (NameError, TypeError, AttributeError, RecursionError, KeyError, SyntaxError)


def same_failure(outcome: Outcome, kind: str) -> bool:
    return outcome.status == "fail" and outcome.kind == kind


def _valid(source: str, args: list) -> bool:
    try:
        module = load(source, "cand")
        prepare(module, 0)
        _, outcomes = run_loop(module.f, args)
    except Exception:  # noqa: BLE001 - a candidate that does not even import or run is not one
        return False
    return not any(kind == "raise" and isinstance(v, INVALID) for kind, v in outcomes)


def reduce(source: str, args: list, backend: str, kind: str, seconds: float = 180.0) -> tuple[str, list]:
    deadline = time.monotonic() + seconds

    def fails(src: str, a: list) -> bool:
        if time.monotonic() > deadline or not _valid(src, a):
            return False
        try:
            return same_failure(check(src, a, backend), kind)
        except Exception:  # noqa: BLE001 - a candidate the checker cannot run is not kept
            return False

    args = _reduce_args(source, args, fails)
    tried: set[str] = set()  # candidates that did not fail the same way (each is checked once)
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in _candidates(source):
            if time.monotonic() > deadline:
                break
            if candidate in tried or len(candidate) >= len(source):
                continue
            tried.add(candidate)
            if fails(candidate, args):
                source, progress = candidate, True
                break
    source, args = _drop_unused_parameters(source, args, fails)
    return source, _reduce_args(source, args, fails)


def _drop_unused_parameters(source: str, args: list, fails: Callable[[str, list], bool]) -> tuple[str, list]:
    """`f`'s parameters its body no longer reads leave the program with their arguments."""
    tree = ast.parse(source)
    f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    read = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
    for i in reversed(range(len(f.args.args))):
        if f.args.args[i].arg in read or len(f.args.args) == 1:
            continue
        del f.args.args[i]
        candidate_source, candidate_args = _text(tree), args[:i] + args[i + 1:]
        if fails(candidate_source, candidate_args):
            source, args = candidate_source, candidate_args
        else:
            tree = ast.parse(source)
            f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
    return source, args


# -- arguments ------------------------------------------------------------------------------------
def _lane_count(args: list) -> int:
    return max((a.size for a in args if isinstance(a, np.ndarray) and a.ndim), default=0)


def _reduce_args(source: str, args: list, fails: Callable[[str, list], bool]) -> list:
    shapes = {a.shape for a in args if isinstance(a, np.ndarray) and a.ndim}
    if len(shapes) == 1 and len(next(iter(shapes))) > 1:  # 2-d: try the flattened batch
        flat = [a.ravel() if isinstance(a, np.ndarray) and a.ndim else a for a in args]
        if fails(source, flat):
            args = flat
    while _lane_count(args) > 1 and len({a.shape for a in args if isinstance(a, np.ndarray) and a.ndim}) == 1:
        n = _lane_count(args)
        for keep in _lane_subsets(n):
            candidate = [a[keep] if isinstance(a, np.ndarray) and a.ndim == 1 else a for a in args]
            if fails(source, candidate):
                args = candidate
                break
        else:
            break
    for i, a in enumerate(args):  # a batched argument whose lanes are all one value: a scalar
        if isinstance(a, np.ndarray) and a.size >= 1 and a.ndim and len(set(map(repr, a.ravel().tolist()))) == 1:
            candidate = [*args[:i], a.ravel()[0].item(), *args[i + 1:]]
            if fails(source, candidate):
                args = candidate
    return args


def _lane_subsets(n: int) -> Iterator[list[int]]:
    for i in range(n):
        yield [i]
    half = n // 2
    yield list(range(half))
    yield list(range(half, n))
    for i in range(n):
        yield [j for j in range(n) if j != i]


# -- the program ----------------------------------------------------------------------------------
def _candidates(source: str) -> Iterator[str]:
    """Smaller programs, biggest cuts first."""
    tree = ast.parse(source)
    for body_path in _bodies(tree):
        body = _get(tree, body_path)
        for i in range(len(body)):
            if _protected(body[i]):
                continue
            new = copy.deepcopy(tree)
            block = _get(new, body_path)
            del block[i]
            if not block:
                block.append(ast.Pass())
            yield _text(new)
            if isinstance(body[i], ast.If | ast.For | ast.While | ast.Try):
                for field in ("body", "orelse") + (("handlers",) if isinstance(body[i], ast.Try) else ()):
                    for inner in _blocks_of(body[i], field):
                        new = copy.deepcopy(tree)
                        block = _get(new, body_path)
                        block[i:i + 1] = copy.deepcopy(inner) or [ast.Pass()]
                        yield _text(new)
    for node_path in _expressions(tree):
        node = _get(tree, node_path)
        for replacement in _simpler(node):
            new = copy.deepcopy(tree)
            _set(new, node_path, replacement)
            yield _text(new)


def _protected(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.FunctionDef) and stmt.name in ("f", "_reset", "_mutate") or isinstance(
        stmt, ast.Import | ast.Global)


def _blocks_of(stmt: ast.stmt, field: str) -> list[list[ast.stmt]]:
    if field == "handlers":
        return [h.body for h in stmt.handlers]
    return [getattr(stmt, field)] if getattr(stmt, field) else []


def _text(tree: ast.Module) -> str:
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _bodies(tree: ast.AST) -> list[tuple]:
    """Paths (tuples of field names and indices) of every statement list."""
    out = []

    def walk(node: ast.AST, path: tuple) -> None:
        if isinstance(node, ast.FunctionDef) and node.name in ("_reset", "_mutate"):
            return  # the experiment: the state each run starts from stays as it was
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                out.append(path + (field,))
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        walk(item, path + (field, i))
            elif isinstance(value, ast.AST):
                walk(value, path + (field,))

    walk(tree, ())
    return out


def _expressions(tree: ast.AST) -> list[tuple]:
    out = []

    def walk(node: ast.AST, path: tuple) -> None:
        if isinstance(node, ast.FunctionDef) and node.name in ("_reset", "_mutate"):
            return
        if isinstance(node, ast.BinOp | ast.BoolOp | ast.Compare | ast.Call | ast.IfExp | ast.UnaryOp | ast.Subscript):
            out.append(path)
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        walk(item, path + (field, i))
            elif isinstance(value, ast.AST):
                walk(value, path + (field,))

    walk(tree, ())
    return out


def _simpler(node: ast.expr) -> list[ast.expr]:
    kids = [n for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr) and not isinstance(n, ast.Constant | ast.Name)
            or isinstance(n, ast.Name | ast.Constant) and not (isinstance(node, ast.Call) and n is node.func)]
    if isinstance(node, ast.Call) or isinstance(node, ast.Subscript):
        kids = [k for k in kids if not (isinstance(k, ast.Attribute))]
    return [copy.deepcopy(k) for k in kids] + [ast.Constant(0), ast.Constant(1)]


def _get(tree: ast.AST, path: tuple):  # noqa: ANN202
    node = tree
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return node


def _set(tree: ast.AST, path: tuple, value: ast.AST) -> None:
    parent = _get(tree, path[:-1])
    if isinstance(path[-1], int):
        parent[path[-1]] = value
    else:
        setattr(parent, path[-1], value)
