"""What the analysis finds (`Facts`, side tables keyed by the nodes of the analyzed tree), the
environment it tracks (`Env`: name -> `Binding`) and how environments join where paths meet, and
the operator tables the analysis and the passes share.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ..core.types import ArrayType, TupleType, Type, Val, join
from ..errors import VectorizeTypeError
from ..frontend.namespace import Global, Namespace
from . import arrays

INT64_MAX = 2**63 - 1
BINOPS = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**", cst.BitAnd: "&", cst.BitOr: "|", cst.BitXor: "^",
    cst.LeftShift: "<<", cst.RightShift: ">>", cst.MatrixMultiply: "@",
}
UNOPS = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~", cst.Not: "not"}
COMPARES = {
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
    cst.Equal: "==", cst.NotEqual: "!=",
}


@dataclass(frozen=True)
class Binding:
    val: Val
    maybe_unbound: bool = False


Env = dict[str, Binding]


@dataclass
class Facts:
    """Side tables produced by one analysis run."""

    vals: dict[cst.CSTNode, Val] = field(default_factory=dict)  # every analyzed expression
    batched_test: dict[cst.CSTNode, bool] = field(default_factory=dict)  # If / While / For nodes
    loop_header: dict[cst.CSTNode, Env] = field(default_factory=dict)  # While / For -> env at the test
    loop_entry: dict[cst.CSTNode, Env] = field(default_factory=dict)  # While / For -> env before the loop
    env_before: dict[cst.CSTNode, Env] = field(default_factory=dict)  # statement -> env before it
    returns: list[tuple[Val, ...]] = field(default_factory=list)
    result: tuple[Val, ...] = ()  # joined return values (one per tuple item)
    returns_tuple: bool = False
    calls: dict[cst.Call, Global] = field(default_factory=dict)  # same-module function calls
    stores: dict[cst.Subscript, bool] = field(default_factory=dict)  # x[i] = v -> x batched after it
    one_d_stores: dict[cst.Subscript, Val] = field(default_factory=dict)  # a[mask] = v into a one-element a -> a
    one_d_reads: set[cst.Subscript] = field(default_factory=set)  # a[mask] of a one-element a (one_d_masks.py)
    # If -> (env at the end of the then branch, of the else branch (or the fall-through), after
    # the if); None where a branch leaves. A uniform if's branches may store a value differently.
    branch_ends: dict[cst.If, tuple[Env | None, Env | None, Env | None]] = field(default_factory=dict)

    def val(self, node: cst.CSTNode) -> Val:
        return self.vals[node]

    def type(self, node: cst.CSTNode) -> Type:
        t = self.vals[node].type
        assert isinstance(t, Type), t
        return t


# -- joins: where paths meet ---------------------------------------------------------------
def join_val(a: Val, b: Val) -> Val:
    """The value a name holds where two paths meet."""
    if isinstance(a.type, TupleType) or isinstance(b.type, TupleType):
        if a.type != b.type:
            raise VectorizeTypeError("a name holds tuples of different shapes on different paths",
                                     hint="keep tuple values in separate variables")
        return Val(a.type, a.batched or b.batched)
    if isinstance(a.type, ArrayType) or isinstance(b.type, ArrayType):
        return arrays.join(a, b)
    same_const = a.const is not None and a.const == b.const and type(a.const) is type(b.const)
    zero_d = a.zero_d if a.zero_d == b.zero_d else None  # a 0-d array on one path only: `**` is refused
    one_d = a.one_d if a.one_d == b.one_d else None  # a one-element array on one path only (analysis/one_d.py)
    return Val(join(a.type, b.type), a.batched or b.batched, a.const if same_const else None,
               a.numpy and b.numpy or bool(one_d), zero_d=zero_d, one_d=one_d)


def join_env(a: Env | None, b: Env | None, *, batched: bool) -> Env | None:
    """Where two paths meet. Under a batched test, every name either path (re)assigned is
    per-lane afterwards; names neither path touched keep their `Binding` object."""
    if a is None or b is None:
        return b if a is None else a  # the lanes that left (return/raise/break) carry nothing on
    out: Env = {}
    for name in a.keys() | b.keys():
        x, y = a.get(name), b.get(name)
        if x is y:
            out[name] = x  # type: ignore[assignment]
        elif x is None or y is None:
            bind = x or y
            out[name] = Binding(bind.val.with_batched(bind.val.batched or batched), True)  # type: ignore[union-attr]
        else:
            try:
                val = join_val(x.val, y.val)
            except VectorizeTypeError as exc:
                raise VectorizeTypeError(f"{name!r}: {exc.message}", hint=exc.hint) from None
            out[name] = Binding(val.with_batched(True) if batched else val, x.maybe_unbound or y.maybe_unbound)
    return out


def join_many(envs: list[Env | None], batched: bool = False) -> Env | None:
    out: Env | None = None
    for env in envs:
        out = env if out is None else join_env(out, env, batched=batched)
    return out


def literal_range_length(it: cst.BaseExpression, namespace: Namespace) -> int | None:
    """The length of `range(...)` of int literals (`range(0)`, `range(0, 3)`), else None. The
    analysis and canonicalize both decide on literals only, so that they agree on what runs."""
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"
            and namespace.resolve("range").kind == "builtin"):
        return None
    if not it.args or any(a.keyword or a.star for a in it.args):
        return None
    bounds = [_literal_int(a.value) for a in it.args]
    if None in bounds or (len(bounds) == 3 and bounds[2] == 0):
        return None
    return len(range(*bounds))  # type: ignore[arg-type]


def empty_range(it: cst.BaseExpression, namespace: Namespace) -> bool:
    """A loop over it never runs its body nor binds its target."""
    return literal_range_length(it, namespace) == 0


def _literal_int(node: cst.BaseExpression) -> int | None:
    """An int literal, possibly negated (`-3`)."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        sign, node = -1, node.expression
    if isinstance(node, cst.Integer):
        return sign * int(node.evaluated_value)
    return None


def storage_types(facts: Facts, params: dict[str, Val]) -> dict[str, Type]:
    """The type each local name is stored as where its paths meet (Numba unifies the same way)."""
    local = set(params)
    for env in facts.env_before.values():
        local |= env.keys()
    out: dict[str, Type] = {}
    for node, val in facts.vals.items():
        if isinstance(node, cst.Name) and node.value in local and isinstance(val.type, Type):
            out[node.value] = join(out[node.value], val.type) if node.value in out else val.type
    return out
