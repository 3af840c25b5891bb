"""Specialize a function on the values that are the same for every lane and are not numbers.

Before (`method` given as "fast", `tol` omitted: its default None; `isIP()` a helper whose value
this call computed once, False)::

    if method == "fast":
        y = x * 2.0
    else:
        raise ValueError("unknown method")
    if tol is None:
        tol = 1e-12
    if isIP():
        y = y * 1.8
    return y + tol

After::

    y = x * 2.0
    tol = 1e-12
    return y + tol

Comparisons (`==`, `!=`, `is`, `is not`, `in`), truth tests, `not`, `and`/`or`, `x if c else y`,
`isinstance`/`type` of such values are computed here; an `if` whose test is decided keeps only
its taken branch (when the taken branch ends in `raise`, the chain stays with uniform literal
tests, `0 == 0` for the taken one and `0 != 0` before it, so its other branches are still there
to type the result, and every lane raises as the scalar loop's first does). A local assigned such a
value (`Method2 = "VDI"`) is one too, until it is assigned again; a name assigned in a loop or in
an undecided branch stops being one. Bools and ints among them become literals, a tuple of numbers
(`for p in tb`, `tb[i]`) the name of a table, as a module-level tuple is; any other read
that remains (a None used as a number, passed on to a call...) is refused with its position.
The specialized parameters leave the signature: the kernel takes the numbers alone.

The nodes off the path to a change keep their identity (positions, origin comments). Runs before
the fence's second, strict look (specialized_analysis.specialized), which refuses the strings and Nones left.
"""

from __future__ import annotations

import dataclasses
import enum

import libcst as cst

from ..core.binding import bound_names
from ..core.tree import target_names, walk
from ..errors import UnsupportedCallError, UnsupportedSyntaxError, VectorizeInputError
from ..frontend.namespace import Namespace
from ..frontend.parse import ParsedFunction
from ..frontend.sequence_values import numbers_only
from ..frontend.static_calls import Variants
from ..frontend.static_objects import describe, is_static_object
from ..frontend.static_values import UNKNOWN, Values, held, opaque
from . import specialize_apply, specialize_calls
from .specialize_apply import literal
from .specialize_noops import without_self_assignments


def specialize(parsed: ParsedFunction, ns: Namespace, statics: dict[str, object],
               helpers: dict[str, object], variants: Variants | None = None,
               home: dict | None = None, kinds: dict[str, str] | None = None) -> ParsedFunction:
    """`parsed` specialized on `statics` (parameter -> value) and `helpers` (zero-argument module
    function -> its value this call); itself when nothing applies. `variants`: the lowering's
    callees specialized on static arguments (frontend/static_calls.py), None to refuse such
    calls; `home`: a callee's own module globals."""
    func = parsed.func
    s = Specializer(parsed, ns, helpers, home)
    s.params = statics
    s.variants = variants
    s.kinds = dict(kinds or {})  # the lanes' kinds of the other parameters: their kind checks are decided
    if not statics and not s.relevant(func):
        return parsed
    s.block(func.body, dict(statics))
    targets = s.decisions.targets()
    if not targets and not statics:
        return parsed
    finder = specialize_apply.Path(targets)
    func.visit(finder)
    apply = specialize_apply.Apply(s.decisions, finder.on_path | {id(func)})
    new = func.visit(apply)
    specialize_calls.refuse_if_always_raising(s, new)
    p = new.params
    keep = [x for x in p.params if x.name.value not in statics]
    if keep and not p.kwonly_params:  # no dangling comma where a removed parameter came last
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    posonly = [x for x in p.posonly_params if x.name.value not in statics]
    kwonly = [x for x in p.kwonly_params if x.name.value not in statics]
    new = new.with_changes(params=p.with_changes(params=keep, posonly_params=posonly, kwonly_params=kwonly,
                                                 posonly_ind=p.posonly_ind if posonly else cst.MaybeSentinel.DEFAULT,
                                                 star_arg=p.star_arg if kwonly else cst.MaybeSentinel.DEFAULT,
                                                 star_kwarg=p.star_kwarg if not isinstance(p.star_kwarg, cst.Param)
                                                 or p.star_kwarg.name.value not in statics else None))
    positions = dict(parsed.positions)
    lines = dict(parsed.lines) if parsed.lines is not None else None
    for node, was in apply.moved:
        if was in positions:
            positions.setdefault(node, positions[was])
        if lines is not None and was in lines:
            lines.setdefault(node, lines[was])
    found = dataclasses.replace(parsed, func=new, lines=lines)
    found.__dict__["positions"] = positions  # the cached property, with the rebuilt nodes
    again = without_self_assignments(found)  # `T = T` left by `T if np.isscalar(T) else ...`: once more
    return found if again is None else specialize(again, ns, {}, helpers, variants, home, kinds)


class Specializer(Values):
    """Decides one function's specialization: walks its statements with `env` (name -> value
    decided now), evaluating with `Values` (frontend/static_values.py), and records what changes
    in `decisions` (specialize_apply.py applies them). Its attributes and calls are decided by
    specialize_calls.py, its calls of callables decided now by specialize_methods.py, both through
    `value`, `rewrite`, `refuse` and the tables here."""

    def __init__(self, parsed: ParsedFunction, ns: Namespace, helpers: dict[str, object], home: dict | None) -> None:
        super().__init__(parsed, ns, helpers, home)
        self.params: dict[str, object] = {}  # the specialized arguments
        self.variants: Variants | None = None
        self.decisions = specialize_apply.Decisions()
        self.raising: list[cst.Call] = []  # calls evaluated now that raise (frontend/static_calls.py)

    def relevant(self, func: cst.FunctionDef) -> bool:
        """Anything to decide without specialized arguments: a helper call, a string, None."""
        for node in walk(func.body):
            if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
                return True
            if isinstance(node, cst.Name) and (node.value == "None" or node.value in self.helpers):
                return True
            if isinstance(node, cst.Attribute | cst.Call) and specialize_calls.relevant(self, node):
                return True  # maybe decided now (passes/specialize_calls.py)
            if isinstance(node, cst.Call | cst.Comparison) and self.kind_check(node, {}) is not UNKNOWN:
                return True  # a kind check of a parameter: its dead branch goes
            if isinstance(node, cst.Attribute | cst.Call) and self.one_element(node, {}):
                return True  # `p.size` of a one-element array: 1
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and self.kinds \
                    and self.ns.resolve(node.func.value).kind == "function" and self.value(node, {}) is not UNKNOWN:
                return True  # `shape(a)`: decided by the lanes' kinds (frontend/kind_values.py)
        return False

    # -- statements ---------------------------------------------------------------------------
    def block(self, block: cst.BaseSuite, env: dict[str, object]) -> None:
        stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for i, stmt in enumerate(stmts):
            raised = len(self.raising)
            self.statement(stmt, env)
            if isinstance(stmt, cst.If) and self._returned(stmt):
                self.decisions.remove.update(stmts[i + 1:])  # after a decided branch that returns: never runs
                break
            if len(self.raising) > raised and specialize_calls.replaced_by_raise(stmt, self.decisions.replace):
                self.decisions.remove.update(stmts[i + 1:])  # after a statement every lane raises in: never runs
                break

    def statement(self, stmt: cst.CSTNode, env: dict[str, object]) -> None:
        if isinstance(stmt, cst.If):
            self.if_chain(stmt, env)
        elif isinstance(stmt, cst.While | cst.For):
            for name in bound_names(stmt):
                env.pop(name, None)
            raised = len(self.raising)
            self.rewrite(stmt.test if isinstance(stmt, cst.While) else stmt.iter, env)
            if len(self.raising) > raised:  # the first test (or the iterable) raises
                self.decisions.replace[stmt] = specialize_calls.raising_line(self.raising[raised], stmt)
                return
            self.block(stmt.body, env)
            for name in bound_names(stmt):
                env.pop(name, None)
        elif isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in stmt.body:
                raised = len(self.raising)
                self.small(small, stmt, env)
                if len(self.raising) > raised:
                    self.decisions.replace[small] = cst.Raise(exc=self.raising[raised])
                    break  # what follows it on the line never runs

    def _returned(self, top: cst.If) -> bool:
        """Whether the chain at `top` was decided on a branch that ends in `return`."""
        if top not in self.decisions.take or self.decisions.take[top][1]:
            return False
        node: cst.CSTNode | None = top
        for _ in range(self.decisions.take[top][0]):
            node = node.orelse  # type: ignore[union-attr]
        if node is None or (isinstance(node, cst.If) and not self.decisions.decided(top, self.decisions.take[top][0])):
            return False
        stmts = node.body.body if isinstance(node.body, cst.IndentedBlock) else [node.body]  # type: ignore[union-attr]
        last = stmts[-1] if stmts else None
        return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)

    def if_chain(self, top: cst.If, env: dict[str, object]) -> None:
        node: cst.If | cst.Else | None = top
        k = 0
        tests: list[cst.BaseExpression] = []
        while isinstance(node, cst.If):
            value = self.truth(node.test, env)
            if value is UNKNOWN:
                break
            tests.append(node.test)
            if value:
                break
            node, k = node.orelse, k + 1
        if node is not None and not (isinstance(node, cst.If) and value is UNKNOWN) and _raises(node.body):
            # The taken branch raises: the chain stays, its tests uniform literals canonicalize
            # keeps (`0 != 0`, `0 == 0`), so every branch is still there to type the result from.
            for i, test in enumerate(tests):
                self.decisions.replace[test] = _uniform(i == k and isinstance(node, cst.If))
            self.block(node.body, env)
            return
        if node is None or isinstance(node, cst.Else) or value is True:
            self.decisions.take[top] = (k, False)
            if node is not None:
                self.block(node.body, env)
            return
        if k:
            self.decisions.take[top] = (k, False)  # from this undecided `elif` on, the chain stays
        raised = len(self.raising)
        self.rewrite(node.test, env)
        if len(self.raising) > raised:  # this test raises on the lanes that reach it
            self.decisions.replace[node] = specialize_calls.raising_line(self.raising[raised], node) if node is top else \
                cst.Else(body=cst.IndentedBlock([specialize_calls.raising_line(self.raising[raised], node)]))
            return
        branches, rest = [], node.orelse
        branches.append(node.body)
        while rest is not None:
            if isinstance(rest, cst.If):
                raised = len(self.raising)
                self.rewrite(rest.test, env)
                if len(self.raising) > raised:  # from this `elif` on, the lanes that reach it raise
                    self.decisions.replace[rest] = cst.Else(body=cst.IndentedBlock([specialize_calls.raising_line(self.raising[raised], rest)]))
                    branches.append(rest.body)
                    break
                branches.append(rest.body)
                rest = rest.orelse
            else:
                branches.append(rest.body)
                rest = None
        tainted: set[str] = set()
        for body in branches:
            self.block(body, dict(env))
            tainted |= bound_names(body)
        for name in tainted:
            env.pop(name, None)

    def small(self, small: cst.BaseSmallStatement, line: cst.CSTNode, env: dict[str, object]) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            value = self.value(small.value, env)
            if value is not UNKNOWN and (held(value) or _number_tuple(value) and _derived(small.value, env)):
                env[name] = value  # (a tuple of numbers a kind-decided call gave: `s = shape(a)`, its reads decided)
                self.decisions.remove.add(small if len(line.body) > 1 else line)  # type: ignore[attr-defined]
                return
            self.rewrite(small.value, env)
            env.pop(name, None)
            if type(value) in (bool, int) and -2**63 <= value < 2**63 and _derived(small.value, env):
                env[name] = value  # `l = len(s)`: the statement stays (`l = 0`), its tests are decided
        elif isinstance(small, cst.Assign | cst.AugAssign | cst.AnnAssign):
            if small.value is not None:
                self.rewrite(small.value, env)
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            for t in targets:
                if isinstance(t, cst.Subscript):  # `a[mask] = v`: its index is a read (of a static, say)
                    for element in t.slice:
                        if isinstance(element.slice, cst.Index):
                            self.rewrite(element.slice.value, env)
                for name in target_names(t):
                    env.pop(name, None)
        elif isinstance(small, cst.Return) and small.value is not None:
            self.rewrite(small.value, env)
        elif isinstance(small, cst.Assert):
            self.rewrite(small.test, env)

    # -- expressions --------------------------------------------------------------------------
    def truth(self, node: cst.BaseExpression, env: dict[str, object]) -> object:
        value = self.value(node, env)
        if value is UNKNOWN:
            return UNKNOWN
        self.decisions.replace[node] = literal(bool(value), node)
        return bool(value)

    def rewrite(self, node: cst.BaseExpression, env: dict[str, object], call: cst.Call | None = None) -> None:
        """Replace the decided parts of `node` by literals; refuse a specialized value read as a number."""
        if isinstance(node, cst.Attribute | cst.Call | cst.Subscript) and specialize_calls.rewrite(self, node, env):
            return  # a decided attribute, call or table item, or a call of a copy specialized on its static arguments
        if isinstance(node, cst.Name | cst.Integer | cst.Float | cst.SimpleString):
            value = self.value(node, env)
            if isinstance(node, cst.Name) and node.value in env:
                if isinstance(value, bool | int) and not opaque(value):
                    self.decisions.replace[node] = literal(value, node)
                elif isinstance(value, float) and value == value and abs(value) != float("inf"):
                    self.decisions.replace[node] = literal(value, node)
                elif call is None and isinstance(value, tuple) and value and numbers_only(value):  # a table, as a
                    taken = self.locals | set(self.ns.globals or ())  # module-level tuple is: `for p in tb`
                    self.decisions.replace[node] = cst.Name(self.ns.define_table(node.value.upper(), value, taken))
                else:
                    hint = (f"only tests of it are decided when the code is generated ({node.value} is None, "
                            f'{node.value} == "fast", if {node.value}:); pass numbers for anything computed')
                    if call is not None:
                        callee = cst.Module([]).code_for_node(call.func)
                        self.refuse(node, f"{node.value!r} is {describe(value)} here, a value the code is specialized on, and "
                                    f"it is passed on to {callee}(), which is not specialized on it",
                                    f"test it in {self.parsed.name!r} and call {callee}() with numbers only",
                                    UnsupportedCallError)
                    if self.params.get(node.value, UNKNOWN) is value:  # still the argument: a bad input
                        raise VectorizeInputError(f"argument {node.value!r} is {describe(value)} here, and the code uses it "
                                                  "as a number", self.parsed.location(node), hint=hint)
                    if is_static_object(value):
                        hint = (f"only attributes stored on it ({node.value}.name) are read when the code is generated; "
                                "pass numbers for anything computed")
                    self.refuse(node, f"{node.value!r} is {describe(value)} here, a value the code is specialized on", hint)
            return
        if isinstance(node, cst.Comparison | cst.UnaryOperation | cst.BooleanOperation | cst.Call | cst.IfExp):
            value = self.value(node, env)
            if value is not UNKNOWN and isinstance(value, bool | int) and not isinstance(value, enum.Enum):
                self.decisions.replace[node] = literal(value, node)
                return
            if isinstance(node, cst.BooleanOperation):
                left = self.value(node.left, env)
                if left is not UNKNOWN and bool(left) != isinstance(node.operator, cst.Or):
                    self.rewrite(node.right, env)  # `method and x > 0` with a truthy method: `x > 0`
                    self.decisions.pick[node] = "right"
                    return
            if isinstance(node, cst.IfExp):
                test = self.truth(node.test, env)
                if test is not UNKNOWN:
                    chosen = node.body if test else node.orelse
                    self.rewrite(chosen, env)
                    self.decisions.pick[node] = "body" if test else "orelse"
                    return
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.rewrite(child, env)
            elif isinstance(child, cst.Arg | cst.ComparisonTarget | cst.Element | cst.SubscriptElement):
                for sub in child.children:
                    if isinstance(child, cst.Arg) and sub is child.keyword:
                        continue  # `deg=deg`: the keyword is no read of the name
                    if isinstance(sub, cst.BaseExpression):
                        self.rewrite(sub, env, node if isinstance(node, cst.Call) and isinstance(child, cst.Arg) else None)
                    elif isinstance(sub, cst.Index):
                        self.rewrite(sub.value, env)

    def refuse(self, node: cst.CSTNode, message: str, hint: str, cls: type = UnsupportedSyntaxError) -> None:
        raise cls(message, self.parsed.location(node), hint=hint, construct=type(node).__name__)


def _number_tuple(value: object) -> bool:
    return isinstance(value, tuple) and all(type(v) in (bool, int, float) for v in value)


def _derived(node: cst.BaseExpression, env: dict[str, object]) -> bool:
    """Whether `node` is a call, or reads a name the specialization holds: a value decided from
    the call's values, not a literal the function starts a variable with."""
    return isinstance(node, cst.Call) or any(isinstance(n, cst.Name) and n.value in env for n in walk(node))


def _raises(body: cst.BaseSuite) -> bool:
    stmts = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = stmts[-1] if stmts else None
    return isinstance(last, cst.SimpleStatementLine | cst.SimpleStatementSuite) and isinstance(last.body[-1], cst.Raise)


def _uniform(value: bool) -> cst.Comparison:
    return cst.Comparison(cst.Integer("0"), [cst.ComparisonTarget(cst.Equal() if value else cst.NotEqual(), cst.Integer("0"))])

