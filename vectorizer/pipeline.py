"""THE ordered pass lists (NumPy and lanes), and the driver that folds one of them over one
specialization of one function.

    source -> parse -> desugar (frontend/desugar.py) -> fence -> kind checks folded (passes/static_checks.py) -> analysis (user
    errors, with positions) -> passes -> module text

Every pass has one signature, `transform(code, ctx) -> code` (`Pass.run`), and one `Context`
carries what passes share. The order is the design; each comment says why a pass sits where it
does. What the driver starts from (the specialized function's analysis) is
specialized_analysis.py; what it gives back, generated.py; VECTORIZER_DUMP_AFTER, pass_dump.py.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

import libcst as cst

from .analysis.facts import Facts
from .analysis.names import in_users_words
from .codegen import emit, jax_module, numba_module
from .core.deep import too_deep, with_deep_stack
from .core.pyast import ArrayCode
from .core.types import ArrayType, TupleType, Val
from .errors import VectorizeError, internal_error
from .frontend.namespace import Namespace
from .frontend.parse import ParsedFunction
from .generated import Generated, noted
from .options import Options
from .pass_dump import as_text, dump_after
from .passes import (
    annotate_origins,
    break_continue,
    canonicalize,
    compact_loops,
    cut_recursion,
    early_returns,
    for_to_while,
    if_convert_lanes,
    if_to_select,
    inline_calls,
    lane_vector_math,
    lanes_to_jax,
    merge_checks,
    one_d_stores,
    ops_to_lanes,
    ops_to_numpy,
    select_chains,
    select_to_fmax,
    share_branch_math,
    table_lanes,
    vector_math,
    vectorize_loops,
    while_to_masked,
)
from .passes.base import Context
from .passes.ops_to_lanes import LaneKernels
from .passes.order import ARRAY_AST, JAX, LANES, Pass, check_order, prefix
from .specialized_analysis import Statics, analyzed

NUMPY_PASSES: list[Pass] = [
    # Each statement gets its source line as a comment that every later pass carries along; first,
    # while the nodes are the parsed ones the lines are keyed by.
    Pass("annotate_origins", annotate_origins.transform, before=("cut_recursion", "canonicalize")),
    # A recursive call flags the lanes reaching it (their re-run recurses); the rest is batched.
    Pass("cut_recursion", cut_recursion.transform),
    # A mask store into a one-element array becomes a select, before anything reads the store.
    Pass("one_d_stores", one_d_stores.transform),
    # One assignment form (`name = expr`) so later passes have a single case to handle.
    Pass("canonicalize", canonicalize.transform),
    # Before loops are touched: a return inside a loop becomes `done = True; break`, which the
    # loop passes below then lower like any other break.
    Pass("early_returns", early_returns.transform, before=("vectorize_loops", "for_to_while", "break_continue")),
    # Loops over array elements become array operations while they are still `for` loops
    # (for_to_while would hide the range they run over).
    Pass("vectorize_loops", vectorize_loops.transform, before=("for_to_while",)),
    # Loops that lanes leave at different iterations become while loops; must precede
    # break_continue, which only lowers `break` in while loops.
    Pass("for_to_while", for_to_while.transform, before=("break_continue",)),
    # Every loop gets a single exit (its test): after this, the only control flow is if/while.
    Pass("break_continue", break_continue.transform),
    # Callees arrive with the passes above already applied (`ctx.prepare_callee`); after the
    # caller's own break_continue, so a call in a while test is re-evaluated at the end of the
    # body without any `continue` skipping it.
    Pass("inline_calls", inline_calls.transform),
    # Batched while loops get a sticky `active` mask; before if_to_select, which predicates
    # their bodies under it.
    Pass("while_to_masked", while_to_masked.transform, writes=frozenset({"loop_masks"})),
    # Both sides of a batched if run on every lane from here on: math they share runs once, on
    # the operand each lane selects. Before if_to_select, while the branches are still visible.
    Pass("share_branch_math", share_branch_math.transform, before=("if_to_select",)),
    # An if/else in a batched branch that cannot fail becomes selects on its raw test (no masks
    # of its own); before if_to_select, which would give each arm a mask.
    Pass("select_chains", select_chains.transform, before=("if_to_select",)),
    # Batched ifs become masked blocks and merges (a costly branch one block, listed in
    # branch_lanes: ops_to_numpy runs it on its own lanes); the last pass on scalar Python.
    Pass("if_to_select", if_to_select.transform, needs=frozenset({"loop_masks"}),
         writes=frozenset({"predicated", "branch_lanes"})),
    # Scalar operations become NumPy operations with flags: from here on it is array code (a Python
    # `ast` tree, core/pyast.py, printed once at the end).
    Pass("ops_to_numpy", ops_to_numpy.transform, gives=ARRAY_AST, needs=frozenset({"loop_masks", "predicated", "branch_lanes"}),
         writes=frozenset({"constants", "loop_vars", "flag"})),
    # Needs the carried names ops_to_numpy records for each masked loop.
    Pass("compact_loops", compact_loops.transform, ARRAY_AST, ARRAY_AST, needs=frozenset({"loop_vars", "flag"})),
    # A select of x or a constant on x's own comparison with it is one fmax/fmin pass; on the
    # array code, before merge_checks (whose test of the result reads the finished expression).
    Pass("select_to_fmax", select_to_fmax.transform, ARRAY_AST, ARRAY_AST, before=("merge_checks",)),
    # Checks whose failing lanes have a NaN or infinite result run only when the result has one;
    # on the finished straight-line code, before vector_math renames the functions it reads.
    Pass("merge_checks", merge_checks.transform, ARRAY_AST, ARRAY_AST, needs=frozenset({"flag"}), before=("vector_math",)),
    # vector_math=True: the finished array code's exp, log, pow, erfc... become vector math calls.
    Pass("vector_math", vector_math.transform, ARRAY_AST, ARRAY_AST, needs=frozenset({"flag"})),
]

LANE_PASSES: list[Pass] = [  # the Numba backend: the user's control flow, per lane
    # What lanes cannot do with module-level arrays is refused while the nodes still have their
    # positions (ops_to_lanes lowers the rest: np.sum / np.prod of tables).
    Pass("table_lanes", table_lanes.transform),
    Pass("annotate_origins", annotate_origins.transform),
    Pass("cut_recursion", cut_recursion.transform),
    Pass("one_d_stores", one_d_stores.transform),
    Pass("canonicalize", canonicalize.transform),
    # Scalar operations with their checks as early `return <zeros>, True`; callees become lane
    # functions of their own (they go through the passes above first: `ctx.prepare_callee`).
    Pass("ops_to_lanes", ops_to_lanes.transform, gives=LANES),
    # vector_math=True: libm calls of straight-line lane code become libmvec calls.
    Pass("lane_vector_math", lane_vector_math.transform, LANES, LANES),
    # Branchy lane functions of cheap, trap-free operations: every side computed, selects keep
    # each lane's, so that LLVM runs the lanes in SIMD registers.
    Pass("if_convert_lanes", if_convert_lanes.transform, LANES, LANES),
]


JAX_PASSES: list[Pass] = [  # backend="jax": the lane form of the Numba backend, lowered to JAX
    Pass("table_lanes", table_lanes.transform),
    Pass("annotate_origins", annotate_origins.transform),
    # A device runs no call stack: recursion is refused here (the other backends flag its lanes).
    Pass("refuse_recursion", lanes_to_jax.refuse_recursion),
    Pass("cut_recursion", cut_recursion.transform),
    Pass("one_d_stores", one_d_stores.transform),
    Pass("canonicalize", canonicalize.transform),
    Pass("ops_to_lanes", ops_to_lanes.transform, gives=LANES),
    # No lane_vector_math: XLA has its own functions. Lane control flow -> selects and lax loops.
    Pass("lanes_to_jax", lanes_to_jax.transform, LANES, JAX),
]


# What a callee goes through before it is inlined (NumPy: inlining included, so the callee's own
# calls are inlined first) or lowered to its own lane function.
NUMPY_CALLEE_PASSES = prefix(NUMPY_PASSES, "inline_calls")
LANE_CALLEE_PASSES = prefix(LANE_PASSES, "canonicalize")
JAX_CALLEE_PASSES = prefix(JAX_PASSES, "canonicalize")

for _label, _passes in (("NUMPY_PASSES", NUMPY_PASSES), ("LANE_PASSES", LANE_PASSES), ("JAX_PASSES", JAX_PASSES)):
    check_order(_label, _passes)  # at import: a reordering that breaks a pass's contract never runs


def run_passes(passes: list[Pass], code: Any, ctx: Context) -> Any:
    """Fold `code` through `passes` in order; a user error names the pass it was raised in."""
    for p in passes:
        try:
            code = p.run(code, ctx)
        except VectorizeError as exc:
            exc.add_note(f"vectorizer: raised in pass {p.name!r}")
            told = in_users_words(exc, ctx.namer, ctx.name)  # never a name the compiler made
            if told is exc:
                raise
            raise told from None
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - any other exception is the pass's bug: named, refused visibly
            if too_deep(exc):
                raise  # not a bug of the pass: core/deep.py runs a deep function again on a larger stack
            raise internal_error("transforming", ctx.name, exc, in_pass=p.name) from exc
        dump_after(p.name, lambda c=code: as_text(c), DUMP_STAGES)
    return code


def _prepare_numpy_callee(ctx: Context) -> cst.FunctionDef:
    return _run_quietly(NUMPY_CALLEE_PASSES, ctx)


def _prepare_lane_callee(ctx: Context) -> cst.FunctionDef:
    return _run_quietly(LANE_CALLEE_PASSES, ctx)


def _prepare_jax_callee(ctx: Context) -> cst.FunctionDef:
    return _run_quietly(JAX_CALLEE_PASSES, ctx)


def _run_quietly(passes: list[Pass], ctx: Context) -> Any:
    """A callee's passes: no dump (the dump shows the function being vectorized)."""
    assert ctx.parsed is not None
    code: Any = ctx.parsed.func
    for p in passes:
        code = p.run(code, ctx)
    return code


def _unrolled(passes: list[Pass], parsed: ParsedFunction, ctx: Context, again: Callable[[], tuple]) -> Any:
    """The passes over a function whose recursive calls are lowered as calls of copies, a level
    deep (passes/cut_recursion.py); where a copy cannot be lowered, the function again (`again`:
    a fresh analysis and context) with every recursive call cut."""
    if not (ctx.callees and ctx.callees.assumed):  # no recursion (analysis/recursion.py)
        return run_passes(passes, parsed.func, ctx)
    try:
        return run_passes(passes, parsed.func, ctx)
    except VectorizeError:
        parsed, _, ctx = again()
        return run_passes(passes, parsed.func, dataclasses.replace(ctx, unroll=1))


def lower(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options,
          statics: Statics | None = None) -> Generated:
    """Run the whole pipeline; user errors are `VectorizeError`s pointing at the user's source.
    `statics`: the values this specialization is made for (passes/specialize.py). An expression
    nested past Python's recursion limit is lowered on a deeper stack (core/deep.py)."""
    return with_deep_stack(lambda: _lower_numpy(parsed, namespace, params, options, statics))


def _lower_numpy(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options,
                 statics: Statics | None) -> Generated:
    parsed, first, ctx = start(parsed, namespace, params, options, lanes=False, statics=statics)
    # The function's own recursive call is a copy inlined a level deep (cut_recursion): a costly
    # one runs on the lanes reaching it alone (ops_to_numpy/branch_lanes.py), far cheaper than
    # re-running them (1e5 lanes of py_lets_be_rational.normalised_black_call: 500 -> 80 ms). So
    # is a callee's that calls itself at one place; another callee's recursion is cut at once:
    # its copies would be inlined at each of its recursive calls.
    code: ArrayCode = _unrolled(NUMPY_PASSES, parsed, dataclasses.replace(ctx, unroll_callees=False),
                                lambda: start(parsed, namespace, params, options, lanes=False, statics=statics))
    origin = f"{os.path.basename(parsed.source.filename)}::{parsed.source.qualname}"
    function = code.text(repeats=False)  # the one printing of the array code
    result = emit.result_kinds(first.result)
    source = emit.module(function, origin=origin, params=params, constants=ctx.constants,
                         result=result, returns_tuple=first.returns_tuple)
    source = noted(source, statics)
    return Generated(source, parsed.name, result, first.returns_tuple, function, dict(ctx.constants))


def lower_lanes(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options, *,
                reserved: tuple[str, ...] = (), entry: str | None = None,
                threshold: str = "PARALLEL_MIN_LANES", statics: Statics | None = None) -> Generated:
    """The Numba backend: per-lane scalar kernels with the same checks, driven over the batch.
    `reserved` names stay free for the caller; `entry` and `threshold` name the entry point and
    the module constant of its parallel threshold in `Generated.function` (see numba_module)."""
    return with_deep_stack(lambda: _lower_lanes(parsed, namespace, params, options, reserved, entry, threshold,
                                                statics))


def _lower_lanes(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options,
                 reserved: tuple[str, ...], entry: str | None, threshold: str, statics: Statics | None) -> Generated:
    parsed, first, ctx = start(parsed, namespace, params, options, lanes=True, reserved=reserved, statics=statics)
    kernels: LaneKernels = _unrolled(LANE_PASSES, parsed, ctx, lambda: start(parsed, namespace, params, options, lanes=True,
                                                                             reserved=reserved, statics=statics))
    sources = kernels.sources  # the one printing of the lane functions
    result = emit.result_kinds(first.result)
    has_loops = any(isinstance(n, cst.While | cst.For) for n in first.batched_test)
    calls_math = kernels.calls_libm()
    cost = "loops" if has_loops else "math" if calls_math else "arithmetic"
    origin = f"{os.path.basename(parsed.source.filename)}::{parsed.source.qualname}"
    flagged = not kernels.infallible
    source = numba_module.module(parsed.name, params, list(result), first.returns_tuple, sources,
                                 kernels.constants, origin, cost, flagged=flagged)
    source = noted(source, statics)
    function = numba_module.definitions(parsed.name, params, list(result), first.returns_tuple, sources, flagged,
                                        entry=entry, threshold=threshold)
    return Generated(source, parsed.name, result, first.returns_tuple, function, dict(kernels.constants),
                     numba_module.PARALLEL_MIN_LANES[cost])


def lower_jax(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options, *,
              statics: Statics | None = None) -> Generated:
    """backend="jax": the lane functions of the Numba backend, lowered to JAX lane functions that
    `jax.vmap` and `jax.jit` run over the batch (backends/jax/driver.py)."""
    if options.exact:
        raise VectorizeError("backend='jax' needs exact=False: XLA's exp, sin, pow... are not the C library's",
                             hint="pass exact=False (discrete outcomes and exceptions stay exact: docs/jax.md)")
    # The lane passes write CPython's operations (no `_vz_fast` marks, no vector math): lanes_to_jax
    # maps each to XLA's, with the bound measured for it (backends/jax/approx.py).
    options = options.replace(backend="numba", exact=True, vector_math=False)
    parsed, first, ctx = start(parsed, namespace, params, options, lanes=True, reserved=("_vz",), statics=statics,
                                backend="the JAX backend")
    ctx.prepare_callee = _prepare_jax_callee
    ctx.uniform_params = frozenset(n for n, v in params.items() if not v.batched)
    try:
        kernels: lanes_to_jax.JaxKernels = run_passes(JAX_PASSES, parsed.func, ctx)
    except VectorizeError as exc:  # the per-lane passes it shares with Numba name that backend
        if "the Numba backend" in exc.message:
            exc.reword(exc.message.replace("the Numba backend", "the JAX backend (its per-lane form is the Numba backend's)"))
        raise
    result = emit.result_kinds(first.result)
    origin = f"{os.path.basename(parsed.source.filename)}::{parsed.source.qualname}"
    sources = kernels.sources  # the one printing of the JAX lane functions
    source = jax_module.module(parsed.name, params, result, first.returns_tuple, sources,
                               kernels.constants, origin, kernels.main)
    return Generated(noted(source, statics), parsed.name, result, first.returns_tuple, "\n\n".join(sources),
                     dict(kernels.constants))


def run_until(last: str, parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options,
              *, lanes: bool = False) -> Any:
    """The code after the pass `last` of the NumPy list (or with `lanes`, of LANE_PASSES): the
    passes up to and including it, as `lower` runs them (tests/passes/ read each pass this way)."""
    parsed, _, ctx = start(parsed, namespace, params, options, lanes=lanes)
    return run_passes(prefix(LANE_PASSES if lanes else NUMPY_PASSES, last), parsed.func, ctx)


def start(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], options: Options, *,
          lanes: bool, reserved: tuple[str, ...] = (), statics: Statics | None = None,
          backend: str = "the Numba backend") -> tuple[ParsedFunction, Facts, Context]:
    """The function specialized, kind-checked and analysed (specialized_analysis.py: errors carry
    exact positions), and the context the passes share: what every lowering starts from, and what
    the explain report (faces/explain.py) reads the analysis of a specialization from."""
    parsed, first, callees, namer = analyzed(parsed, namespace, params, statics, reserved)
    if not lanes:
        flat = len(first.result) == 1 and first.result[0].batched \
            and not isinstance(first.result[0].type, ArrayType | TupleType)  # a 1-D array: merge_checks
        return parsed, first, Context(parsed.name, params, namespace, namer, options, callees=callees,
                              prepare_callee=_prepare_numpy_callee, parsed=parsed, flat_result=flat)
    if any(isinstance(v.type, ArrayType) for v in [*params.values(), *first.result]):
        raise VectorizeError(f"{backend} works on functions of numbers; this one uses arrays",
                             hint="use backend='numpy' (the default) for functions of per-example arrays")
    lane_params = {n: Val(v.type, False) for n, v in params.items()}  # one lane: every value is a number
    return parsed, first, Context(parsed.name, lane_params, namespace, namer, options, callees=callees,
                          prepare_callee=_prepare_lane_callee, parsed=parsed)


DUMP_STAGES = tuple(dict.fromkeys(p.name for p in [*NUMPY_PASSES, *LANE_PASSES, *JAX_PASSES]))

