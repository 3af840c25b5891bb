"""What every lowering starts from, before its passes: the function decided on the values its
specialization is made for (`Statics`), with its parameters' kind checks folded and fenced again
strictly; its analysis (user errors carry exact positions); the callees it reaches; and the namer
whose fresh names avoid every name of theirs. `pipeline.start` builds the passes' Context from
this, and the explain report (faces/explain.py) reads the analysis through it.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .analysis.batched import analyze
from .analysis.calls import Callees
from .analysis.facts import Facts
from .analysis.names import Namer
from .analysis.one_d import refuse_result
from .core.types import FLOAT, Val
from .errors import VectorizeError
from .frontend import fence
from .frontend.lane_stand_ins import NUMBER
from .frontend.namespace import Namespace
from .frontend.parse import ParsedFunction
from .frontend.static_calls import Variants
from .frontend.static_checks import defaulted
from .passes import specialize, static_checks


@dataclass(frozen=True)
class Statics:
    """What one specialization is made for: parameter -> its value (None, a str, an enum
    member, a bool flag...), and zero-argument helper -> the value it returned for the call."""

    params: dict[str, object]
    helpers: dict[str, object]


def analyzed(parsed: ParsedFunction, namespace: Namespace, params: dict[str, Val], statics: Statics | None,
             reserved: tuple[str, ...] = ()) -> tuple[ParsedFunction, Facts, Callees, Namer]:
    """The user's tree with its kind checks folded (before the analysis, which types literals, not
    isinstance calls: passes/static_checks.py), its analysis, the callees it reaches and the namer
    of its lowering (`reserved` names stay free for the caller)."""
    variants = Variants()  # callees specialized on static arguments, this lowering's (frontend/static_calls.py)
    parsed = specialized(parsed, namespace, statics, variants, params)
    parsed = static_checks.fold(parsed, namespace, params)
    callees = Callees(namespace, parsed.name)
    callees.locate = parsed.location  # a callee's refusal names the call in this function
    callees.lanes.register(parsed.func, frozenset(  # float arguments: made by .item() (a default is the default's object)
        n for n, v in params.items() if v.type is FLOAT and n not in defaulted(parsed.func)))
    helpers = statics.helpers if statics is not None else {}
    callees.rewrite = lambda callee, name, home: specialize.specialize(
        callee, namespace, variants.statics.get(name, {}), helpers, variants, home)
    callees.decide = lambda callee, kinds, home: specialize.specialize(  # a callee's kind checks, per call
        callee, namespace, {}, helpers, variants, home, kinds=kinds)
    first = analyze(parsed.func, params, namespace, parsed.location, callees.result)
    refuse_result(first.result, parsed.location(parsed.func))  # an np.atleast_1d array is no number
    return parsed, first, callees, _namer(parsed, callees, reserved)


def decided_for_numbers(parsed: ParsedFunction, namespace: Namespace) -> tuple[ParsedFunction, frozenset[str]] | None:
    """`parsed` decided for number lanes (frontend/prepare.py): every parameter without a default,
    or with a number default, holds a bool, int or float; kind checks and kind-decided calls
    that give the same answer for all three are decided (frontend/kind_values.py), and what
    they make dead goes. None when nothing is decided, or the specialization refuses."""
    p = parsed.func.params
    numbers = frozenset(x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)
                        if x.default is None or isinstance(x.default, cst.Integer | cst.Float))
    try:
        found = specialize.specialize(parsed, namespace, {}, {}, None, kinds=dict.fromkeys(numbers, NUMBER))
    except VectorizeError:
        return None
    return None if found is parsed else (found, numbers)


def specialized(parsed: ParsedFunction, namespace: Namespace, statics: Statics | None,
                variants: Variants | None = None, params: dict[str, Val] | None = None) -> ParsedFunction:
    """The function decided on its specialized values and its parameters' kind checks, then
    fenced again strictly: the fence at decoration let strings, None and `is` pass for the
    specialization to decide, and the branches a kind check may rule out."""
    if parsed.numbers_only is not None and statics is not None and parsed.numbers_only[0] & set(statics.params):
        raise parsed.numbers_only[1]  # decided for number lanes, and one of those parameters holds another value
    kinds = {n: k for n, v in (params or {}).items() if (k := static_checks.KIND.get(v.type)) is not None}  # type: ignore[call-overload]
    found = specialize.specialize(parsed, namespace, statics.params if statics else {},
                                  statics.helpers if statics else {}, variants, kinds=kinds)
    fence.check(found, namespace)
    return found


def _namer(parsed: ParsedFunction, callees: Callees, reserved: tuple[str, ...] = ()) -> Namer:
    """Fresh names avoid every name of the function, of the callees it reaches, and `reserved`."""
    namer = Namer.for_tree(parsed.func)
    namer.reserve(*reserved)
    for callee in callees.parsed.values():
        namer.add_user(*Namer.for_tree(callee.func).user)
    return namer
