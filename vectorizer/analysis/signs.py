"""Signs of expressions, from their shape alone: checks that need an operand of the other sign go.

`math.exp(-0.5 * x * x)` cannot overflow, whatever `x` is: its operand is a product with `x`
twice and one negative constant, so it is <= 0 or NaN, and exp's overflow test (`t > 709.7`)
cannot hold. `math.sqrt(x * x + y * y)` cannot raise for the same reason. Dropping such checks
matters in loops: on the Numba backend a lane function with no check returns a plain value and
its caller's loop has no exit to test (simpson_gauss: 33 exps a lane).

NaN satisfies every sign here (no comparison with NaN holds, so no check fires on it) and so does
-0.0. Only shapes whose sign holds for every value are recognised:

* number literals; `-e`, `+e`; library calls that never return a negative number
  (rules.NONNEGATIVE_CALLS);
* a product or quotient of factors, each of known sign or appearing an even number of times as
  the same name (`x * x`, `-0.5 * x * x`, `-x * x / (y * y)`; only names pair up, not calls);
* `e ** k` for an even integer literal `k`;
* sums and differences whose terms agree (`a + b` with both >= 0, `a - b` with a >= 0, b <= 0).

With an `Env` (the NumPy lowering passes one) names and tests tell too. A name bound once, at the
top of the body, has its value's sign; a parameter never bound again, or such a name, is *fixed*:
one value a lane, so a test of it says the same wherever its result is used. Under a test of a
fixed name against a number its arms know its sign: in `-x if x > 0.0 else x` (what
share_branch_math makes of softplus's two `exp` calls) `x >= 0` where the test holds and
`x <= 0 or NaN` where it fails, so both arms are <= 0 or NaN and `exp`'s overflow test goes.

A divisor can also be known never to be zero: a positive literal plus terms >= 0 (`1.0 +
math.exp(-x)`: rounding is monotonic, so the sum is at least the literal). Its ZeroDivisionError
check goes, and with it the need to compute the divisor exactly (analysis/decisions.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

import libcst as cst

from ..core.tree import walk
from ..rules.base import Impl
from ..rules.scalar import NONNEGATIVE_CALLS

NONNEG, NONPOS = 1, -1
CallName = Callable[[cst.Call], "str | None"]  # "math.exp", "abs"...; None for a user function
_DEPTH = 8  # names followed to their values at most this deep (a chain of temporaries)


@dataclasses.dataclass(frozen=True)
class Env:
    """What a function's own statements tell about its names: `values`, the names bound once, by
    a plain `name = value` at the top of the body (no loop or branch around it), and `fixed`,
    those and the parameters never bound again: each has one value a lane, so a test of it holds
    wherever the test's result is used."""

    values: dict[str, cst.BaseExpression]
    fixed: frozenset[str]


def sign_env(func: cst.FunctionDef, params: Iterable[str]) -> Env:
    """The `Env` of `func` (its parameters named `params`)."""
    bound: dict[str, int] = {}
    for node in walk(func.body):
        for target in _targets(node):
            for name in walk(target):
                if isinstance(name, cst.Name):  # every name in a target (`a[i] = ...` too): the safe side
                    bound[name.value] = bound.get(name.value, 0) + 1
    params = frozenset(params)
    values: dict[str, cst.BaseExpression] = {}
    for statement in func.body.body:  # type: ignore[union-attr]
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            small = statement.body[0]
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                name = small.targets[0].target.value
                if bound.get(name) == 1 and name not in params:  # a parameter bound again has two values
                    values[name] = small.value
    return Env(values, frozenset(values) | {p for p in params if p not in bound})


def _targets(node: cst.CSTNode) -> list[cst.CSTNode]:
    """What `node` binds names in (assignment, loop and `with` targets, walrus, del, imports,
    except names, global/nonlocal, parameters of nested functions and lambdas)."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, cst.AugAssign | cst.AnnAssign | cst.For | cst.CompFor | cst.NamedExpr | cst.Del):
        return [node.target]
    if isinstance(node, cst.AsName | cst.ImportAlias):
        return [node]
    if isinstance(node, cst.ExceptHandler | cst.Param):
        return [] if node.name is None else [node.name]
    if isinstance(node, cst.Global | cst.Nonlocal):
        return [n.name for n in node.names]
    return []


def sign(node: cst.BaseExpression, call_name: CallName, env: Env | None = None) -> int | None:
    """NONNEG (>= 0 or NaN), NONPOS (<= 0 or NaN), or None when the shape does not tell; with
    `env`, names bound once and the tests of conditional expressions tell too."""
    return _sign(node, call_name, env, {}, 0)


def _sign(node: cst.BaseExpression, call_name: CallName, env: Env | None, assumed: dict[str, int], depth: int) -> int | None:
    if isinstance(node, cst.Integer | cst.Float):
        value = float(node.evaluated_value)
        return NONNEG if value >= 0 else NONPOS
    if isinstance(node, cst.Name):
        return _name_sign(node.value, call_name, env, assumed, depth)
    if isinstance(node, cst.UnaryOperation):
        inner = _sign(node.expression, call_name, env, assumed, depth)
        if isinstance(node.operator, cst.Minus):
            return None if inner is None else -inner
        return inner if isinstance(node.operator, cst.Plus) else None
    if isinstance(node, cst.Call):
        return NONNEG if call_name(node) in NONNEGATIVE_CALLS else None
    if isinstance(node, cst.IfExp) and env is not None:
        facts = _test_facts(node.test, env, depth)
        if facts is None:
            return None
        yes = _sign(node.body, call_name, env, {**assumed, **facts[0]}, depth + 1)
        no = _sign(node.orelse, call_name, env, {**assumed, **facts[1]}, depth + 1)
        return yes if yes is not None and yes == no else None
    if isinstance(node, cst.BinaryOperation):
        op = node.operator
        if isinstance(op, cst.Multiply | cst.Divide):
            return _product(node, call_name, env, assumed, depth)
        if isinstance(op, cst.Power):
            k = node.right
            even = isinstance(k, cst.Integer) and int(k.evaluated_value) % 2 == 0
            return NONNEG if even else None
        if isinstance(op, cst.Add | cst.Subtract):
            left = _sign(node.left, call_name, env, assumed, depth)
            right = _sign(node.right, call_name, env, assumed, depth)
            if left is None or right is None:
                return None
            right = right if isinstance(op, cst.Add) else -right
            return left if left == right else None
    return None


def _name_sign(name: str, call_name: CallName, env: Env | None, assumed: dict[str, int], depth: int) -> int | None:
    """A name's sign: assumed under a test that holds (or fails), else its one value's."""
    if name in assumed:
        return assumed[name]
    if env is None or depth >= _DEPTH or name not in env.values:
        return None
    return _sign(env.values[name], call_name, env, assumed, depth + 1)


def _test_facts(test: cst.BaseExpression, env: Env, depth: int) -> tuple[dict[str, int], dict[str, int]] | None:
    """The signs a test tells where it holds and where it fails, or None: a comparison of a fixed
    name with a number (`x > 0.0`: x >= 0 where it holds; x <= 0 or NaN where it fails), `not`
    of one, or a name bound to one. NaN fails every comparison but `!=`, and has every sign."""
    if isinstance(test, cst.Name):
        value = env.values.get(test.value)
        return None if value is None or depth >= _DEPTH else _test_facts(value, env, depth + 1)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        facts = _test_facts(test.expression, env, depth + 1)
        return None if facts is None else (facts[1], facts[0])
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
    k = literal_number(right)
    if k is None:
        k, left, op = literal_number(left), right, MIRRORED.get(op, op)
    if k is None or not isinstance(left, cst.Name) or left.value not in env.fixed:
        return None
    holds, fails = _COMPARE_SIGNS.get(op, (None, None))
    yes, no = (holds(k) if holds else None), (fails(k) if fails else None)
    name = left.value
    return ({name: yes} if yes else {}), ({name: no} if no else {})


def literal_number(node: cst.BaseExpression) -> float | None:
    """A number literal's value (`-1.5` too), else None."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        inner = literal_number(node.expression)
        return None if inner is None else -inner if isinstance(node.operator, cst.Minus) else inner
    return float(node.evaluated_value) if isinstance(node, cst.Integer | cst.Float) else None


def _at_least(k: float) -> int | None:  # x > k or x >= k
    return NONNEG if k >= 0 else None


def _at_most(k: float) -> int | None:  # x < k, x <= k, or NaN
    return NONPOS if k <= 0 else None


def _equal(k: float) -> int:
    return NONNEG if k >= 0 else NONPOS


MIRRORED = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan, cst.LessThanEqual: cst.GreaterThanEqual,
             cst.GreaterThanEqual: cst.LessThanEqual}
_COMPARE_SIGNS = {  # (the sign where `x op k` holds, where it fails), as functions of k
    cst.GreaterThan: (_at_least, _at_most), cst.GreaterThanEqual: (_at_least, _at_most),
    cst.LessThan: (_at_most, _at_least), cst.LessThanEqual: (_at_most, _at_least),
    cst.Equal: (_equal, None), cst.NotEqual: (None, _equal),
}


def _product(node: cst.BinaryOperation, call_name: CallName, env: Env | None, assumed: dict[str, int],
             depth: int) -> int | None:
    factors: list[cst.BaseExpression] = []
    negations = _factors(node, factors)
    names: dict[str, int] = {}
    result = NONPOS if negations % 2 else NONNEG
    for f in factors:
        if isinstance(f, cst.Name):
            names[f.value] = names.get(f.value, 0) + 1
            continue
        s = _sign(f, call_name, env, assumed, depth)
        if s is None:
            return None
        result *= s
    for name, count in names.items():
        if count % 2:  # an unpaired name: its own sign decides, if anything tells it
            s = _name_sign(name, call_name, env, assumed, depth)
            if s is None:
                return None
            result *= s
    return result


def _factors(node: cst.BaseExpression, out: list[cst.BaseExpression]) -> int:
    """Collect the factors of a product or quotient; the number of negations among them
    (`-x * x`: factors x, x and one negation)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply | cst.Divide):
        return _factors(node.left, out) + _factors(node.right, out)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return 1 + _factors(node.expression, out)
    out.append(node)
    return 0


def positive(node: cst.BaseExpression, call_name: CallName) -> bool:
    """> 0 or NaN for every value (never 0): a positive literal, or a sum of one and terms >= 0."""
    if isinstance(node, cst.Integer | cst.Float):
        return float(node.evaluated_value) > 0
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Plus):
        return positive(node.expression, call_name)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return (positive(node.left, call_name) and sign(node.right, call_name) == NONNEG) \
            or (sign(node.left, call_name) == NONNEG and positive(node.right, call_name))
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        return positive(node.left, call_name) and sign(node.right, call_name) == NONPOS
    return False


def without_zero_divisor(impl: Impl, node: cst.BaseExpression, call_name: CallName) -> Impl:
    """`impl` for `node` less its zero-divisor check where the divisor is `positive`."""
    if not (isinstance(node, cst.BinaryOperation) and any(c.divisor for c in impl.checks)
            and positive(node.right, call_name)):
        return impl
    return dataclasses.replace(impl, checks=tuple(c for c in impl.checks if not c.divisor))


def within_unit(node: cst.BaseExpression, call_name: CallName, env: Env | None = None, depth: int = 0) -> bool:
    """In [-1, 1] or NaN for every value, NumPy's or CPython's (asin's and acos's domain checks
    go): a literal in it; `-u`, `+u`, `abs(u)` and products of such; `math.sqrt(y)` with `y <= 1`
    or NaN (sqrt is >= 0 and correctly rounded: sqrt(1.0) is 1.0); `min`/`max` of such (each
    returns one of its operands). Approximate functions are not trusted to stay within 1."""
    if depth >= _DEPTH:
        return False
    k = literal_number(node)
    if k is not None:
        return abs(k) <= 1
    if isinstance(node, cst.Name):
        return env is not None and node.value in env.values and within_unit(env.values[node.value], call_name, env, depth + 1)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus | cst.Plus):
        return within_unit(node.expression, call_name, env, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return within_unit(node.left, call_name, env, depth + 1) and within_unit(node.right, call_name, env, depth + 1)
    if isinstance(node, cst.Call) and node.args and all(a.keyword is None and not a.star for a in node.args):
        name, args = call_name(node), [a.value for a in node.args]
        if name in ("abs", "math.fabs", "min", "max"):
            return all(within_unit(a, call_name, env, depth + 1) for a in args)
        if name == "math.sqrt" and len(args) == 1:
            return _at_most_one(args[0], call_name, env, depth + 1)
    return False


def _at_most_one(node: cst.BaseExpression, call_name: CallName, env: Env | None, depth: int) -> bool:
    """<= 1 or NaN for every value: within_unit, a literal, or `min(...)` with a literal <= 1
    among its operands (Python's `min` keeps a running value that only goes down once at or
    below that literal, or stays NaN; NumPy's minimum is NaN or at most both)."""
    k = literal_number(node)
    if k is not None:
        return k <= 1
    if isinstance(node, cst.Name):
        return env is not None and node.value in env.values and _at_most_one(env.values[node.value], call_name, env, depth + 1)
    if isinstance(node, cst.Call) and call_name(node) == "min" and all(a.keyword is None and not a.star for a in node.args):
        if any((k := literal_number(a.value)) is not None and k <= 1 for a in node.args):
            return True
    return within_unit(node, call_name, env, depth)
