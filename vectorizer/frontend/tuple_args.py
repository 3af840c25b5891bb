"""A tuple of values passed to a function of the module (part of frontend/desugar.py, after the
sequences of numbers; issue 51): the callee gets a copy with one parameter an item, and the tuple
is a local tuple there (frontend/local_tuples.py). electricpy's idiom. Before::

    def dynetz(delta=None, wye=None, round=None):
        if delta is None and wye is None:
            raise ValueError("give delta or wye")
        if delta is not None and wye is None:
            Z12, Z23, Z31 = delta
            Zsum = Z12 + Z23 + Z31
            Zset = (Z12 * Z31 / Zsum, Z12 * Z23 / Zsum, Z23 * Z31 / Zsum)
            if round is not None:
                Zset = _np.around(Zset, round)
            return Zset
        ...

    def bridge(z1, z4, z5):
        za, zb, zc = dynetz(delta=(z1, z5, z4))

After (`dynetz__delta_1`: a function of the namespace, `dynetz`'s source prepared so)::

    def bridge(z1, z4, z5):
        za, zb, zc = dynetz__delta_1(delta_1=z1, delta_2=z5, delta_3=z4)

    def dynetz__delta_1(delta_1=None, delta_2=None, delta_3=None, wye=None, round=None):
        delta = (delta_1, delta_2, delta_3)
        Z12, Z23, Z31 = delta
        Zsum = Z12 + Z23 + Z31
        Zset = (Z12 * Z31 / Zsum, Z12 * Z23 / Zsum, Z23 * Z31 / Zsum)
        return Zset

The items are evaluated at the call, in order, as Python evaluates the display. In the copy the
tuple is never None (`delta is None` is False, `is not None` True), and a parameter this call
leaves to its default None, which the function never rebinds, is None (`round is not None` is
False); an `if` those decide keeps its taken branch (`True and x` is `x`, `False and x` is False,
`not True` is False...), so the branches for the other arguments are gone before the other rules
read the function. The callee may only read the tuple: `a, b, c = t`, `t[i]`, `len(t)`, `x in t`,
`t is None`, `t is not None`, `return t`; any other use (passed on, rebound, an attribute) is
refused at the call. The copies are keyed by the callee, the parameter, the number of items and
the parameters the call passes.
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bindings
from ..errors import UnsupportedSyntaxError
from .decided_ifs import Fold, none_test
from .namespace import ABSENT, Global, Namespace, function_source
from .parse import ParsedFunction, parse_function
from .paths import PathTransformer
from .sequence_values import number
from .source import FunctionSource


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _params(func: cst.FunctionDef) -> list[cst.Param]:
    p = func.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _reads_only(func: cst.FunctionDef, name: str) -> cst.CSTNode | None:
    """The first use of `name` in `func` that is not one the copy keeps (None: all are)."""
    allowed: set[int] = set()
    for node in _walk(func.body):
        if none_test(node, (name,)) is not None:
            allowed.add(id(node.left))  # type: ignore[attr-defined]
        elif isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Tuple | cst.List):
            allowed.add(id(node.value))
        elif isinstance(node, cst.Return) or isinstance(node, cst.Subscript) and len(node.slice) == 1 \
                and isinstance(node.slice[0].slice, cst.Index):
            allowed.add(id(node.value))
        elif isinstance(node, cst.ComparisonTarget) and isinstance(node.operator, cst.In | cst.NotIn):
            allowed.add(id(node.comparator))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            allowed.add(id(node.args[0].value))
        elif isinstance(node, cst.Name) and node.value == name and id(node) not in allowed:
            return node
    return None


class _Calls(PathTransformer):
    """The caller's calls that pass a tuple display to a function of the module."""

    def __init__(self, parsed: ParsedFunction, ns: Namespace, local: set[str]) -> None:
        super().__init__()
        self.parsed, self.ns, self.local = parsed, ns, local

    def _callee(self, call: cst.Call) -> FunctionSource | None:
        f = call.func
        if not isinstance(f, cst.Name) or f.value in self.local or f.value in self.ns.sequence_specs \
                or f.value in self.ns.links or any(a.star for a in call.args):
            return None
        glob = self.ns.resolve(f.value)
        if glob.kind != "function" or not (isinstance(glob.value, FunctionSource)
                                           or getattr(glob.value, "__closure__", True) is None):
            return None
        return function_source(glob)

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Call) and any(_display(a.value) for a in node.args) and self._callee(node) is not None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        src = self._callee(original)
        if src is None:
            return updated
        callee = parse_function(src).func
        params = _params(callee)
        positional = [*callee.params.posonly_params, *callee.params.params]
        names = {n.value for n in _walk(callee) if isinstance(n, cst.Name)}
        passed, splice = set(), {}
        for k, arg in enumerate(original.args):
            name = arg.keyword.value if arg.keyword is not None else positional[k].name.value if k < len(positional) else None
            if name is None or name not in {p.name.value for p in params}:
                return updated  # the fence or the analysis refuses the call as it is
            passed.add(name)
            if _display(arg.value):
                bad = _reads_only(callee, name)
                if bad is not None or name in bindings(callee.body, comprehensions=True):
                    raise UnsupportedSyntaxError(
                        f"a tuple is passed to {original.func.value}() as '{name}', which does more there than unpack "  # type: ignore[attr-defined]
                        f"it, index it, take its len() or test it with 'is None'", self.parsed.location(arg.value),
                        hint="pass the values as separate arguments")
                splice[k] = (name, _fresh(name, len(arg.value.elements), names))  # type: ignore[attr-defined]
        spec = {name: items for name, items in splice.values()}
        new = _copy(self.ns, original.func.value, src, spec, frozenset(passed))  # type: ignore[attr-defined]
        args: list[cst.Arg] = []
        for k, arg in enumerate(updated.args):
            if k not in splice:
                args.append(arg)
                continue
            items = splice[k][1]
            for item, el in zip(items, arg.value.elements):  # type: ignore[attr-defined]
                keyword = cst.Name(item) if arg.keyword is not None else None
                args.append(cst.Arg(el.value, keyword=keyword) if keyword is not None else cst.Arg(el.value))
        return updated.with_changes(func=cst.Name(new), args=args)


_STATIC = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Name)


def _display(node: cst.BaseExpression) -> bool:
    """A tuple display of values, not all literals (numbers: frontend/sequence_args.py's; strings,
    None, bools: the specialization's static arguments) and with no string."""
    if not (isinstance(node, cst.Tuple) and node.elements) or any(isinstance(e, cst.StarredElement) for e in node.elements):
        return False
    values = [e.value for e in node.elements]
    if any(isinstance(v, cst.SimpleString | cst.ConcatenatedString | cst.FormattedString) for v in values):
        return False
    return not all(isinstance(v, _STATIC) and (not isinstance(v, cst.Name) or v.value in ("None", "True", "False"))
                   or number(v) is not None for v in values)


def _fresh(name: str, n: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    k = 0
    while len(out) < n:
        k += 1
        if f"{name}_{k}" not in taken:
            out.append(f"{name}_{k}")
    return out


def _copy(ns: Namespace, name: str, src: FunctionSource, spec: dict[str, list[str]], passed: frozenset[str]) -> str:
    """The name of `name`'s copy for these tuples and passed parameters (made once a namespace)."""
    key = (name, tuple(sorted((p, len(v)) for p, v in spec.items())), tuple(sorted(passed)))
    for qualname, entry in ns.tuple_specs.items():
        if entry[3] == key:
            return qualname
    k = 0
    while True:
        k += 1
        new = f"{name}__{'_'.join(sorted(spec))}_{k}"
        found = ns.resolve(new)
        if ns.value_of(new) is ABSENT and found.kind == "unknown" and found.name == new:
            break
    copy = FunctionSource(src.qualname, src.filename, src.text, src.first_line, src.indent)
    ns.tuple_specs[new] = (copy, dict(spec), passed, key)
    ns.define(new, Global("function", new, copy))
    return new


def rewrite(parsed: ParsedFunction, func: cst.FunctionDef, ns: Namespace, local: set[str]) -> tuple[cst.FunctionDef, dict]:
    """`func` prepared as a copy made for tuples (when it is one), with its own calls that pass
    tuple displays rewritten; and the rebuilt nodes."""
    rebuilt: dict = {}
    entry = next((e for e in ns.tuple_specs.values() if e[0] is parsed.source), None)
    if entry is not None:
        func, rebuilt = _prepare(func, entry[1], entry[2])
    calls = _Calls(parsed, ns, local)
    new = calls.rewrite(func)
    return new, {**rebuilt, **calls.rebuilt}  # type: ignore[return-value]


def _prepare(func: cst.FunctionDef, spec: dict[str, list[str]], passed: frozenset[str]) -> tuple[cst.FunctionDef, dict]:
    """The copy: a parameter an item, the tuple bound first, the `is None` tests decided."""
    rebound = set(bindings(func.body, comprehensions=True))
    decided = {name: False for name in spec}  # name -> whether it is None
    decided.update({q.name.value: True for q in _params(func) if q.name.value not in passed and q.name.value not in rebound
                    and isinstance(q.default, cst.Name) and q.default.value == "None"})
    folder = Fold(decided)
    body = folder.rewrite(func.body)
    read = {n.value for n in _walk(body) if isinstance(n, cst.Name)}

    def split(params) -> list[cst.Param]:  # noqa: ANN001
        out: list[cst.Param] = []
        for p in params:
            items = spec.get(p.name.value)
            if items is None and decided.get(p.name.value) and p.name.value not in read:
                continue  # left at None by the call and read no more: no argument to bind
            out += [p] if items is None else [cst.Param(cst.Name(v), default=cst.Name("None") if p.default else None)
                                              for v in items]
        return out

    p = func.params
    header = p.with_changes(posonly_params=split(p.posonly_params), params=split(p.params), kwonly_params=split(p.kwonly_params))
    stmts = list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body.body)]  # type: ignore[attr-defined]
    at = 1 if stmts and isinstance(stmts[0], cst.SimpleStatementLine) and isinstance(stmts[0].body[0], cst.Expr) \
        and isinstance(stmts[0].body[0].value, cst.SimpleString | cst.ConcatenatedString) else 0  # after the docstring
    binds = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))],
                                                 cst.Tuple([cst.Element(cst.Name(v)) for v in items]))])
             for name, items in spec.items()]
    block = cst.IndentedBlock([*stmts[:at], *binds, *stmts[at:]])
    new = func.with_changes(params=header, body=block)
    rebuilt = dict(folder.rebuilt)
    for node, original in ((new, func), (block, func.body), (header, p), *((b, func) for b in binds)):
        rebuilt[id(node)] = (node, original)
    return new, rebuilt
