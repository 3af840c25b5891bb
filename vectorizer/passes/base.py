"""What every pass shares: the context, node builders, and origin comments that travel with code.

Each pass is a module with a docstring showing the pattern before and after, and a function
`transform(func, ctx) -> func` at the bottom. Between passes the tree is valid scalar Python until
`ops_to_numpy`, so each desugaring step can be tested by running it against the original function.

Origin comments (`# line 12: if x > 0:`) are attached as leading comments to the statements of
the user's function before the first pass; a pass that replaces a statement moves its leading
lines onto the first statement of the replacement (`replace`), so the origin survives lowering.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst
import numpy as np

from ..analysis.batched import analyze
from ..analysis.calls import Callees
from ..analysis.facts import Facts
from ..analysis.names import Namer
from ..core.text import is_number
from ..core.tree import walk
from ..core.types import BOOL, Val
from ..frontend.namespace import Namespace

if TYPE_CHECKING:
    from ..frontend.parse import ParsedFunction
    from ..options import Options

_MODULE = cst.Module(body=[])


@dataclass
class Context:
    """What the passes of one specialization share."""

    name: str
    params: dict[str, Val]  # the specialization: each parameter's type and batchedness
    namespace: Namespace
    namer: Namer
    options: Options
    loop_masks: set[str] = field(default_factory=set)  # masks of lowered while loops
    constants: dict[str, object] = field(default_factory=dict)  # module constants the code reads
    callees: Callees | None = None  # same-module functions reached from this one
    # The passes before inlining (NumPy) or before ops_to_lanes (lanes), run on a callee's context.
    prepare_callee: Callable[[Context], cst.FunctionDef] | None = None
    predicated: bool = False  # set by if_to_select: batched ifs are masked blocks from then on
    loop_vars: dict[str, list[str]] = field(default_factory=dict)  # loop mask -> batched names it carries
    flag: str | None = None  # the flag array's name, once ops_to_numpy found a check
    branch_lanes: set[cst.If] = field(default_factory=set)  # if_to_select's costly branches: run on their lanes
    # An inlined callee whose call site is under batched control: if_to_select will predicate
    # even its uniform ifs there, so its analysis must see what they reassign as per-lane.
    under_control: bool = False
    parsed: ParsedFunction | None = None  # the function as parsed (annotate_origins reads its lines)
    chain: tuple[str, ...] = ()  # the callers this callee is inlined or lowered into (recursion)
    flat_result: bool = False  # the kernel returns a number a lane, batched: a 1-D array
    uniform_params: frozenset[str] = frozenset()  # backend="jax": parameters with one value for every lane
    unroll: int = 2  # copies of a recursive function on a call chain before its calls are cut (cut_recursion)
    unroll_callees: bool = True  # False: only the function vectorized is unrolled, a callee's recursion cut at once

    def analyze(self, func: cst.FunctionDef) -> Facts:
        callee_result = functools.partial(self.callees.result, lowering=True) if self.callees else None
        return analyze(func, self.params, self.namespace, callee_result=callee_result, check_unbound=False,
                       masked_blocks=self.predicated, under_control=self.under_control,
                       loop_masks=frozenset(self.loop_masks))

    def call_name(self, node: cst.Call) -> str:
        """"math.exp" for `math.exp(...)` (or `exp` imported from math), "abs"...: what the rules
        (rules/scalar.py) know a call by. A user function's name resolves to itself."""
        func = node.func
        return f"math.{func.attr.value}" if isinstance(func, cst.Attribute) else self.namespace.resolve(func.value).name  # type: ignore[union-attr]

    def child(self, name: str, params: dict[str, Val], under_control: bool = False,
              parsed: ParsedFunction | None = None) -> Context:
        """The context of a callee: its own parameters and source, the caller's namer and tables
        (`loop_masks` and `constants` are shared: what the callee adds, the caller emits); what
        the caller's own passes found about its code (`predicated`, `loop_vars`, `flag`...) is
        not the callee's."""
        return dataclasses.replace(self, name=name, params=params, under_control=under_control or self.under_control,
                       parsed=parsed, chain=(*self.chain, self.name), predicated=False, loop_vars={}, flag=None, branch_lanes=set(),
                       flat_result=False, uniform_params=frozenset())


# -- building nodes ----------------------------------------------------------------------------
def code(node: cst.CSTNode) -> str:
    """Source text of a node (expressions and statements)."""
    return _MODULE.code_for_node(node)


def expr(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def stmt(text: str) -> cst.BaseStatement:
    return cst.parse_statement(text if text.endswith("\n") else text + "\n")


def stmts(text: str) -> list[cst.BaseStatement]:
    return list(cst.parse_module(text).body)


def block(statements: Sequence[cst.BaseStatement]) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=list(statements) or [stmt("pass")])


def body_of(suite: cst.BaseSuite | None) -> list[cst.BaseStatement]:
    """The statements of a block (an `Else`, an `If` used as elif, or None give what they hold)."""
    if suite is None:
        return []
    if isinstance(suite, cst.Else):
        return body_of(suite.body)
    if isinstance(suite, cst.If):
        return [suite]
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=list(suite.body))]  # type: ignore[attr-defined]


def assign(target: str, value: str | cst.BaseExpression) -> cst.SimpleStatementLine:
    value_node = expr(value) if isinstance(value, str) else value
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], value_node)])


def if_stmt(test: str | cst.BaseExpression, then: Sequence[cst.BaseStatement],
            orelse: Sequence[cst.BaseStatement] = ()) -> cst.If:
    test_node = expr(test) if isinstance(test, str) else test
    other = cst.Else(block(orelse)) if orelse else None
    return cst.If(test=test_node, body=block(then), orelse=other)


def as_bool(test: cst.BaseExpression, facts: Facts, original: cst.BaseExpression | None = None) -> cst.BaseExpression:
    """A loop test as a bool: `bool(test)` (a number's truth value, `x != 0`, NaN true) unless the
    analysis found it a bool already (`facts` are keyed by the original node, if `test` is new)."""
    val = facts.vals.get(original if original is not None else test)
    if val is not None and val.type is BOOL:
        return test
    return cst.Call(cst.Name("bool"), [cst.Arg(test)])


def paren(text: str) -> str:
    """Parenthesize unless the text is already atomic."""
    t = text.strip()
    if t.isidentifier() or is_number(t, signed=False) or (t.startswith("(") and _balanced_outer(t)):
        return t
    return f"({t})"


def _balanced_outer(t: str) -> bool:
    depth = 0
    for i, ch in enumerate(t):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i != len(t) - 1:
            return False
    return t.endswith(")")


# -- origins -----------------------------------------------------------------------------------
def leading(node: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    return getattr(node, "leading_lines", ())


def replace(old: cst.CSTNode, new: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """`new` stands for `old`: the first new statement takes over old's leading comments."""
    new = list(new)
    lines = list(leading(old))
    if new and lines:
        first = new[0]
        new[0] = first.with_changes(leading_lines=[*lines, *leading(first)])
    return new


def strip_leading(node: cst.BaseStatement) -> cst.BaseStatement:
    return node.with_changes(leading_lines=()) if leading(node) else node


def flatten(func: cst.FunctionDef, stmts_: Sequence[cst.BaseStatement]) -> cst.FunctionDef:
    return func.with_changes(body=func.body.with_changes(body=list(stmts_)))


class StatementTransformer(cst.CSTTransformer):
    """A transformer of compound statements and statement lines: it does not descend into a
    statement line or an expression (libcst rebuilds every node a transformer visits, and most
    nodes are there: ~30% of a cold transform went to passes that never change them)."""

    def on_visit(self, node: cst.CSTNode) -> bool:
        return super().on_visit(node) and not isinstance(node, _LEAVES)


_LEAVES = (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.BaseExpression)


def contains(node: cst.CSTNode, kinds: type | tuple[type, ...]) -> bool:
    """A node of one of `kinds` under `node`: a pass with nothing to do returns before its
    analysis (a few ms a pass on a cold transform)."""
    return any(isinstance(n, kinds) for n in walk(node))


def func_body(func: cst.FunctionDef) -> list[cst.BaseStatement]:
    return list(func.body.body)  # type: ignore[arg-type]


# -- checks ------------------------------------------------------------------------------------
def static_check(pred: str, constants: dict[str, object] | None = None) -> bool | None | str:
    """`static_node` of a predicate's text; the simplified predicate as text."""
    result = static_node(ast.parse(pred, mode="eval").body, constants)
    return result if isinstance(result, bool) else ast.unparse(result)


def static_node(pred: ast.expr, constants: dict[str, object] | None = None) -> bool | ast.expr:
    """Decide a check now where its literal parts allow: True/False, or the simplified predicate
    with the always-true conjuncts (and always-false disjuncts) removed. Module constants count
    as literals: the generated module carries their values as of the transform. `pred` is the
    array code's or the lane code's node."""
    if isinstance(pred, ast.Constant) and type(pred.value) is bool:
        return pred.value
    known = {k: v for k, v in (constants or {}).items() if type(v) in (int, float, bool)}
    ast.fix_missing_locations(ast.Expression(body=pred))  # compile() wants positions; built nodes have none
    return _decide(pred, {"__builtins__": {}, "np": np, **known})


def _decide(node: ast.expr, names: dict[str, object]) -> bool | ast.expr:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.BitOr):
        left, right = _decide(node.left, names), _decide(node.right, names)
        neutral = isinstance(node.op, ast.BitAnd)  # True is neutral for &, False for |
        for side, other in ((left, right), (right, left)):
            if isinstance(side, bool):
                return other if side is neutral else side
        return ast.BinOp(left, node.op, right)
    try:
        code_ = compile(ast.fix_missing_locations(ast.Expression(node)), "<check>", "eval")
        with np.errstate(all="ignore"):  # `np.inf - np.inf` in a literal check: no warning at transform time
            return bool(eval(code_, dict(names)))  # noqa: S307
    except NameError:
        return node
