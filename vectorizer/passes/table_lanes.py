"""Refuse, with the user's line and column, what the Numba backend's lanes cannot do with uniform
tables (module-level 1-D arrays, core/tables.py), before any lane pass rebuilds the tree. The
lowering itself is ops_to_lanes' (passes/ops_to_lanes/tables.py); this pass changes nothing.

Before (and after: the same tree)::

    def f(s):
        n = _N
        return np.sum(n * (s - 1.0) ** _I)      # supported: a reduction of tables and numbers

Refused here (the NumPy backend runs them)::

    t = _N * s              # an array-valued local:  file.py:2:9 error[VEC]: an array-valued expression ...
    np.max(_N * s)          # a reduction other than np.sum / np.prod
    np.sum(_N ** s)         # array ** number (NumPy's scalar-exponent shortcuts)
    np.sum(_N * s ** _ONE)  # a one-element table broadcast against a longer one
    f(_N)                   # a table passed to a function

Runs first in LANE_PASSES, so on the function and on every callee (LANE_CALLEE_PASSES).
"""

from __future__ import annotations

import ast

import libcst as cst

from ..errors import VectorizeError
from ..frontend.namespace import Namespace
from .base import Context
from .ops_to_lanes.tables import HINT, Element, element_of, is_array, reduced


def transform(func: cst.FunctionDef, ctx: Context) -> cst.FunctionDef:
    if not _reads_tables(func, ctx):
        return func
    facts = ctx.analyze(func)

    def refuse(node: cst.CSTNode, message: str) -> VectorizeError:
        location = ctx.parsed.location(node) if ctx.parsed is not None else None
        return VectorizeError(message, location, hint=HINT, construct=type(node).__name__)

    def visit(node: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        if isinstance(node, cst.Call):
            name = _numpy_name(node, ctx)
            arg = reduced(name, node, facts)
            if arg is not None:
                element_of(name, arg, Element(facts, lambda n: ast.Name(id="x", ctx=ast.Load()), refuse))  # type: ignore[arg-type]
                return
            if any(is_array(facts.vals.get(a.value)) for a in node.args) and not _is_len(node, ctx):
                raise refuse(node, f"{'np.' + name if name else 'this call'} of an array on the Numba backend "
                             "(only np.sum and np.prod of tables are supported there)")
        val = facts.vals.get(node) if isinstance(node, cst.BaseExpression) else None
        if is_array(val):
            # `n = N` (an alias Numba holds as the array) and `len(N)` (a constant; other calls
            # with an array argument are refused above)
            alias = isinstance(node, cst.Name) and isinstance(parent, cst.Assign | cst.Arg | cst.AssignTarget)
            if not alias:
                raise refuse(node, "an array-valued expression on the Numba backend (only np.sum / np.prod of "
                             "module-level 1-D arrays combined with numbers by + - * / ** are supported there)")
        for child in node.children:
            visit(child, node)

    visit(func.body, func)
    return func


def _reads_tables(func: cst.FunctionDef, ctx: Context) -> bool:
    """Whether any global name the function reads is a table (most functions: no analysis here)."""
    from ..core.tables import Table
    from ..core.tree import walk

    return any(isinstance(ctx.namespace.resolve(n).value, Table) for n in _global_names(func, walk)
               if ctx.namespace.resolve(n).kind == "constant")


def _global_names(func: cst.FunctionDef, walk) -> set[str]:
    """The names read that are no locals (resolving a local would record it in the Watch)."""
    from ..frontend.refusals import local_names

    return {n.value for n in walk(func) if isinstance(n, cst.Name)} - local_names(func)


def _numpy_name(node: cst.Call, ctx: Context) -> str | None:
    func = node.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
            and ctx.namespace.resolve(func.value.value).kind == "numpy":
        return func.attr.value
    return None


def _is_len(node: cst.Call, ctx: Context) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value == "len"


def numpy_only(func: cst.FunctionDef, namespace: Namespace) -> bool:
    """Whether the function reads tables in a way the lanes refuse, judged from the syntax alone
    (for backend="auto", engine/costmodel.py, which parses no types): a table or an alias of one
    (`n = N`) anywhere but in the argument of np.sum / np.prod, `len(...)`, or an alias; or, in such
    an argument, a power whose exponent reads no table (`array ** number`)."""
    from ..core.tables import Table
    from ..core.tree import walk

    def is_table(name: str) -> bool:
        glob = namespace.resolve(name)
        return glob.kind == "constant" and isinstance(glob.value, Table)

    tables = {n for n in _global_names(func, walk) if is_table(n)}
    if not tables:
        return False
    for node in walk(func):  # aliases, to a fixpoint over `a = N; b = a`
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in tables:
            tables |= {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}

    def reads(node: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Name) and n.value in tables for n in walk(node))

    def outside(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in REDUCED \
                and isinstance(node.func.value, cst.Name) and namespace.resolve(node.func.value.value).kind == "numpy":
            return any(isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Power) and reads(n.left)
                       and not reads(n.right) for n in walk(node))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
            return False
        if isinstance(node, cst.Name) and node.value in tables:
            return not isinstance(parent, cst.Assign | cst.AssignTarget)
        return any(outside(child, node) for child in node.children)

    return outside(func.body, func)


REDUCED = ("sum", "prod")
