"""The specialization's rewrite of attributes and calls decided when the code is generated
(issue 30; the values: frontend/static_calls.py), a part of passes/specialize.py.

Before (`ell` a static object: the argument given, or `Ellipsoid.from_name("wgs84")` evaluated
when the code is generated; `transverse` a function of the code)::

    N = ell.semimajor_axis ** 2 / hypot(ell.semimajor_axis * cos(lat), 1.0)
    r = transverse(lat, ell, deg=False)

After::

    N = 6378137.0 ** 2 / hypot(6378137.0 * cos(lat), 1.0)
    r = transverse_static(lat, deg=False)

`transverse_static` is `transverse` specialized on `ell` (the lowering's `Variants`, which
pipeline.py hands to the analysis's callees). A number becomes a literal; a tuple of numbers a
module-level table (as a module-level tuple gives); an attribute whose value the engine cannot
hold is refused at its position with the reason.

A function of the code or a math function named as an argument (`_atan1u(y, x, atan2d)`) is a
static argument too: the callee's copy is specialized on it, and there `to_angle(y, x)` calls
`atan2d`'s copy, or, for a math function, `math_atan2(y, x)` (a name bound to math.atan2), the
function Python would call.
"""

from __future__ import annotations

import enum
import math
import types
from typing import TYPE_CHECKING

import libcst as cst

from ..core.tree import walk
from ..errors import UnsupportedCallError
from ..frontend.namespace import ABSENT, Global, is_constant, normalize_constant
from ..frontend.operator_functions import BUILTIN, arity, operator_function
from ..frontend.static_calls import (
    UNDECIDED,
    callee_object,
    static_arguments,
    static_default,
)
from ..frontend.static_methods import call_target
from ..frontend.static_methods import callee as static_callee
from ..frontend.static_objects import (
    describe,
    is_static_object,
    math_function,
)
from . import specialize_methods
from .specialize_apply import literal

if TYPE_CHECKING:
    from .specialize import Specializer


def rewrite(s: Specializer, node: cst.Attribute | cst.Call | cst.Subscript, env: dict[str, object]) -> bool:
    """Whether `node` was dealt with here (replaced, or the call redirected to a specialized copy).
    A table's item (`_WHEN[when]`, frontend/static_values.py) is a literal."""
    value = s.value(node, env)
    number = type(value) in (bool, int, float)  # a call decided now (static_methods.code_call): no copy
    if isinstance(node, cst.Call) and s.variants is not None and not number and _redirect(s, node, env):
        return True
    code = cst.Module([]).code_for_node(node)
    if value is UNDECIDED:
        if node in s.raised:  # evaluated, and it raises: the statement raises (specialize.raising_statement)
            s.raising.append(node)
            return True
        if node in s.why:  # an attribute the engine cannot hold, a call evaluated now that raised
            s.refuse(node, f"{code}: {s.why[node]}", "read only numbers, bools, strings, None or enum members this "
                     "way; pass anything else in as an argument", UnsupportedCallError)
        if isinstance(node, cst.Call) and callee_object(s, node.func, env) is not ABSENT:
            callee = cst.Module([]).code_for_node(node.func)
            s.refuse(node, f"{callee}() is a class, a classmethod or a function vectorizer does not vectorize: it "
                     "calls it once, when the code is generated, only when every argument is the same for every lane "
                     "(a literal, None, a str, an enum member, an object given as an argument), and here one "
                     "differs per lane", f"compute {callee}(...) with numbers inside the function, or outside it "
                     "and pass the result in as an argument", UnsupportedCallError)
        return False
    if isinstance(node, cst.Subscript) and (value is UNDECIDED or not isinstance(value, int | float)):
        return False  # a str item, or an item not decided: the fence or the analysis says
    if isinstance(value, bool | int) and not isinstance(value, enum.Enum):
        if isinstance(node, cst.Call):
            return False  # isinstance(), len(), a helper's value: specialize.rewrite's literal
        s.decisions.replace[node] = literal(value, node)
        return True
    if type(value) is float:
        if not math.isfinite(value):
            s.refuse(node, f"{code} is {value!r} when the code is generated; only finite numbers are written into it",
                     "pass the value in as an argument", UnsupportedCallError)
        s.decisions.replace[node] = literal(value, node)
        return True
    if isinstance(value, tuple) and value and is_constant(value):
        taken = s.locals | set(s.ns.globals or ())
        s.decisions.replace[node] = cst.Name(s.ns.define_table(_table_base(node), normalize_constant(value), taken))
        return True
    if isinstance(node, cst.Attribute) and (is_static_object(value) or value is None or isinstance(value, str | bytes)):
        s.refuse(node, f"{code} is {describe(value)} when the code is generated, and it is used here as a number",
                 "only tests of it (is None, == \"name\") and the numbers stored on it are decided", UnsupportedCallError)
    return False


def relevant(s: Specializer, node: cst.Attribute | cst.Call) -> bool:
    """Whether `node` may be decided here without a specialized argument: an attribute of a global
    class or module, a call of a class, or a call of a function of the code that has a static
    default (functions that have none are left as they are, their code unchanged)."""
    if isinstance(node, cst.Attribute):
        base = node.value
        if not isinstance(base, cst.Name) or base.value in s.locals:
            return False
        kind = s.ns.resolve(base.value).kind
        return kind == "value" or kind == "unknown" and (s.ns.globals or {}).get(base.value) is not None
    func = node.func
    if not isinstance(func, cst.Name) or func.value in s.locals:
        return False
    glob = s.ns.resolve(func.value)
    if glob.kind == "value":
        return True  # a module-level callable object, a closure's cell (frontend/static_methods.py)
    if glob.kind == "unknown":
        return isinstance((s.ns.globals or {}).get(func.value), type)
    if glob.kind == "function" and any(isinstance(a.value, cst.Name) and a.value.value not in s.locals and s.ns.resolve(
            a.value.value).kind in ("function", "math_func") for a in node.args):
        return True  # a function given as an argument: the callee's copy is specialized on it
    if glob.kind == "function" and isinstance(glob.value, types.FunctionType):
        return any(map(static_default, glob.value.__defaults__ or ())) or \
            any(map(static_default, (glob.value.__kwdefaults__ or {}).values()))
    return False


def _table_base(node: cst.BaseExpression) -> str:
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
    return "_".join(reversed(parts)).upper().lstrip("_") or "TABLE"


def _redirect(s: Specializer, node: cst.Call, env: dict[str, object]) -> bool:
    """A call of a function of the code with static arguments, or of a callable decided now (a
    method of a static object...: frontend/static_methods.py): to its specialized copy."""
    callee = static_callee(s, node.func, env, UNDECIDED)
    if _operator_call(s, node, env, callee):
        return True
    called = math_function(callee)
    if called is not None and isinstance(node.func, cst.Name) and node.func.value in env:
        # `fn(y, x)` in a copy specialized on fn=math.atan2 (given as an argument): Python calls
        # math.atan2 itself, so the call is one of it, by a name bound to it for the analysis.
        s.decisions.replace[node.func] = cst.Name(_math_name(s, called))
        for arg in node.args:
            s.rewrite(arg.value, env, node)
        return True
    target = call_target(s, node.func, env, UNDECIDED)
    if target is not None:
        if all(s.value(a.value, env) is not UNDECIDED for a in node.args):  # all decided: evaluated, if it can be
            if s.value(node, env) is not UNDECIDED or node in s.raised:
                return False
            s.why.pop(node, None)  # not evaluated now: vectorized with the caller below
        return specialize_methods.redirect(s, node, env, target)
    found = static_arguments(s, node, env)
    if found is None:
        return False
    glob, _names, positional, statics, static_args = found
    name = s.variants.name_for(s.ns, glob, statics, s.locals)
    if name is None:
        return False
    keyword_of = {arg: positional[i] for i, arg in enumerate(node.args) if arg.keyword is None and i < len(positional)}
    specialize_methods.retarget(s, node, name, static_args, keyword_of, env)
    return True


def _operator_call(s: Specializer, node: cst.Call, env: dict[str, object], callee: object) -> bool:
    """`func(a, b)` where func is decided to be `operator.mul`: the call is `(a * b)` (its
    arguments specialized as any). A call that does not bind as the function's is left to be
    refused; so is one whose builtin (bool, abs) the module or function names otherwise."""
    if callee is UNDECIDED or callee is ABSENT:  # `operator.add(a, b)`, `mul(a, b)` imported by name
        callee = callee_object(s, node.func, env)
    name = operator_function(callee)
    if name is None or len(node.args) != arity(name) or any(a.keyword or a.star for a in node.args):
        return False
    if isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) and s.ns.linker is not None:
        owner = (s.ns.globals or {}).get(node.func.value.value)
        if owner is not None:  # watched as the linker's reads are: rebinding it is a new specialization
            s.ns.linker.reads.append((owner, node.func.attr.value, callee))
    builtin = BUILTIN.get(name)
    if builtin is not None and (builtin in s.locals or s.ns.resolve(builtin).kind != "builtin"):
        return False
    s.decisions.operate[node] = name
    for arg in node.args:
        s.rewrite(arg.value, env, node)
    return True


def _math_name(s: Specializer, name: str) -> str:
    """A global name bound to math.<name> (the module's own where it binds one, else a new one)."""
    base = f"math_{name}"
    found = base
    while True:
        glob = s.ns.resolve(found) if found not in s.locals else None
        if glob is not None and glob.kind == "math_func" and glob.name == f"math.{name}":
            return found
        if glob is not None and glob.kind == "unknown" and glob.name == found and found not in (s.ns.globals or {}):
            s.ns.define(found, Global("math_func", f"math.{name}"))
            return found
        found += "_"


def replaced_by_raise(stmt: cst.CSTNode, replace: dict) -> bool:
    """Whether the specialization made `stmt` raise on every lane that reaches it."""
    new = replace.get(stmt)
    if isinstance(new, cst.SimpleStatementLine):
        return isinstance(new.body[0], cst.Raise)
    return isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite) and \
        any(isinstance(replace.get(small), cst.Raise) for small in stmt.body)


def raising_line(call: cst.Call, like: cst.CSTNode) -> cst.SimpleStatementLine:
    """`raise <call>` in place of a statement whose evaluation raises on every lane that reaches it
    (the call raised when it was evaluated): batched code flags those lanes, and the scalar
    function, run again on the first, raises what the loop raises."""
    return cst.SimpleStatementLine([cst.Raise(exc=call)], leading_lines=getattr(like, "leading_lines", ()))


def refuse_if_always_raising(s: Specializer, func: cst.FunctionDef) -> None:
    """Every path of the specialized `func` raises (a call evaluated now raised, and no `return`
    is left): there is no result to type the batched function by, so it is refused, saying so."""
    if not s.raising or any(isinstance(n, cst.Return) for n in walk(func.body)):
        return
    call = s.raising[0]
    exc = s.raised[call]
    s.refuse(call, f"{cst.Module([]).code_for_node(call)} raised {type(exc).__name__}({exc}) when the code was "
             f"generated, and every path of {s.parsed.name!r} reaches it", "the function always raises: fix the "
             "call's arguments", UnsupportedCallError)
