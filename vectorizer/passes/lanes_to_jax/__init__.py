"""Lower the per-lane form of the Numba backend (ops_to_lanes) to JAX: each lane function becomes a
function of one lane that `jax.vmap` batches and `jax.jit` compiles (backends/jax/driver.py),
with the lane code's control flow as XLA's (an AutoGraph-like tree transform of the lane code).

Before (ops_to_lanes)::

    def _lane_collatz(n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps = steps + 1
        return (steps, False)

After::

    def _lane_collatz(n):
        _failed, _done = _vz.start(n)
        _out = _vz.UNDEF
        steps = _vz.exact(0)
        _if, _failed, _done = _vz.decide(n != 1, _failed, _done)
        _live = _vz.and_(_if, _vz.not_(_done))
        def _body(_carry):
            n, steps, _failed, _done, _live = _carry
            _if_1, _failed_1, _done_1 = _vz.decide(n % 2 == 0, _failed, _done)
            n_1 = n // 2
            n_2 = 3 * n + 1
            n = _vz.select(_if_1, n_1, n_2)
            ...
            return (n, steps, _failed, _done, _live)
        n, steps, _failed, _done, _live = _vz.while_loop(_body, (n, steps, _failed, _done, _live))
        _out = _vz.put(_out, (steps, False), _done)
        _done = True
        return _vz.result(_out, _failed, True)

Two phases: structure.py (exits become flags, `for` becomes `while`), functional.py (`if`
becomes selects, `while` a `lax.while_loop`), with exprs.py for expressions; both are tree
transforms, from the lane functions' `ast` trees to the JAX ones (core/lanenodes.py prints them). Values are the
runtime's (backends/jax/approx.py): each float carries a bound on its distance from CPython's, so
a decision (a test, a check, int()) the bound cannot settle flags its lane (`_vz.decide`), which
the host re-runs with the scalar function, as every flagged lane. The origin comments of the lane
code stay with their statements.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
from dataclasses import dataclass

import libcst as cst

from ...analysis.recursion import calls_any
from ...core import lanenodes
from ...core.lanenodes import Comment, clone
from ...core.tree import walk
from ...errors import SourceLocation, VectorizeError
from ..base import Context
from ..ops_to_lanes import LaneKernels
from .exprs import Refusal
from .functional import Functional, Scope
from .structure import VZ, Structure

_ORIGIN = re.compile(r"#\s*line (\d+)(?: \(([^)]*)\))?: ?(.*)")


@dataclass(frozen=True)
class JaxKernels:
    """The JAX lane functions of one specialization (callees first, the main one last), as
    `ast` trees (core/lanenodes.py), printed once where the module is assembled."""

    functions: list[ast.FunctionDef]
    constants: dict[str, object]

    @property
    def main(self) -> str:
        return self.functions[-1].name

    @property
    def sources(self) -> list[str]:
        return [lanenodes.text(f) for f in self.functions]

    def text(self) -> str:
        return "\n\n".join(self.sources)


def refuse_recursion(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    """A recursive call cannot run on a device: refuse it where the Numba and NumPy backends flag
    the lanes that reach it (passes/cut_recursion.py)."""
    targets = frozenset((*ctx.chain, ctx.name))
    for node in walk(func.body):
        if isinstance(node, cst.Call) and calls_any(node, targets):
            location = ctx.parsed.location(node) if ctx.parsed is not None else None
            raise VectorizeError("recursion cannot run on the JAX backend: a device runs no call stack",
                                 location, hint="use backend='numpy' or 'numba', which re-run recursive lanes "
                                 "with the scalar function", construct="recursive call")
    return func


def transform(kernels: LaneKernels, ctx: Context) -> JaxKernels:
    functions = kernels.functions
    names = [f.name for f in functions]
    callees = frozenset(names[:-1])
    constants = frozenset(kernels.constants)
    uniform_params = ctx.uniform_params  # one value for every lane (pipeline.lower_jax)
    out = []
    for func, name in zip(functions, names):
        main = name == names[-1]
        fallible = not kernels.infallible if main else name not in kernels.never_fail
        out.append(lower_function(func, ctx, callees, constants | (uniform_params if main else frozenset()), main, fallible))
    return JaxKernels(out, dict(kernels.constants))


def lower_function(lane: ast.FunctionDef, ctx: Context, callees: frozenset[str], uniform: frozenset[str], main: bool,
                   fallible: bool) -> ast.FunctionDef:
    fn = clone(lane)  # the lowering below takes the lane's nodes apart
    _attach_comments(fn)
    params = [a.arg for a in fn.args.args]
    live_param = None if main else ctx.namer.fresh("_path")
    reassigned = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    body, state = Structure(ctx.namer, uniform - reassigned).function(fn, live_param)
    result = "result" if main else "callee_result"
    body.append(ast.Return(ast.Call(ast.Attribute(ast.Name(VZ), result),
                                    [ast.Name(state.out), ast.Name(state.failed), ast.Constant(fallible)], [])))
    lowering = Functional(ctx.namer, state, callees, lambda s, r: _refusal(s, r, ctx))
    lowering.block(body, Scope({p: p for p in params} | ({live_param: live_param} if live_param else {})), frozenset())
    return lanenodes.function(fn.name, ([live_param] if live_param else []) + params, lowering.out)


def _attach_comments(fn: ast.FunctionDef) -> None:
    """Each statement gets the comment lines right above it as printed (`comments`: the lane
    code's `Comment` statements, taken out of its blocks) and the user's line it comes from
    (`origin`: the last origin comment above it or around it)."""

    def visit(stmts: list[ast.stmt], origin: tuple | None, pending: list[str]) -> list[str]:
        """Take the comments out of `stmts`; the comments left after its last statement (the
        printed lines above whatever comes next)."""
        code = [s for s in stmts if not isinstance(s, Comment)]
        for s in stmts:
            if isinstance(s, Comment):
                pending.append(s.text.strip())
                continue
            s.comments, pending = pending, []  # type: ignore[attr-defined]
            for c in s.comments:  # type: ignore[attr-defined]
                found = _ORIGIN.match(c)
                if found:
                    origin = (int(found.group(1)), found.group(2), found.group(3))
            s.origin = origin  # type: ignore[attr-defined]
            for block in (getattr(s, b) for b in ("body", "orelse") if getattr(s, b, None)):
                pending = visit(block, origin, [])  # an `else:` line ends the body's: the last block's go on
        stmts[:] = code
        return pending

    visit(fn.body, None, [])


def _refusal(s: ast.stmt, refusal: Refusal, ctx: Context) -> VectorizeError:
    origin = getattr(s, "origin", None)
    location = None
    if origin is not None and ctx.parsed is not None:
        line, other, text = origin
        filename = ctx.parsed.source.filename
        if other:
            filename = next((p.source.filename for p in (ctx.callees.parsed.values() if ctx.callees else ())
                             if os.path.basename(p.source.filename) == other), other)
        source_line = linecache.getline(filename, line) or text
        column = 1 + len(source_line) - len(source_line.lstrip())
        location = SourceLocation(filename, line, column, None, source_line.rstrip("\n"))
    hint = "; ".join(h for h in (refusal.hint, "backend='numpy' or 'numba' run it") if h)
    return VectorizeError(f"{refusal.what} cannot run on the JAX backend", location, hint=hint, construct=refusal.what)
