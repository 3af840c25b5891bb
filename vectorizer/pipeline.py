"""THE ordered pass list, and the driver that runs it for one specialization of one function.

    source -> parse -> fence -> analysis (user errors, with positions) -> passes -> module text

The order is the design; each comment says why a pass sits where it does.
"""

from __future__ import annotations

import ast
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from .analysis.batched import analyze
from .analysis.calls import Callees
from .analysis.names import Namer
from .codegen import emit, numba_module
from .core.types import ArrayType, Val
from .errors import VectorizeError
from .frontend.namespace import Namespace
from .frontend.parse import ParsedFunction
from .options import Options
from .passes import (
    annotate_origins,
    break_continue,
    canonicalize,
    compact_loops,
    early_returns,
    for_to_while,
    if_to_select,
    inline_calls,
    lane_vector_math,
    ops_to_lanes,
    ops_to_numpy,
    share_branch_math,
    vector_math,
    vectorize_loops,
    while_to_masked,
)
from .passes.base import Context

# Passes up to ops_to_numpy rewrite a libcst tree; ops_to_numpy prints the array code, and the
# passes after it edit that text (a tree of the lowered function costs more to build than they use).
Pass = Callable[[Any, Context], Any]

PASSES: list[tuple[str, Pass]] = [
    # One assignment form (`name = expr`) so later passes have a single case to handle.
    ("canonicalize", canonicalize.transform),
    # Before loops are touched: a return inside a loop becomes `done = True; break`, which the
    # loop passes below then lower like any other break.
    ("early_returns", early_returns.transform),
    # Loops over array elements become array operations while they are still `for` loops
    # (for_to_while would hide the range they run over).
    ("vectorize_loops", vectorize_loops.transform),
    # Loops that lanes leave at different iterations become while loops; must precede
    # break_continue, which only lowers `break` in while loops.
    ("for_to_while", for_to_while.transform),
    # Every loop gets a single exit (its test): after this, the only control flow is if/while.
    ("break_continue", break_continue.transform),
    # Callees arrive with the passes above already applied (see `prepare_callee`); after the
    # caller's own break_continue, so a call in a while test is re-evaluated at the end of the
    # body without any `continue` skipping it.
    ("inline_calls", inline_calls.transform),
    # Batched while loops get a sticky `active` mask; before if_to_select, which predicates
    # their bodies under it.
    ("while_to_masked", while_to_masked.transform),
    # Both sides of a batched if run on every lane from here on: math they share runs once, on
    # the operand each lane selects. Before if_to_select, while the branches are still visible.
    ("share_branch_math", share_branch_math.transform),
    # Batched ifs become masked blocks and merges; the last pass on scalar Python.
    ("if_to_select", if_to_select.transform),
    # Scalar operations become NumPy operations with flags: from here on it is array code.
    ("ops_to_numpy", ops_to_numpy.transform),
    # Needs the carried names ops_to_numpy records for each masked loop.
    ("compact_loops", compact_loops.transform),
    # vector_math=True: the finished array code's exp, log, pow, erfc... become vector math calls.
    ("vector_math", vector_math.transform),
]


# What a callee goes through before it is inlined: everything up to and including inlining.
SCALAR_PASSES = PASSES[: [name for name, _ in PASSES].index("inline_calls") + 1]


def prepare_callee(parsed: ParsedFunction, ctx: Context) -> cst.FunctionDef:
    func = annotate_origins.transform(parsed.func, parsed)
    for _, run in SCALAR_PASSES:
        func = run(func, ctx)
    return func


@dataclass(frozen=True)
class Generated:
    """The result of lowering one specialization."""

    source: str  # the generated module
    name: str  # the kernel's name in it
    result: tuple[str, ...]  # how each returned value is stored (see emit.result_types)
    returns_tuple: bool
    function: str  # the kernel's `def` alone (Numba: its lane functions, drivers and entry point)
    constants: dict[str, object]  # module constants it reads
    parallel_min_lanes: int | None = None  # Numba: the batch size from which the parallel driver runs


def lower(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options) -> Generated:
    """Run the whole pipeline; user errors are `VectorizeError`s pointing at the user's source."""
    # First, the analysis on the user's own tree: its errors carry exact positions.
    callees = Callees(namespace, parsed.name)
    first = analyze(parsed.func, params, namespace, parsed.location, callees.result)
    func = annotate_origins.transform(parsed.func, parsed)
    namer = Namer.for_tree(parsed.func)
    for callee in callees.parsed.values():
        namer.reserve(*Namer.for_tree(callee.func).taken)
    ctx = Context(parsed.name, params, namespace, namer, options, callees=callees, prepare_callee=prepare_callee)
    for name, run in PASSES:
        try:
            func = run(func, ctx)
        except VectorizeError as exc:
            exc.add_note(f"vectorizer: raised in pass {name!r}")
            raise
        _dump(name, lambda f=func: f if isinstance(f, str) else cst.Module(body=[f]).code)
    origin = f"{os.path.basename(parsed.source.filename)}::{parsed.source.qualname}"
    ast.parse(func)  # the text passes' output is Python, or this is an engine bug (refused visibly)
    function = emit.tidy(func)
    result = emit.result_types(first.result)
    source = emit.module(function, origin=origin, params=params, constants=ctx.constants,
                         result=result, returns_tuple=first.returns_tuple)
    return Generated(source, parsed.name, result, first.returns_tuple, function, dict(ctx.constants))


def lower_lanes(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options, *,
                reserved: tuple[str, ...] = (), entry: str | None = None,
                threshold: str = "PARALLEL_MIN_LANES") -> Generated:
    """The Numba backend: per-lane scalar kernels with the same checks, driven over the batch.
    `reserved` names stay free for the caller; `entry` and `threshold` name the entry point and
    the module constant of its parallel threshold in `Generated.function` (see numba_module)."""
    callees = Callees(namespace, parsed.name)
    first = analyze(parsed.func, params, namespace, parsed.location, callees.result)
    namer = Namer.for_tree(parsed.func)
    namer.reserve(*reserved)
    for callee in callees.parsed.values():
        namer.reserve(*Namer.for_tree(callee.func).taken)
    if any(isinstance(v.type, ArrayType) for v in [*params.values(), *first.result]):
        raise VectorizeError("the Numba backend works on functions of numbers; this one uses arrays",
                             hint="use backend='numpy' (the default) for functions of per-example arrays")
    lane_params = {n: Val(v.type, False) for n, v in params.items()}
    ctx = Context(parsed.name, lane_params, namespace, namer, options, callees=callees)
    func = canonicalize.transform(annotate_origins.transform(parsed.func, parsed), ctx)
    _dump("canonicalize", lambda: cst.Module(body=[func]).code)
    lanes = ops_to_lanes.LaneModule()
    main = ops_to_lanes.lower_lane(func, ctx, lanes, f"_lane_{parsed.name}", main=True)
    sources = [src for _, src in lanes.functions.values()] + [main]
    _dump("ops_to_lanes", lambda: "\n\n".join(sources))
    sources = lane_vector_math.transform(sources, options.vector_math)
    if options.vector_math:
        _dump("lane_vector_math", lambda: "\n\n".join(sources))
    result = emit.result_types(first.result)
    has_loops = any(isinstance(n, cst.While | cst.For) for n in first.batched_test)
    calls_math = any(lib in "".join(sources) for lib in ("math.", "_vz_lm.", "_vz_pow(", "_vz_hypot("))
    cost = "loops" if has_loops else "math" if calls_math else "arithmetic"
    origin = f"{os.path.basename(parsed.source.filename)}::{parsed.source.qualname}"
    flagged = not lanes.infallible
    source = numba_module.module(parsed.name, params, list(result), first.returns_tuple, sources,
                                 lanes.constants, origin, cost, flagged=flagged)
    function = numba_module.definitions(parsed.name, params, list(result), first.returns_tuple, sources, flagged,
                                        entry=entry, threshold=threshold)
    return Generated(source, parsed.name, result, first.returns_tuple, function, dict(lanes.constants),
                     numba_module.PARALLEL_MIN_LANES[cost])


DUMP_STAGES = (*(name for name, _ in PASSES), "ops_to_lanes", "lane_vector_math")


def _dump(stage: str, text: Callable[[], str]) -> None:
    """VECTORIZER_DUMP_AFTER=<pass>|all prints the function after that pass to stderr (the
    Numba backend's stages are canonicalize, ops_to_lanes and lane_vector_math). A name that is
    no stage gets one warning listing the stages, instead of printing nothing."""
    wanted = os.environ.get("VECTORIZER_DUMP_AFTER", "")
    if wanted in ("all", stage):
        print(f"# ---- after {stage} ----\n{text()}", file=sys.stderr)
    elif wanted and wanted not in DUMP_STAGES and not _warned_dump:
        _warned_dump.append(wanted)
        warnings.warn(f"VECTORIZER_DUMP_AFTER={wanted!r} names no pass; use 'all' or one of: "
                      f"{', '.join(DUMP_STAGES)}", stacklevel=2)


_warned_dump: list[str] = []
