"""Rewrite a few common Python forms into the subset the fence accepts, before the fence runs.

Each rewrite keeps CPython's meaning exactly; anything it cannot keep is left alone, so the fence
refuses it as before (naming the user's construct and position). Before::

    def f(T, month, n):
        n_ = (0.5, -1.25, 3.0)             # local table of number literals, read-only
        check(n)                           # a call kept for its exceptions
        if month in (4, 6, 9, 11):         # `in` on a tuple of numbers
            T = T + 1.0
        return min((n_[month], T))         # min/max of a tuple display

After (`_tbl_f_n_` is a constant of the namespace, as a module-level tuple would be)::

    def f(T, month, n):
        unused_1 = check(n)
        if (month == 4 or month == 6 or month == 9 or month == 11):
            T = T + 1.0
        return min(_tbl_f_n_[month], T)

A local table qualifies when it is bound once, by a statement of the function's top level, to a
tuple or list display of number literals, and every later use reads it: `t[i]`, `x in t`, `len(t)`.
A call statement stays a call (the engine inlines a same-module callee and keeps its raises), as
does any expression statement that may raise (`1 / x`, bound to a variable nobody reads); a
callee that returns no value (falls off its end, or a bare `return`) gets `return 0` when it is
prepared as a callee, and a caller that uses the value of such a callee is refused here, since
that value is None in Python.

First, `with np.errstate(...)` is its body (frontend/with_blocks.py), and `try`/`except` keeps its
body and `else` (frontend/try_blocks.py: the lanes that may raise there are re-run through the
scalar function, which runs the handlers), and `p.real`, `p.imag`, `p.conjugate()` of a parameter
holding a number are `+p`, `0 * p ** 0`, `+p` (frontend/number_attributes.py), `a, b = (x, y) if c
else (u, v)` is an if statement (frontend/tuple_choices.py), a loop's `else`
runs under a flag its `break`s set (frontend/loop_else.py), and `for v in itertools.count(a, b)` is a
`while True` loop with a counter (frontend/count_loops.py), and `for c in bin(x)[k:]` comparing `c`
with strings a loop over the string's positions (frontend/bin_loops.py). Then, on the
result, in this order: a sequence of
numbers passed to a function of the module specializes it (frontend/sequence_args.py), a last
`if i == k` that every value of `i % n` before it makes true runs unconditionally
(frontend/exhaustive_ifs.py), a tuple of values passed to a function of the module gives it a
parameter an item (frontend/tuple_args.py), `np.polyval` of a table of float literals (frontend/polyval.py), a
name rebound to displays at the top level split into one name a binding
(frontend/rebound_displays.py), the left operand of an `in` that is no name, literal or cheap
arithmetic bound first (frontend/memberships.py), the rewrites of this module
and `for a, b in TABLE` over the rows of a module-level table (frontend/table_rows.py) (tables, `in`, `min((a, b))`...),
`D[k]` of a module-level dict of numbers (frontend/dict_lookups.py), local tuples of values
(frontend/local_tuples.py), lists and tuples read at constant positions
(frontend/local_lists.py), `map` of a function over names unpacked (frontend/map_calls.py),
reductions over generator expressions (frontend/reductions.py), calls under and/or/if-else
(frontend/short_circuit.py), and last a bare `return` or a reachable end of a function that
returns a value elsewhere (or `return None`) becomes a `raise` that flags its lanes
(frontend/none_ends.py). It
runs where a function is parsed for vectorizing (api.prepare, the CLI, analysis/calls.py for
callees), before the fence: the fence and the analysis would refuse these forms, so no entry of
the pass lists in pipeline.py could see them. Rebuilt nodes keep
their original's position and line (frontend/paths.py).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import libcst as cst

from ..core.binding import bindings, bound_names
from ..errors import UnsupportedSyntaxError
from . import exhaustive_ifs, local_lists, local_tuples, rebound_displays, try_blocks
from .astype_calls import AstypeCalls, Int64Calls
from .bin_loops import BinLoops
from .count_loops import CountLoops
from .dict_lookups import DictLookups
from .display_reductions import DisplayReductions
from .local_tuples import LocalTuples
from .loop_else import LoopElse, has_loop_else
from .map_calls import MapCalls
from .memberships import bind_left, membership, numbers_of, written_out
from .namespace import SIDE_EFFECT_BUILTINS, Namespace
from .none_ends import NoneEnds, is_none, no_value_use, returns_value
from .number_attributes import NumberAttributes, number_params
from .parse import ParsedFunction
from .paths import FreshNames, PathTransformer
from .polyval import Polyval
from .rebound_displays import ReboundDisplays
from .reductions import Reductions
from .sequence_args import rewrite as pass_sequences
from .short_circuit import ShortCircuit
from .table_rows import TableRows
from .try_blocks import TryBlocks
from .tuple_args import rewrite as pass_tuples
from .tuple_choices import TupleChoices
from .with_blocks import WithBlocks

_NUMBERS = (cst.Integer, cst.Float)
# Expression statements that do nothing (or are a docstring, or are refused for what they are).
_INERT = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
          cst.FormattedString, cst.Ellipsis, cst.Yield, cst.Await)


def desugar(parsed: ParsedFunction, namespace: Namespace, *, callee: bool = False) -> ParsedFunction:
    """`parsed` with the rewrites of this module applied (itself when none applies). `callee`: it
    is prepared to be inlined into a caller (a function returning no value then returns 0). Nodes
    off the paths to a rewrite keep their identity; rebuilt ones keep their original's position
    and line (errors and origin comments)."""
    func = parsed.func
    withs = WithBlocks(namespace, _assigned(func) | _params(func))
    if any(isinstance(n, cst.With) for n in _walk(func.body)):  # first: `with np.errstate(...)` is its body
        func = withs.rewrite(func)  # type: ignore[assignment]
        if withs.refused is not None:
            node, why = withs.refused
            raise UnsupportedSyntaxError(why, parsed.location(node), hint="remove the 'with' or use np.errstate(all='ignore')")
    tries = TryBlocks(namespace)
    if try_blocks.has_try(func):  # first: the body of a `try` is read like any other statements
        func = tries.rewrite(func)  # type: ignore[assignment]
    numbers = NumberAttributes(number_params(func, _assigned(func)))  # Z.real of a number: +Z
    func = numbers.rewrite(func)  # type: ignore[assignment]
    choices = TupleChoices()  # `a, b = (x, y) if c else (u, v)`: an if statement
    func = choices.rewrite(func)  # type: ignore[assignment]
    elses = LoopElse({n.value for n in _walk(func) if isinstance(n, cst.Name)})  # for/while ... else: a flag
    if has_loop_else(func.body):
        func = elses.rewrite(func)  # type: ignore[assignment]
    counts = CountLoops(namespace, _assigned(func) | _params(func), elses.taken)  # for v in count(a, b): a while
    func = counts.rewrite(func)  # type: ignore[assignment]
    bins = BinLoops(namespace, func, _assigned(func) | _params(func), _binds(func) or {}, counts.taken)
    func = bins.rewrite(func)  # type: ignore[assignment]  # for c in bin(x)[k:]: its positions
    func, sequences = pass_sequences(parsed, func, namespace)  # sequences passed on: specialized on
    func, exhausted = exhaustive_ifs.rewrite(func)  # `if i == k: return` over every value of `i % n`
    func, tupled = pass_tuples(parsed, func, namespace, _assigned(func) | _params(func))  # f(t=(a, b))
    exhausted.update(tupled)
    polyval = Polyval(namespace, func, _assigned(func) | _params(func))  # np.polyval of a float table: Horner
    func = polyval.rewrite(func)  # type: ignore[assignment]
    astype, int64 = AstypeCalls(), Int64Calls(namespace, _assigned(func) | _params(func))
    func = int64.rewrite(astype.rewrite(func))  # type: ignore[assignment]  # x.astype(dtype=...), np.int64(int(x))
    exhausted = {**exhausted, **polyval.rebuilt, **astype.rebuilt, **int64.rebuilt}
    rebound = rebound_displays.find(func, _params(func))  # `a = (...)` again: one name a binding
    if rebound:
        split = ReboundDisplays(rebound, {n.value for n in _walk(func) if isinstance(n, cst.Name)})
        func = split.rewrite(func)  # type: ignore[assignment]
        exhausted = {**exhausted, **split.rebuilt}
    if any(membership(n) for n in _walk(func.body)):  # `g(x) in (3, 5)`: g(x) bound first
        func, bound = bind_left(func, namespace, _assigned(func) | _params(func))
        exhausted = {**exhausted, **bound}
    taken = {n.value for n in _walk(func) if isinstance(n, cst.Name)}
    local = _assigned(func) | _params(func)
    no_value_use(parsed, func, namespace, local)  # the value of a callee that returns none: refused
    tables = _tables(func, namespace, parsed.name, taken, local)
    zero = callee and not returns_value(func)
    rewriter = _Rewrite(namespace, tables, taken, local - set(tables), zero)
    new = rewriter.rewrite(func)
    rows = TableRows(namespace, local, rewriter.fresh, taken)  # `for a, b in TABLE` (zip, enumerate): an index
    new = rows.rewrite(new)
    rewriter.rebuilt.update(rows.rebuilt)
    lookups = DictLookups(namespace, local, rewriter.fresh)  # `SIZES[k]` of a module dict of numbers
    new = lookups.rewrite(new)
    rewriter.rebuilt.update(lookups.rebuilt)
    binds = _binds(new)
    if binds is not None:
        tuples = LocalTuples(local_tuples.find(new, namespace, parsed.name, binds, _params(func), taken, rewriter.fresh))
        if tuples.tuples:
            new = tuples.rewrite(new)
            rewriter.rebuilt.update(tuples.rebuilt)  # after: a node it rebuilt may be one _Rewrite made
            local = local | {v for items, _, _ in tuples.tuples.values() for v in items}
    lists = local_lists.find(new, _params(func), rewriter.fresh)  # bound in branches, read at constant positions
    if lists is not None:
        new = lists.rewrite(new)
        rewriter.rebuilt.update(lists.rebuilt)
        local = local | {v for items in lists.lists.values() for v in items}
    maps = MapCalls(namespace, local - set(tables))  # `a, b = map(f, (a, b))`: the calls
    new = maps.rewrite(new)
    rewriter.rebuilt.update(maps.rebuilt)
    displays = DisplayReductions(namespace, local - set(tables))  # any(... for c in (a, b)): written out
    new = displays.rewrite(new)
    rewriter.rebuilt.update(displays.rebuilt)
    reductions = Reductions(namespace, local - set(tables), rewriter.fresh)
    new = reductions.rewrite(new)
    rewriter.rebuilt.update(reductions.rebuilt)
    short = ShortCircuit(namespace, local - set(tables), rewriter.fresh)
    new = short.rewrite(new)
    rewriter.rebuilt.update(short.rebuilt)
    if returns_value(func):  # a bare `return`, or falling off the end: None on those lanes
        ends = NoneEnds(parsed.name)
        new = ends.end(ends.rewrite(new))  # type: ignore[arg-type]
        rewriter.rebuilt.update(ends.rebuilt)
    if zero:
        end = cst.SimpleStatementLine([cst.Return(cst.Integer("0"))])
        body = new.body.with_changes(body=[*new.body.body, end])
        rewriter.rebuilt[id(body)] = (body, func.body)
        new = new.with_changes(body=body)
        rewriter.rebuilt[id(new)] = (new, func)
    if new is parsed.func:
        return parsed
    return _renewed(parsed, new, {**withs.rebuilt, **tries.rebuilt, **numbers.rebuilt, **choices.rebuilt, **elses.rebuilt, **counts.rebuilt, **bins.rebuilt, **sequences, **exhausted, **rewriter.rebuilt})


def _renewed(parsed: ParsedFunction, new: cst.FunctionDef, rebuilt: dict) -> ParsedFunction:
    """`parsed` over the new tree, with each rebuilt node mapped to its original's position."""
    positions = dict(parsed.positions)
    lines = dict(parsed.lines) if parsed.lines is not None else None
    for node, original in rebuilt.values():
        if original in positions:
            positions[node] = positions[original]
        if lines is not None and original in lines:
            lines[node] = lines[original]
    out = dataclasses.replace(parsed, func=new, lines=lines)
    out.__dict__["positions"] = positions  # the cached_property, precomputed: the module holds the old tree
    return out


def _params(func: cst.FunctionDef) -> set[str]:
    p = func.params
    return {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _assigned(func: cst.FunctionDef) -> set[str]:
    """The names local to some scope of the function (its comprehensions' targets too)."""
    return bound_names(func.body, comprehensions=True)


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _tables(func: cst.FunctionDef, ns: Namespace, fname: str, taken: set[str],
            local: set[str]) -> dict[str, tuple[str, tuple, cst.CSTNode]]:
    """name -> (global name, values, its statement) for each local read-only table."""
    body = func.body.body if isinstance(func.body, cst.IndentedBlock) else []
    params = _params(func)
    binds = _binds(func)
    if binds is None:
        return {}
    found: dict[str, tuple[str, tuple, cst.CSTNode]] = {}
    for i, stmt in enumerate(body):
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
            continue
        small = stmt.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            continue
        name = small.targets[0].target.value
        values = numbers_of(small.value)
        if values is None or binds.get(name) != 1 or name in params:
            continue
        reads = _Reads(name)
        for earlier in body[:i]:
            earlier.visit(reads)
        if reads.any:  # read before it is bound: UnboundLocalError in Python, left to the fence
            continue
        reads = _Reads(name)
        for later in body[i + 1:]:
            later.visit(reads)
        if reads.other:
            continue
        glob = ns.define_table(f"_tbl_{fname}_{name}", values, taken)
        taken.add(glob)
        found[name] = (glob, values, stmt)
    return found


def _binds(func: cst.FunctionDef) -> dict[str, int] | None:
    """How often each name is bound; None when the body has scopes the rewrites do not follow."""
    if any(isinstance(node, cst.Global | cst.Nonlocal | cst.FunctionDef | cst.Lambda | cst.ClassDef)
           for node in _walk(func.body)):
        return None
    return dict(Counter(bindings(func.body, comprehensions=True)))


class _Reads(cst.CSTVisitor):
    """Finds reads of `name`: `any` at all, `other` than `t[i]`, `x in t`, `len(t)`, and a
    comprehension's `for v in t` or `enumerate(t)`."""

    def __init__(self, name: str) -> None:
        self.name, self.any, self.other = name, False, False
        self.allowed: set[int] = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.allowed.add(id(node.value))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.allowed.add(id(node.iter))

    def visit_ComparisonTarget(self, node: cst.ComparisonTarget) -> None:
        if isinstance(node.operator, cst.In | cst.NotIn):
            self.allowed.add(id(node.comparator))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in ("len", "enumerate") and len(node.args) == 1:
            self.allowed.add(id(node.args[0].value))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.any = True
            self.other = self.other or id(node) not in self.allowed


class _Rewrite(PathTransformer):
    def __init__(self, ns: Namespace, tables: dict[str, tuple[str, tuple, cst.CSTNode]], taken: set[str],
                 local: set[str], zero: bool) -> None:
        super().__init__()
        self.ns, self.tables, self.taken, self.local, self.zero = ns, tables, taken, local, zero
        self.globals = {g: v for g, v, _ in tables.values()}
        self.dropped = {id(t[2]) for t in tables.values()}
        self.fresh = FreshNames(taken)  # `base_1`, `base_2`...: the first no name of the function has
        self.attrs: set[int] = set()

    def wants(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Attribute):
            self.attrs.add(id(node.attr))
        if isinstance(node, cst.Name):
            return node.value in self.tables and id(node) not in self.attrs
        if isinstance(node, cst.Call):
            return isinstance(node.func, cst.Name) and node.func.value in ("len", "min", "max")
        if isinstance(node, cst.Comparison):
            return len(node.comparisons) == 1 and isinstance(node.comparisons[0].operator, cst.In | cst.NotIn)
        if isinstance(node, cst.Expr):
            return not isinstance(node.value, _INERT)
        if isinstance(node, cst.Return):
            return self.zero and is_none(node.value)
        return False

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        zero = updated.with_changes(value=cst.Integer("0"), whitespace_after_return=cst.SimpleWhitespace(" "))
        return zero if self.zero and is_none(updated.value) else updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if not self.dropped:
            return updated
        kept = [s for o, s in zip(original.body, updated.body) if id(o) not in self.dropped]
        return updated if len(kept) == len(updated.body) else updated.with_changes(body=kept)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        entry = self.tables.get(original.value)
        return updated.with_changes(value=entry[0]) if entry and id(original) not in self.attrs else updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = updated.func
        if isinstance(func, cst.Name) and func.value == "len" and len(updated.args) == 1:
            arg = updated.args[0].value
            if isinstance(arg, cst.Name) and arg.value in self.globals:
                return cst.Integer(str(len(self.globals[arg.value])))
        if isinstance(func, cst.Name) and func.value in ("min", "max") and len(updated.args) == 1 \
                and not updated.args[0].keyword and not updated.args[0].star \
                and isinstance(updated.args[0].value, cst.Tuple | cst.List):
            elements = updated.args[0].value.elements
            if len(elements) >= 2 and not any(isinstance(e, cst.StarredElement) for e in elements):
                return updated.with_changes(args=[cst.Arg(e.value) for e in elements])
        return updated

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        return written_out(updated, self.ns, self.local)  # `x in (3, 5)`: `x == 3 or x == 5`

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        value = updated.value
        if isinstance(value, _INERT) or isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                and (value.func.value in SIDE_EFFECT_BUILTINS or value.func.value in self.local):
            return updated  # refused by the fence with its own message (or a docstring)
        # A call, or an operation that may raise (`1 / x`): kept for its exceptions, value unused.
        return cst.Assign([cst.AssignTarget(cst.Name(self.fresh("unused")))], value)
