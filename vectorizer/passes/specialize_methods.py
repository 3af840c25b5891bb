"""The specialization's calls of callables decided when the code is generated (issue 51: what
they run, frontend/static_methods.py), a part of passes/specialize.py.

Before (`env` a static object whose class has `spread(self, x)` calling `self.cdf(x)`, and
stores `scale`; `inverse` a module-level closure made by a factory)::

    y = env.spread(x) + inverse(x)

After::

    y = Env_spread_static(x) + inverse_static(x)

`Env_spread_static` is `Env.spread` specialized on `self=env` (the lowering's `Variants`, whose
copies pipeline.py hands to the analysis's callees): `self.scale` in it becomes the number, and
`self.cdf(x)` a call of `Env_cdf_static` in turn. Arguments bound by a partial or a bound method
are bound in the copy; the call's own arguments that are decided now (None, a str, an object)
join them, as for any function of the code (passes/specialize_calls.py).
"""

from __future__ import annotations

import inspect
import re
import types
from typing import TYPE_CHECKING

import libcst as cst

from ..frontend.callables import Bound
from ..frontend.namespace import Global
from ..frontend.static_calls import UNDECIDED, Variants, static_default
from ..frontend.static_methods import bind_call
from ..frontend.static_objects import passed_function

if TYPE_CHECKING:
    from .specialize import Specializer


def redirect(s: Specializer, node: cst.Call, env: dict[str, object], target: Bound) -> bool:
    """Call the copy of `target`'s function specialized on its bound arguments (and on the call's
    own static ones); False when the call does not bind or a value has no key."""
    found = bind_call(target, node)
    if found is None:
        return False
    _rest, statics, where = found
    func = target.function
    static_args: list[cst.Arg] = []
    for arg in node.args:
        value = s.value(arg.value, env)
        if value is not UNDECIDED and (static_default(value) or passed_function(value)):
            statics[where[arg]] = value  # (a tuple of numbers too: `dims=(0, 0)`, its reads decided in the copy)
            static_args.append(arg)
    given = set(where.values()) | set(statics)
    for p in inspect.signature(func).parameters.values():
        if p.name not in given and p.default is not p.empty and static_default(p.default):
            statics[p.name] = p.default  # left at a static default (ell=None): decided in the copy
    name = s.variants.name_for(s.ns, Global("function", _base(s.variants, func), func), statics, s.locals)
    if name is None:
        return False
    linker = s.ns.linker
    if linker is not None:
        linker.homes[name] = linker.namespace_of(func)  # its names mean what its module (or cells) bind
    retarget(s, node, name, static_args, where, env)
    return True


def retarget(s: Specializer, node: cst.Call, name: str, static_args: list[cst.Arg], keyword_of: dict[cst.Arg, str],
             env: dict[str, object]) -> None:
    """`node` calls the specialized copy `name`: its static arguments leave the call, and a
    positional argument after one that left is passed by keyword (`keyword_of`)."""
    s.decisions.replace[node.func] = cst.Name(name)
    removed = False
    for arg in node.args:
        if arg in static_args:
            s.decisions.remove.add(arg)
            removed = removed or arg.keyword is None
        else:
            if removed and arg.keyword is None:
                s.decisions.rekey[arg] = keyword_of[arg]
            s.rewrite(arg.value, env, node)


def _base(variants: Variants, func: types.FunctionType) -> str:
    """A name for `func`'s copies, its own among this lowering's (two closures of one factory
    share a qualname, not their cells)."""
    base = re.sub(r"\W+", "_", func.__qualname__.replace(".<locals>.", "_")).strip("_") or "function"
    while variants.bases.setdefault(base, func) is not func:
        base += "_"
    return base
