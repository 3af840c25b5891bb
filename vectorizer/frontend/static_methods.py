"""Calls whose callee is decided when the code is generated (issue 51): a method of a static
object (`_std.cdf(x)`, `env.spread(x)`, `self.helper(x)` in a method specialized on `self`), a
function stored on one (`env.cdf(x)`: `env.cdf = cdf`), a function, bound method, partial or
callable instance given as an argument, held by a module global or by a closure's cell
(`rounding(f, p)`, `sign(s)`, `inverse(y)`).

`call_target` gives what such a call runs (frontend/callables.py: the function and the arguments
bound to it); passes/specialize_calls.py then calls a copy of that function specialized on the
bound arguments (`self` is a static object: its attributes are read when the code is generated)
with the call's own arguments, and the copy is vectorized with the caller like any function of
the code (inlined on the NumPy backend, a lane function on Numba's). A call whose arguments are
all decided too is evaluated instead, when the interpreter can (frontend/pure_eval.py).

A method is found as Python finds it, without running code: the instance's own attribute first
(a function stored on it), then the class's function, staticmethod or classmethod; a class that
defines `__getattribute__`, a data descriptor in the way, a property, or anything else is not
decided here (the call is refused where the fence sees it, with its position).
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING

import libcst as cst

from .callables import Bound, resolve
from .namespace import ABSENT
from .static_objects import held, instance_attribute, is_static_object

if TYPE_CHECKING:  # the values these functions decide for (static_values imports this module)
    from .static_values import Values


def member(obj: object, name: str) -> object:
    """`obj.name` for a static object, as Python finds it, when it is a callable decided now (a
    method bound to `obj`, a staticmethod's or classmethod's function, a function or callable
    stored on the instance), else ABSENT."""
    found = instance_attribute(obj, name)
    if found is not ABSENT:
        return found if callable(found) else ABSENT
    t = type(obj)
    raw = inspect.getattr_static(t, name, ABSENT)
    if isinstance(raw, staticmethod):
        return raw.__func__
    if isinstance(raw, classmethod):
        return types.MethodType(raw.__func__, t)
    if isinstance(raw, types.FunctionType):
        return types.MethodType(raw, obj)
    return ABSENT


def callee(values: Values, func: cst.BaseExpression, env: dict[str, object], undecided: object) -> object:
    """The live callable a call's callee expression is when it is decided now (see the module
    docstring), else ABSENT. `values` is a frontend.static_values.Values."""
    if isinstance(func, cst.Attribute):
        base = values.value(func.value, env)
        if base is undecided or not is_static_object(base):
            return ABSENT
        return member(base, func.attr.value)
    if isinstance(func, cst.Name):
        glob = values.ns.resolve(func.value) if func.value not in values.locals else None
        if func.value not in env and (glob is None or glob.kind != "value"):
            return ABSENT  # functions of the code, builtins, math: the analysis's
        found = values.value(func, env)
        if found is undecided or isinstance(found, type) or not callable(found):
            return ABSENT
        return found
    return ABSENT


def call_target(values: Values, func: cst.BaseExpression, env: dict[str, object], undecided: object) -> Bound | None:
    """What the call runs: a Python function and the arguments bound to it, None when it is not
    decided now or is no Python function (a builtin, a lru_cache wrapper: refused by the fence)."""
    found = callee(values, func, env, undecided)
    if found is ABSENT:
        return None
    target = resolve(found)
    if not isinstance(target, Bound) or target.function.__name__ == "<lambda>":
        return None
    if not all(held(v) for v in (*target.args, *target.kwargs.values())):
        return None
    return target


def bind_call(target: Bound, node: cst.Call) -> tuple[list[str], dict[str, object], dict[cst.Arg, str]] | None:
    """For a call of `target`: (the positional parameters left to the call's own arguments, the
    parameters bound by the target, each call argument's parameter), None when the call does
    not bind (the callee raises TypeError on every lane: refused where the fence sees it)."""
    try:
        sig = inspect.signature(target.function)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return None
    extra = [p.name for p in params if p.kind is p.VAR_KEYWORD]  # `**kwargs`: {} when nothing more is passed
    params = [p for p in params if p.kind is not p.VAR_KEYWORD]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(target.args) > len(positional):
        return None
    bound = dict(zip(positional, target.args))
    for name, value in target.kwargs.items():
        if name in bound or name not in sig.parameters:
            return None
        bound[name] = value
    rest = positional[len(target.args):]
    where: dict[cst.Arg, str] = {}
    names = {p.name for p in params}
    for i, arg in enumerate(node.args):
        name = arg.keyword.value if arg.keyword is not None else rest[i] if i < len(rest) else None
        if arg.star or name is None or name not in names or name in where.values():
            return None
        if name in bound:
            if arg.keyword is None or name not in target.kwargs:
                return None  # given twice: the call raises TypeError
            del bound[name]  # partial(f, k=1)(k=2): the call's keyword wins
        where[arg] = name
    if extra:
        bound[extra[0]] = {}  # (a keyword no parameter names would land there: such calls are None above)
    return rest, bound, where


def code_call(values: Values, node: cst.Call, env: dict[str, object], func: types.FunctionType, undecided: object) -> object:
    """A call of a function of the code whose arguments are all decided now (`env =
    global_env()`): its value when the interpreter gives a static object (frontend/pure_eval.py),
    which the code is then specialized on; else `undecided`, and the call stays for the
    analysis (numbers are computed by the vectorized code, as before)."""
    from .static_calls import call_value

    given = [undecided if a.star else values.value(a.value, env) for a in node.args]
    if any(v is undecided for v in given):
        return undecided
    result = call_value(values, node, env, func)
    if result is not undecided and is_static_object(result):
        return result
    if result is not undecided and any(not isinstance(v, int | float) for v in given) and _plain_number(result):
        # `_convert_when("end")`: a call every argument of which is decided and one is no number
        # (a str, None, an enum member...) has no parameter left to vectorize: its value, a number
        # the lanes would all get (an int within int64, a finite float, a bool), is used as it is.
        return result
    values.why.pop(node, None)
    values.raised.pop(node, None)
    return undecided


def _plain_number(v: object) -> bool:
    if type(v) is float:
        return v == v and abs(v) != float("inf")  # type: ignore[operator]
    return type(v) is bool or type(v) is int and -2**63 <= v < 2**63  # type: ignore[operator]


def property_value(values: Values, node: cst.Attribute, obj: object, undecided: object) -> object:
    """`obj.name` where the class of a static object has a property of that name whose getter is
    Python code: the getter evaluated now with `obj` (frontend/pure_eval.py), else `undecided`
    (with the reason in `values.why`, or the exception it raises in `values.raised`)."""
    from .static_calls import evaluate_call

    raw = inspect.getattr_static(type(obj), node.attr.value, ABSENT)
    if not isinstance(raw, property) or not isinstance(raw.fget, types.FunctionType):
        return undecided
    return evaluate_call(values, node, raw.fget, (obj,), {})
