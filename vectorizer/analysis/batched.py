"""Which values are batched, what type each holds, and which names may be unbound.

An abstract interpreter over the structured function body. The state at each point maps every
local name to a `Val` (type, batched, known constant) and a "may be unbound" bit. Branches join;
loops iterate to a fixpoint. A value is batched if it depends on a batched input, or if it is
assigned under control flow whose test is batched (control dependence): after

    if x > 0:        # x batched
        k = 1

`k` differs between lanes even though `1` does not. Loops are batched when their test is, when
they run under batched control, or when a `break`/`continue`/`return` inside them sits under a
batched test (lanes leave at different iterations).

Results are side tables keyed by the nodes of the analyzed tree (libcst nodes are immutable and
rebuilt by every pass, so each pass re-runs this analysis on the tree it receives).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..core.types import ArrayType, TupleType, Val
from ..errors import SourceLocation, VectorizeError, VectorizeTypeError
from ..frontend.namespace import Global, Namespace
from . import arrays, one_d_masks
from .control_flow import ControlFlow, _Loop
from .exprs import ExpressionAnalysis
from .facts import (
    BINOPS,
    Binding,
    Env,
    Facts,
    join_val,
)


class Analyzer(ControlFlow):
    """The statement half: environments through blocks, branches and loops (the last two in
    `ControlFlow`, control_flow.py); expressions are its collaborator `exprs` (`ExpressionAnalysis`)."""

    def __init__(
        self,
        namespace: Namespace,
        locate: Callable[[cst.CSTNode], SourceLocation | None],
        callee_result: Callable[[Global, list[Val], dict[str, Val], cst.Call], tuple[Val, ...]] | None = None,
        check_unbound: bool = True,
        masked_blocks: bool = False,
        under_control: bool = False,
        loop_masks: frozenset[str] = frozenset(),
    ) -> None:
        self.masked_blocks = masked_blocks
        self.loop_masks = loop_masks  # while_to_masked's masks: per-lane by its decision
        self.ns = namespace
        self.locate = locate
        self.facts = Facts()
        self.loops: list[_Loop] = []
        # Number of enclosing batched tests; one more for a callee inlined under batched control.
        self.ctrl_depth = int(under_control)
        self.exprs = ExpressionAnalysis(self.facts, namespace, locate, self.error, callee_result, check_unbound)

    # -- errors ------------------------------------------------------------------------------
    def error(self, node: cst.CSTNode, message: str, hint: str, cls=VectorizeTypeError) -> VectorizeError:
        return cls(message, self.locate(node), hint=hint, construct=type(node).__name__)

    # -- entry -------------------------------------------------------------------------------
    def run(self, func: cst.FunctionDef, params: dict[str, Val]) -> Facts:
        env: Env = {name: Binding(val) for name, val in params.items()}
        out = self.block(func.body, env)
        if out is not None:
            raise self.error(func, f"{func.name.value!r} can reach its end without 'return' and would return None",
                             "return a number on every path (or raise)", VectorizeError)
        self.finish(func)
        return self.facts

    def finish(self, func: cst.CSTNode) -> None:
        rets = self.facts.returns
        if not rets:
            raise self.error(func, "the function never returns a value", "return a number", VectorizeError)
        width = {len(r) for r in rets}
        if len(width) != 1:
            raise self.error(func, "the function returns tuples of different lengths on different paths",
                             "return the same number of values on every path", VectorizeError)
        result = list(rets[0])
        for r in rets[1:]:
            result = [join_val(a, b) for a, b in zip(result, r)]
        self.facts.result = tuple(result)

    # -- statements --------------------------------------------------------------------------
    def block(self, block: cst.BaseSuite, env: Env | None) -> Env | None:
        stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for stmt in stmts:
            if env is None:
                return None  # unreachable code after return/raise/break/continue
            self.facts.env_before[stmt] = env
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt: cst.CSTNode, env: Env) -> Env | None:
        if isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in stmt.body:
                if env is None:
                    return None
                self.facts.env_before[small] = env
                env = self.small(small, env)
            return env
        if isinstance(stmt, cst.If):
            return self.if_stmt(stmt, env)
        if isinstance(stmt, cst.While):
            return self.loop(stmt, env)
        if isinstance(stmt, cst.For):
            return self.loop(stmt, env)
        raise self.error(stmt, f"unexpected statement {type(stmt).__name__}", "report this as a vectorizer bug", VectorizeError)

    def small(self, small: cst.CSTNode, env: Env) -> Env | None:
        if isinstance(small, cst.Assign):
            val = self.exprs.expr(small.value, env, tuple_ok=True)
            env = dict(env)
            for target in small.targets:
                self.assign(target.target, val, env, small.value)
            return env
        if isinstance(small, cst.AnnAssign):
            if small.value is None:
                return env
            val = self.exprs.expr(small.value, env)
            env = dict(env)
            self.assign(small.target, val, env, small.value)
            return env
        if isinstance(small, cst.AugAssign):
            op = _AUG[type(small.operator)]
            left = self.exprs.expr(small.target, env)
            right = self.exprs.expr(small.value, env)
            val = self.exprs.binary(small, op, left, right)
            env = dict(env)
            self.assign(small.target, val, env, small)
            return env
        if isinstance(small, cst.Return):
            val = self.exprs.expr(small.value, env, tuple_ok=True)
            items = val.type.items if isinstance(val.type, TupleType) else None
            if isinstance(small.value, cst.Tuple):
                vals = tuple(self.facts.vals[e.value] for e in small.value.elements)
                self.facts.returns_tuple = True
            elif items is not None:
                vals = tuple(Val(t, val.batched) for t in items)
                self.facts.returns_tuple = True
            else:
                vals = (val,)
            if self.ctrl_depth:
                vals = tuple(v.with_batched(True) for v in vals)
                for loop in self.loops:
                    if self.ctrl_depth > loop.ctrl_depth:
                        loop.batched_exit = True
            self.facts.returns.append(vals)
            return None
        if isinstance(small, cst.Raise):
            return None
        if isinstance(small, cst.Assert):
            self.exprs.expr(small.test, env)
            return env
        if isinstance(small, cst.Break | cst.Continue):
            loop = self.loops[-1]
            (loop.breaks if isinstance(small, cst.Break) else loop.continues).append(env)
            if self.ctrl_depth > loop.ctrl_depth:
                loop.batched_exit = True
            return None
        if isinstance(small, cst.Pass | cst.Expr):  # Expr: a docstring (the fence refuses others)
            return env
        raise self.error(small, f"unexpected statement {type(small).__name__}", "report this as a vectorizer bug", VectorizeError)

    def assign(self, target: cst.BaseExpression, val: Val, env: Env, value_node: cst.CSTNode) -> None:
        if isinstance(target, cst.Subscript):
            self.store(target, val, env)
            return
        if isinstance(target, cst.Name):
            if isinstance(val.type, TupleType):
                raise self.error(value_node, "a tuple can only be unpacked into names or returned",
                                 "write 'a, b = ...'")
            # Under batched control if_to_select merges a bound name (`x = e if m else x`): it is
            # per-lane from here, even in this branch, whose later statements read the merged
            # name. A loop's mask is per-lane even where this analysis would find it uniform
            # (while_to_masked decided so, on an earlier tree).
            merged = self.ctrl_depth > 0 and not self.masked_blocks and target.value in env
            if merged or target.value in self.loop_masks:
                val = val.with_batched(True)
            env[target.value] = Binding(val)
            self.facts.vals[target] = val
            return
        elements = [e.value for e in target.elements]  # type: ignore[attr-defined]
        if isinstance(value_node, cst.Tuple):
            items = [self.facts.vals[e.value] for e in value_node.elements]
        elif isinstance(val.type, TupleType):
            # a NumPy call's items are NumPy values (np.modf, np.broadcast_arrays: rules/array_number_calls.py)
            items = [Val(t, val.batched, c, val.numpy, zero_d=val.zero_d, one_d=val.one_d)
                     for t, c in zip(val.type.items, val.const or [None] * len(val.type.items))]
        else:
            raise self.error(value_node, "only a tuple can be unpacked", "unpack a tuple: a, b = x, y")
        if len(items) != len(elements):
            raise self.error(value_node, f"cannot unpack {len(items)} values into {len(elements)} names",
                             "use as many names as values", VectorizeError)
        for el, item in zip(elements, items):
            self.assign(el, item, env, value_node)

    def one_d_store(self, target: cst.Subscript, current: Val, val: Val, env: Env) -> None:
        """a[mask] = v, a[:] = v into a one-element array (analysis/one_d_masks.py)."""
        part = target.slice[0].slice if len(target.slice) == 1 else None
        index: Val | str
        if isinstance(part, cst.Slice) and part.lower is None and part.upper is None and part.step is None:
            index = one_d_masks.FULL
        elif isinstance(part, cst.Index):
            index = self.exprs.expr(part.value, env)
        else:
            raise self.error(target, "indexing a one-element array (np.atleast_1d of a number) is supported with a mask "
                             "or [:] only", "use x.item() for its number")
        new = self.exprs.arrays(target, lambda: one_d_masks.store(current, index, val, self.ctrl_depth > 0))
        self.facts.stores[target] = new.batched
        self.facts.one_d_stores[target] = current
        env[target.value.value] = Binding(new)  # type: ignore[attr-defined]

    def store(self, target: cst.Subscript, val: Val, env: Env) -> None:
        """x[i] = v on an array this function created: the array becomes per-lane when the value,
        the index or the control flow is."""
        base = target.value
        if not isinstance(base, cst.Name) or base.value not in env:
            raise self.error(target, "only local arrays can be assigned into", "create the array in the function first")
        current = env[base.value].val
        if current.one_d is not False and not isinstance(current.type, ArrayType):
            self.one_d_store(target, current, val, env)
            return
        item = self.exprs.expr(target, env)
        if not isinstance(current.type, ArrayType):
            raise self.error(target, "item assignment needs an array", "create it with np.zeros(n)")
        if not current.fresh:
            raise self.error(target, f"assigning into {base.value!r}, which may share memory with an argument; "
                             "the caller's arrays must not change", f"make a copy first: {base.value} = {base.value}.copy()",
                             VectorizeError)
        if isinstance(val.type, ArrayType) and arrays.rank(item.type) < val.type.rank:
            raise self.error(target, "the assigned array has more dimensions than its target", "check the shapes")
        batched = current.batched or val.batched or item.batched or self.ctrl_depth > 0
        self.facts.stores[target] = batched
        env[base.value] = Binding(Val(current.type, batched, fresh=True))


_AUG = {getattr(cst, cls.__name__ + "Assign"): op for cls, op in BINOPS.items()}


def analyze(
    func: cst.FunctionDef,
    params: dict[str, Val],
    namespace: Namespace,
    locate: Callable[[cst.CSTNode], SourceLocation | None] = lambda node: None,
    callee_result=None,
    check_unbound: bool = True,
    masked_blocks: bool = False,
    under_control: bool = False,
    loop_masks: frozenset[str] = frozenset(),
) -> Facts:
    """Run the analysis of `func` for one specialization (`params`: name -> Val).

    `check_unbound` is for the user's own tree; the passes' trees read names only on the lanes
    where the user's code defined them (predication), which this analysis cannot see.
    `under_control` analyzes a callee whose call site runs under a batched test or loop;
    `loop_masks` are the masks of loops already lowered to masked loops (per-lane by decision).
    """
    return Analyzer(namespace, locate, callee_result, check_unbound, masked_blocks, under_control,
                    loop_masks).run(func, params)
