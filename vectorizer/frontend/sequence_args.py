"""A sequence of numbers that is the same for every lane and known when the code is generated,
passed to a function of the module, specializes the callee on it (part of frontend/desugar.py,
first of its rewrites; issue 51). The Cephes pattern (pyerf, ports of scipy.special). Before::

    P0 = [-59.96, 98.0, -56.67]                  # module level (a list: watched for changes)

    def _polevl(x, coefs, N):
        ans = 0
        power = len(coefs) - 1
        for coef in coefs:
            ans += coef * x**power
            power -= 1
        return ans

    def _p1evl(x, coefs, N):
        return _polevl(x, [1] + coefs, N)

    def f(y):
        return _p1evl(y, P0, 2)

After (`_seq_f` ... constants of the namespace, as module-level tuples are; `_p1evl__coefs_1` a
function of the namespace: `_p1evl`'s source, prepared with `coefs` bound to P0's list)::

    def f(y):
        return _p1evl__coefs_1(y, 0, 2)

    def _p1evl__coefs_1(x, coefs, N):            # `[1] + coefs` computed by Python on the list
        return _polevl__coefs_1(x, 0, N)

    def _polevl__coefs_1(x, coefs, N):
        ans = 0
        power = 4 - 1
        for coef in _seq__polevl:
            ...

The sequences and their operations are frontend/sequence_values.py's. In the specialized callee
the parameter is never read again (the argument passed is 0): `for v in p` (and a comprehension's,
`enumerate(p)`, `zip(p, ...)`) loops over a table, `p[i]` reads it (IndexError where Python
raises it), `x in p` tests it, `len(p)` is a number, and `p` or an expression of it passed to a
function of the module specializes that one in turn. Any other use (a method such as `append` or
`sort`, an item assigned, the parameter rebound, passed to anything else, returned) is refused
there: the callee could mutate the list or keep it. A local display is taken only where every use
is one of those; otherwise it is left to the other rules. A function of another module (linked:
frontend/linking.py) is specialized the same way; its copy reads the names of its own module. A sequence Python cannot compute
(`(1,) + [2]`: TypeError) makes its statement `raise TypeError(<Python's message>)` where it is
evaluated unconditionally and before anything else in the statement that may raise; elsewhere it
is refused. The copies are keyed by the callee and the sequences' types and values (two
coefficient lists, or 0.0 and -0.0: two copies; frontend/sequence_copies.py).
"""

from __future__ import annotations

from collections import Counter

import libcst as cst

from ..core.binding import bindings
from ..errors import UnsupportedSyntaxError
from .namespace import Namespace
from .parse import ParsedFunction
from .paths import PathTransformer
from .sequence_copies import callee_params, reads_only, specialize
from .sequence_values import Raised, Sequences, display
from .source import FunctionSource

_DEEPEST = 24  # specializations a chain of calls may make (a recursion that grows its list: refused)
# What may stand between a statement and an expression evaluated, unconditionally, in its order.
_IN_ORDER = (cst.Return, cst.Assign, cst.Expr, cst.Call, cst.Arg, cst.BinaryOperation, cst.UnaryOperation,
             cst.Tuple, cst.List, cst.Element, cst.Subscript, cst.SubscriptElement, cst.Index)
_NESTED = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal)


def rewrite(parsed: ParsedFunction, func: cst.FunctionDef, ns: Namespace) -> tuple[cst.FunctionDef, dict]:
    """`func` with its sequence arguments specialized on (itself when none), and the rebuilt nodes."""
    entry = next((e for e in ns.sequence_specs.values() if e[0] is parsed.source), None)
    params = entry[1] if entry is not None else {}
    depth = entry[3] if params else 0
    nested = any(isinstance(n, _NESTED) for n in _walk(func.body))
    if nested and not params:
        return func, {}
    binds = Counter(bindings(func.body, comprehensions=True))
    local = set(binds) | _param_names(func)
    for name in params:
        if binds.get(name) or nested:
            why = "rebound in the function" if binds.get(name) else "read by a nested function or lambda"
            raise UnsupportedSyntaxError(f"'{name}' holds a sequence of numbers passed in, and is {why}",
                                         parsed.location(func), hint=f"only read '{name}' (for, len, [i], in)")
    known: dict = dict(params)
    known.update(_displays(func, binds, set(params)))
    uses = _Uses(parsed, ns, Sequences(ns, known, local), set(params), local)
    uses.visit(func.body, None, None)
    dropped = uses.dropped
    while dropped:  # a local display used otherwise: left to the other rules, and read again without it
        for name in dropped:
            known.pop(name)
        uses = _Uses(parsed, ns, Sequences(ns, known, local), set(params), local)
        uses.visit(func.body, None, None)
        dropped = uses.dropped
    if not uses.replace and not uses.calls:
        return func, {}
    change = _Change(uses.replace, uses.calls)
    for call, args in uses.calls.items():
        if depth >= _DEEPEST:
            raise UnsupportedSyntaxError("this call specializes a function on a sequence too many times over "
                                         f"(a chain of {_DEEPEST})", parsed.location(call), hint="pass a module-level tuple")
        change.names[call] = specialize(ns, call.func.value, args, depth, local)  # type: ignore[attr-defined]
    new = change.rewrite(func.body)
    out = func.with_changes(body=new)
    change.rebuilt[id(out)] = (out, func)
    return out, change.rebuilt


def _param_names(func: cst.FunctionDef) -> set[str]:
    p = func.params
    return {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _displays(func: cst.FunctionDef, binds: Counter, params: set[str]) -> dict:
    """Local names bound once, at the top level, to a display of number literals, not read before."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else []
    found: dict = {}
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)):
            continue
        small = stmt.body[0]
        if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            continue
        name, value = small.targets[0].target.value, display(small.value)
        if value is None or binds.get(name) != 1 or name in params or name in _param_names(func):
            continue
        if any(isinstance(n, cst.Name) and n.value == name for s in body[:i] for n in _walk(s)):
            continue
        found[name] = value
    return found


class _Uses:
    """Each sequence expression of the function and where it is used: `replace` (node -> what
    stands for it), `calls` (call -> {argument index or keyword: value}); `dropped`: local
    displays used in another way. A parameter used in another way is refused."""

    def __init__(self, parsed: ParsedFunction, ns: Namespace, seqs: Sequences, params: set[str], local: set[str]) -> None:
        self.parsed, self.ns, self.seqs, self.params, self.local = parsed, ns, seqs, params, local
        self.parsed_params = _param_names(parsed.func)
        self.replace: dict[int, cst.CSTNode] = {}
        self.calls: dict[cst.Call, dict] = {}
        self.dropped: set[str] = set()
        self.stores: set[int] = set()
        self.stack: list[cst.CSTNode] = []  # the nodes above the one visited

    def visit(self, node: cst.CSTNode, parent: cst.CSTNode | None, grand: cst.CSTNode | None) -> None:
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.Del | cst.For | cst.CompFor | cst.AnnAssign):
            target = node.target
            self.stores.update(id(n) for n in _walk(target) if isinstance(n, cst.Subscript))
        skip = isinstance(parent, cst.Attribute) and parent.attr is node or isinstance(parent, cst.Arg) \
            and parent.keyword is node or isinstance(parent, cst.AssignTarget)
        if isinstance(node, cst.BaseExpression) and not skip:
            value = self.seqs.value(node)
            if value is not None:
                self._use(node, value, parent, grand)
                return
        self.stack.append(node)
        for child in node.children:
            self.visit(child, node, parent)
        self.stack.pop()

    def _use(self, node: cst.BaseExpression, value, parent, grand) -> None:  # noqa: ANN001, C901
        names = {n.value for n in _walk(node) if isinstance(n, cst.Name)}
        mine = names & set(self.seqs.known)
        plain = isinstance(node, cst.Name | cst.Tuple | cst.List) and not (mine & self.params)  # the other rules'
        where = self.parsed.location(node)
        if isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and not parent.star and self._callee(grand):
            if isinstance(value, Raised):
                return self._raises(node, value, where)
            ordered, callee = callee_params(self.ns, grand.func.value)  # type: ignore[attr-defined]
            index = grand.args.index(parent)
            key = parent.keyword.value if parent.keyword is not None else ordered[index] if index < len(ordered) else None
            if key is not None and (isinstance(value, list) or reads_only(callee, key)):
                self.calls.setdefault(grand, {})[key] = value
                self.replace[id(node)] = cst.Integer("0")
                return
        table = isinstance(parent, cst.For | cst.CompFor) and parent.iter is node \
            or isinstance(parent, cst.Subscript) and parent.value is node and id(parent) not in self.stores \
            and len(parent.slice) == 1 and isinstance(parent.slice[0].slice, cst.Index) \
            or isinstance(parent, cst.ComparisonTarget) and parent.comparator is node \
            and isinstance(parent.operator, cst.In | cst.NotIn) \
            or isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and self._builtin(grand, ("enumerate", "zip"))
        length = isinstance(parent, cst.Arg) and isinstance(grand, cst.Call) and self._builtin(grand, ("len",)) \
            and len(grand.args) == 1
        if (table or length) and isinstance(value, Raised):
            return self._raises(node, value, where)
        if table or length:
            if not plain:
                self.replace[id(grand if length else node)] = cst.Integer(str(len(value))) if length else cst.Name(
                    self.ns.define_table(f"_seq_{self.parsed.name}", tuple(value), self.local))
            return
        if mine & self.params:
            name = sorted(mine & self.params)[0]
            what = f"'{name}.{parent.attr.value}'" if isinstance(parent, cst.Attribute) else "this use"
            raise UnsupportedSyntaxError(
                f"'{name}' holds a sequence of numbers passed in; {what} may change or keep it, or is not one "
                "vectorizer keeps exact", where,
                hint=f"only read '{name}': 'for v in {name}', len({name}), {name}[i], x in {name}, or pass it to a "
                "function of the module")
        self.dropped |= mine - self.params

    def _raises(self, node: cst.BaseExpression, value: Raised, where) -> None:  # noqa: ANN001
        """The statement holding `node`, which Python cannot compute, raises as Python does there
        when `node` is evaluated unconditionally and first to raise in it (what comes before it:
        names of parameters and of the module, literals); otherwise refused."""
        at = next((k for k in range(len(self.stack) - 1, -1, -1)
                   if isinstance(self.stack[k], cst.SimpleStatementLine | cst.For)), None)
        stmt = None if at is None else self.stack[at]
        inside = {id(n) for n in _walk(node)}
        if isinstance(stmt, cst.For):
            first = id(stmt.iter) in inside or any(n is stmt.iter for n in self.stack)
            region: cst.CSTNode = stmt.iter
        else:
            first = stmt is not None and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Return | cst.Assign | cst.Expr)
            region = stmt.body[0].value if first else node  # type: ignore[union-attr]
        above = self.stack[at + 1:] if at is not None else []
        first = first and all(isinstance(n, _IN_ORDER) for n in above) and all(
            self._safe(n) for n in _walk(region) if id(n) not in inside and not any(n is a for a in above))
        if not first:
            raise UnsupportedSyntaxError(f"Python raises {type(value.exc).__name__} here ({value.exc}), after what "
                                         "comes before it in this statement", where, hint="fix the expression")
        text = f"{type(value.exc).__name__}({str(value.exc)!r})"
        raised = cst.SimpleStatementLine([cst.Raise(cst.parse_expression(text))])
        self.replace[id(stmt)] = raised if isinstance(stmt, cst.For) else stmt.with_changes(body=raised.body)  # type: ignore[union-attr]

    def _safe(self, node: cst.CSTNode) -> bool:
        """A node whose evaluation cannot raise, or is no evaluation (punctuation, an argument)."""
        if isinstance(node, cst.Name):
            return node.value in self.parsed_params or node.value not in self.local \
                and self.ns.resolve(node.value).kind in ("function", "constant", "builtin", "math", "math_func")
        return not isinstance(node, cst.BaseExpression) or isinstance(node, cst.Integer | cst.Float | cst.SimpleString)

    def _builtin(self, call: cst.Call, names: tuple[str, ...]) -> bool:
        f = call.func
        return isinstance(f, cst.Name) and f.value in names and f.value not in self.local \
            and f.value not in self.ns.links and self.ns.resolve(f.value).kind in ("builtin", "unknown") \
            and (self.ns.globals is None or f.value not in self.ns.globals)

    def _callee(self, call: cst.Call) -> bool:
        f = call.func
        if not isinstance(f, cst.Name) or f.value in self.local:
            return False
        linker = self.ns.linker
        if f.value in self.ns.links and (linker is None or f.value not in linker.homes):  # type: ignore[attr-defined]
            return False  # (another module's function has its home: its copy reads that module's names)
        glob = self.ns.resolve(f.value)
        if glob.kind != "function" or any(a.star for a in call.args):
            return False
        return isinstance(glob.value, FunctionSource) or getattr(glob.value, "__closure__", True) is None


class _Change(PathTransformer):
    def __init__(self, replace: dict[int, cst.CSTNode], calls: dict) -> None:
        super().__init__()
        self.replace, self.calls = replace, {id(c): c for c in calls}
        self.names: dict = {}

    def wants(self, node: cst.CSTNode) -> bool:
        return id(node) in self.replace or id(node) in self.calls

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        out = self.replace.get(id(original))
        if out is None and id(original) in self.calls:
            out = updated.with_changes(func=cst.Name(self.names[self.calls[id(original)]]))  # type: ignore[attr-defined]
        if out is None:
            out = updated
        if out is not original:
            self.rebuilt[id(out)] = (out, original)
        return out
