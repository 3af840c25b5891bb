"""Calls to other functions (of the same module, or linked from other modules: frontend/linking.py):
parse, link and fence each callee once, bind a call's arguments to its parameters, and give the
analysis the callee's result for those arguments. A callee's refusal is reported at its call in
the vectorized function, naming the construct and where it is in the callee.

Each call site is analyzed with its own argument types (a callee called with an int and with a
float is typed twice), and is later inlined with them (`passes/inline_calls.py`). Recursion,
direct or mutual, is typed by a fixpoint and lowered by flag and patch (analysis/recursion.py).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..core.types import FLOAT, Val, type_of_python
from ..errors import (
    SourceLocation,
    UnsupportedCallError,
    VectorizeError,
    VectorizeTypeError,
)
from ..frontend import fence
from ..frontend.call_site_refusals import at_call_site, users_name
from ..frontend.desugar import desugar
from ..frontend.linking import linker_of
from ..frontend.local_imports import hoist
from ..frontend.namespace import Global, Namespace, function_source
from ..frontend.parse import ParsedFunction, parse_function
from . import one_d, recursion
from .lane_args import LaneArgs


class Callees:
    """The functions one vectorized function reaches, parsed, linked and fenced."""

    def __init__(self, namespace: Namespace, root: str) -> None:
        self.namespace = namespace
        self.parsed: dict[str, ParsedFunction] = {}
        self.stack = [root]
        self.assumed: dict[tuple, tuple[Val, ...]] = {}  # recursion: (function, argument types) -> result
        # Where a node of the vectorized function is: a callee's refusal is reported at its call.
        self.locate: Callable[[cst.CSTNode], SourceLocation | None] | None = None
        # The specialization of each callee (passes/specialize.py) on this call's helper values and,
        # for a copy made for static arguments, on them: (parsed, its Global's name, its own
        # module's globals) -> parsed.
        self.rewrite: Callable[[ParsedFunction, str, dict | None], ParsedFunction] | None = None
        # A callee's kind checks (isinstance(p, int), np.isscalar(p), p.size...) decided from one
        # call's argument kinds (passes/specialize.py with `kinds`): (parsed, kinds, home) -> parsed.
        self.decide: Callable[[ParsedFunction, dict[str, str], dict | None], ParsedFunction] | None = None
        self.homes: dict[str, dict | None] = {}
        self.variants: dict[tuple, ParsedFunction] = {}
        self.refusals: dict[int, tuple[VectorizeError, bool]] = {}  # id(parsed) -> (its refusal, desugared) (`parse`)
        self.lanes = LaneArgs()  # which arguments are a lane's own float object (pipeline.start registers the root)

    def parse(self, glob: Global) -> ParsedFunction:
        if glob.name not in self.parsed:
            parsed = parse_function(function_source(glob))
            p = parsed.func.params
            if not (p.params or p.posonly_params or p.kwonly_params):  # blamed on the call (exprs.py locates it)
                raise UnsupportedCallError(
                    f"{users_name(glob)}() takes no arguments: its value is the same for every lane, and vectorizer computes "
                    f"such a helper once per call only when it reads nothing but module-level numbers, strings, None "
                    f"or enum members and calls only such helpers; {users_name(glob)} does more",
                    hint=f"compute {users_name(glob)}() outside and pass its value in as an argument")
            linker = linker_of(self.namespace)
            home = None
            parsed = hoist(parsed, self.namespace, linker.home(glob) if linker is not None else None)
            if linker is not None:  # its globals mean what its own module binds (frontend/linking.py)
                own = linker.home(glob)
                parsed = linker.link(parsed, own)
                home = own.globals if own is not self.namespace else None
            # Code for sequences that a call's kinds may make dead (`len(shape(a))` is 0 for a
            # number: the generator below it is never reached) is refused per call, by `for_call`,
            # only where what those kinds decide still holds it, with this first refusal.
            refusal: VectorizeError | None = None
            desugared = True
            try:
                parsed = desugar(parsed, self.namespace, callee=True)
            except VectorizeError as exc:
                refusal, desugared = exc, False  # (desugared per call, once decided)
            if self.rewrite is not None:
                parsed = self.rewrite(parsed, glob.name, home)
            if refusal is None:  # kind checks pass here, to be decided per call; the rest is fenced now
                try:
                    fence.check(parsed, self.namespace, kind_checks=self.decide is not None, deferred=self.decide is not None)
                except VectorizeError as exc:
                    refusal = exc
            if refusal is not None:
                if self.decide is None:
                    raise refusal
                self.refusals[id(parsed)] = (refusal, desugared)
            self.parsed[glob.name] = parsed
            self.homes[glob.name] = home
        return self.parsed[glob.name]

    def for_call(self, parsed: ParsedFunction, params: dict[str, Val], node: cst.Call | None = None,
                 lowering: bool = False) -> ParsedFunction:
        """The callee `parsed` (from `parse`) with its kind checks decided from this call's
        arguments: a branch ruled out is gone, and one not decided is refused, at its position.
        A parameter given a lane's own float object by `node` (analysis/lane_args.py) is of the
        kind "float" (`x is NAN` is decided for it)."""
        if self.decide is None:
            return parsed
        kinds = {n: k for n, v in params.items() if (k := one_d.kind_of(v)) is not None}
        floats = {n for n, v in params.items() if v.type is FLOAT}
        lanes = self.lanes.of_call(parsed.func, node, (parsed.name, id(parsed), tuple(sorted(kinds.items()))),
                                   floats, lowering)
        kinds.update(dict.fromkeys(lanes, "float"))
        key = (parsed.name, id(parsed), tuple(sorted(kinds.items())))
        if key not in self.variants:
            found = self.decide(parsed, kinds, self.homes.get(parsed.name))
            refusal, desugared = self.refusals.get(id(parsed), (None, True))
            try:
                if not desugared:
                    found = desugar(found, self.namespace, callee=True)
                fence.check(found, self.namespace, kind_checks=False)  # what the kinds leave undecided
            except VectorizeError:
                if refusal is None:
                    raise
                raise refusal from None  # (the refusal of the code as written: `parse`)
            self.variants[key] = found
        self.lanes.register(self.variants[key].func, lanes)
        return self.variants[key]

    def bind(self, parsed: ParsedFunction, args: list, keywords: dict[str, object],
             default: Callable[[cst.BaseExpression], object]) -> dict[str, object]:
        """Map a call's arguments to the callee's parameter names, in parameter order."""
        params = parsed.func.params
        ordered = [*params.posonly_params, *params.params]
        names = [p.name.value for p in (*ordered, *params.kwonly_params)]
        bound: dict[str, object] = {}
        if len(args) > len(ordered):
            raise VectorizeTypeError(f"{parsed.name}() takes {len(ordered)} positional arguments but {len(args)} were given",
                                     hint="call it as it is defined")
        for p, a in zip(ordered, args):
            bound[p.name.value] = a
        for k, v in keywords.items():
            if k not in names or k in bound:
                raise VectorizeTypeError(f"{parsed.name}() got an unexpected or repeated keyword argument {k!r}",
                                         hint="call it as it is defined")
            bound[k] = v
        for p in (*ordered, *params.kwonly_params):
            name = p.name.value
            if name not in bound:
                if p.default is None:
                    raise VectorizeTypeError(f"{parsed.name}() missing argument {name!r}", hint="pass every parameter")
                bound[name] = default(p.default)
        return {n: bound[n] for n in names}

    def result(self, glob: Global, args: list[Val], keywords: dict[str, Val], node: cst.Call,
               lowering: bool = False) -> tuple[Val, ...]:
        """The values a call returns, for the analysis of the caller (`lowering`: a pass's
        analysis of a tree the passes made: analysis/lane_args.py)."""
        from .batched import analyze

        if glob.name in self.stack:  # a recursive edge: lowered as a flag (analysis/recursion.py)
            return recursion.edge_result(self, glob, args, keywords, default_val, analyze)
        self.stack.append(glob.name)
        try:
            parsed = self.parse(glob)
            params = self.bind(parsed, args, keywords, default_val)
            parsed = self.for_call(parsed, params, node, lowering)  # type: ignore[arg-type]
            facts = analyze(parsed.func, params, self.namespace, parsed.location, self.result)  # type: ignore[arg-type]
        except VectorizeError as exc:
            if len(self.stack) == 2 and self.locate is not None:  # called by the vectorized function
                raise at_call_site(exc, glob, self.locate(node)) from None
            raise
        finally:
            self.stack.pop()
        batched = any(v.batched for v in params.values())  # type: ignore[union-attr]
        if len(facts.result) > 1 and any(v.one_d is not False for v in facts.result):
            raise VectorizeTypeError(f"{users_name(glob)}() returns a tuple holding a one-element array (np.atleast_1d of a "
                                     "number): its items are not numbers", hint="return x.item() (the number) for each")
        return tuple(one_d.returned(v, v.batched or batched) for v in facts.result)


def default_value(node: cst.BaseExpression) -> object:
    """A parameter default the source spells out: a number literal, True/False, or its negation."""
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = default_value(node.expression)
        if not isinstance(inner, bool):
            return -inner  # type: ignore[operator]
    raise VectorizeError("the default value of a called function's parameter must be a number literal",
                         hint="write the default as a literal, or pass the argument explicitly")


def default_val(node: cst.BaseExpression) -> Val:
    value = default_value(node)
    return Val(type_of_python(value), False, value)
