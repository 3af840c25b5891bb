"""Profile one sample call of a generated NumPy kernel (for `explain`), on an instrumented COPY.

The engine is not touched: the kernel's module text is parsed, its kernel function rewritten so
that every simple statement is timed (perf_counter before and after, charged to the user line it
came from, explain_code.CodeFacts.origin), every masked `while np.any(active)` records the
number of active lanes at the start of each iteration (and of each entry into the loop), and
every `if lanes.worth(active):` records the iteration where the loop compacted its lanes. The
copy is executed in a fresh namespace and run twice (the second call is reported) over the whole sample, unchunked and on one
thread, through the engine's own flag-and-patch (engine/execute.run).

Not measured: the tests of `if`/`while` statements themselves (they are not simple statements),
the entry checks and result conversion around the kernel, the patching re-runs (their lane count
is reported, not their time), and the timer's own cost (~0.1 µs a statement).
"""

from __future__ import annotations

import ast
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_PX = "_vz_px"


@dataclass
class Profile:
    lanes: int = 0
    seconds: float = 0.0  # the whole instrumented call, patching included
    line_seconds: dict[int, float] = field(default_factory=lambda: defaultdict(float))  # user line (0: none)
    loops: dict[int, list[list[tuple[int, int]]]] = field(default_factory=lambda: defaultdict(list))
    # user line -> entries -> per iteration (active lanes, lanes carried)
    compactions: dict[int, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))
    # user line -> (entry, iteration) where the loop gathered its lanes
    flagged: int | None = None  # lanes the kernel flagged for a re-run by the scalar function
    error: str | None = None  # the sample call raised (the scalar function's exception, or a bug)

    # -- called by the instrumented kernel --
    def add(self, line: int, seconds: float) -> None:
        self.line_seconds[line] += seconds

    def enter(self, line: int) -> None:
        self.loops[line].append([])

    def loop(self, line: int, active: Any) -> None:
        self.loops[line][-1].append((int(np.count_nonzero(active)), int(np.size(active))))

    def compact(self, line: int) -> None:
        entries = self.loops[line]
        self.compactions[line].append((len(entries) - 1, len(entries[-1]) - 1))

    def flag(self, flag: Any) -> None:
        self.flagged = (self.flagged or 0) + int(np.count_nonzero(flag))


def instrument(module: str, kernel: str, origin: dict[int, int]) -> str:
    """The module text with the function `kernel` instrumented (see the module docstring)."""
    tree = ast.parse(module)
    func = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == kernel)
    func.body = _block(func.body, origin, None)
    return ast.unparse(ast.fix_missing_locations(tree))


def _call(method: str, *args: ast.expr) -> ast.stmt:
    return ast.Expr(ast.Call(ast.Attribute(ast.Name(_PX, ast.Load()), method, ast.Load()), list(args), []))


def _timed(stmt: ast.stmt, line: int) -> list[ast.stmt]:
    start = ast.Assign([ast.Name("_vz_t0", ast.Store())], ast.parse("_vz_clock()", mode="eval").body)
    took = ast.parse("_vz_clock() - _vz_t0", mode="eval").body
    return [start, stmt, _call("add", ast.Constant(line), took)]


def _block(stmts: list[ast.stmt], origin: dict[int, int], loop: int | None) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in stmts:
        line = origin.get(stmt.lineno, 0)
        if isinstance(stmt, ast.While):
            test = stmt.test
            masked = (isinstance(test, ast.Call) and ast.unparse(test.func) == "np.any" and len(test.args) == 1
                      and isinstance(test.args[0], ast.Name))
            stmt.body = _block(stmt.body, origin, line if masked else loop)
            if masked:
                stmt.body.insert(0, _call("loop", ast.Constant(line), ast.Name(test.args[0].id, ast.Load())))  # type: ignore[union-attr]
                out.append(_call("enter", ast.Constant(line)))
            out.append(stmt)
        elif isinstance(stmt, ast.If):
            stmt.body = _block(stmt.body, origin, loop)
            stmt.orelse = _block(stmt.orelse, origin, loop)
            if loop is not None and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                        and n.func.attr == "worth" for n in ast.walk(stmt.test)):  # lanes.worth(...)
                stmt.body.insert(0, _call("compact", ast.Constant(loop)))
            out.append(stmt)
        elif isinstance(stmt, ast.For | ast.With):
            stmt.body = _block(stmt.body, origin, loop)
            out.append(stmt)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            value = ast.Assign([ast.Name("_vz_result", ast.Store())], stmt.value)
            out.extend(_timed(value, line))
            if isinstance(stmt.value, ast.Tuple) and stmt.value.elts and ast.unparse(stmt.value.elts[-1]) == "flag":
                out.append(_call("flag", ast.Name("flag", ast.Load())))
            out.append(ast.Return(ast.Name("_vz_result", ast.Load())))
        else:
            out.extend(_timed(stmt, line))
    return out


def run(module: str, kernel: str, origin: dict[int, int], scalar: Any, batch: Any, qualname: str) -> Profile:
    """Run the instrumented copy of `kernel` once over `batch` (engine.batch.Batch)."""
    from ..engine import execute

    namespace: dict[str, Any] = {"__name__": f"_vz_explain_{kernel}", "_vz_clock": time.perf_counter}
    exec(compile(instrument(module, kernel, origin), f"<explain {qualname}>", "exec"), namespace)  # noqa: S102 - our own generated code
    for _ in range(2):  # the second call is kept: the first pays lazy imports and cold caches
        profile = namespace[_PX] = Profile(lanes=int(batch.size))
        start = time.perf_counter()
        try:
            execute.run(namespace[kernel], scalar, batch, tuple(namespace["VECTORIZER_RESULT"]),
                        bool(namespace["VECTORIZER_RETURNS_TUPLE"]), qualname, chunked=False)
        except Exception as exc:  # noqa: BLE001 - reported in the profile, as the call would raise it
            profile.error = f"{type(exc).__name__}: {exc}"
        profile.seconds = time.perf_counter() - start
    return profile
