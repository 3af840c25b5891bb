"""Attribute reads and calls decided when the code is generated (issue 30), for the values of
frontend/static_values.py, and the specialized copies of callees that receive such values.

* `ell.semimajor_axis` on a static object (frontend/static_objects.py) is the number stored on it;
  `Const.NAME` / `module.NAME` on a class or module the function reads as a global is its value
  when that is a number, a str, None, an enum member or a tuple of those (the linker has already
  made numbers and functions of other modules into names: frontend/linking.py).
* A call whose arguments are all static (a literal, None, a str, an enum member, a static
  object...) and whose callee is a Python function, a classmethod bound to its class or a Python
  class (`evaluable`) is evaluated when the code is generated, by interpreting its source
  (frontend/pure_eval.py), never by running it: only what is provably pure evaluates (its reads
  of module globals and class attributes are recorded for the Watch, and must be covered by the
  cache key); anything else is refused with the reason, and a call that raises makes its
  statement raise for the lanes that reach it (passes/specialize.py). Functions of the
  vectorized code are inlined, or specialized on their static arguments below.
* A call of a function of the vectorized code with static arguments (`geodetic2ecef(lat, lon, h,
  ell)`, and parameters left at a static default such as `ell=None`) calls a copy of the callee
  specialized on them (`geodetic2ecef_static`), made per lowering (`Variants`): the static
  arguments leave the call, the arguments after them become keywords.
"""

from __future__ import annotations

import enum
import inspect
import sys
import types
from typing import TYPE_CHECKING

import libcst as cst

from . import pure_eval, static_methods
from .namespace import ABSENT, Global, Namespace, is_constant
from .operator_functions import operator_function
from .pure_builtins import Impure
from .reach import attribute as static_attribute
from .reach import namespace_like
from .static_objects import (
    embeddable,
    is_static,
    is_static_object,
    object_attribute,
    passed_function,
    plain_value,
    value_key,
)

if TYPE_CHECKING:  # the values these functions decide for (static_values imports this module)
    from .static_values import Values

UNDECIDED = object()  # what Values gives for an undecided expression (its UNKNOWN, imported there)


def evaluable(obj: object) -> bool:
    """Whether `obj` is a callee the generation-time interpreter may try: a Python function, a
    method bound to a class (a classmethod), or a Python class (its constructor). Whether the
    call is pure is the interpreter's to find (frontend/pure_eval.py)."""
    if isinstance(obj, types.MethodType):  # a classmethod, or a method of a static object (static_methods.py)
        return (isinstance(obj.__self__, type) or is_static_object(obj.__self__)) \
            and isinstance(obj.__func__, types.FunctionType)
    if isinstance(obj, type):
        return not issubclass(obj, BaseException | enum.Enum) and obj.__module__ != "builtins"
    return isinstance(obj, types.FunctionType) and obj.__name__ != "<lambda>"


def global_object(values: Values, name: str) -> object:
    """What a global name of the function is bound to: in the vectorized function's module, or
    (a callee's name its module alone binds) in the callee's own module; ABSENT when neither."""
    ns: Namespace = values.ns
    if name in values.locals or ns.globals is None:
        return ABSENT
    if name in ns.links or name in ns.cells:  # another module's or a cell's value (frontend/linking.py)
        glob = ns.resolve(name)
        return glob.value if glob.kind == "value" else ABSENT
    if name in ns.globals:
        ns.resolve(name)  # recorded in `seen`: the kernel holds while the module binds the same object
        return ns.globals[name]
    home = values.home
    if home is not None and name in home and name not in ns.links:
        obj = home[name]
        linker = ns.linker
        if linker is not None:
            linker.reads.append((home, name, obj))  # engine/fingerprint.py watches it
        return obj
    return ABSENT


def attribute_value(values: Values, node: cst.Attribute, env: dict[str, object]) -> object:
    """`node`'s value when decided (see the module docstring), else UNDECIDED; why an attribute
    of a static object cannot be held is kept in `values.why` for the refusal."""
    name = node.attr.value
    base = values.evaluate(node.value, env)
    if base is not UNDECIDED and is_static_object(base):
        found, holder = object_attribute(base, name)
        if found is ABSENT:
            value = static_methods.property_value(values, node, base, UNDECIDED)  # a property: its getter
            if value is not UNDECIDED or node in values.raised or node in values.why:
                return value
            values.why[node] = (f"{type(base).__qualname__} object has no attribute {name!r} stored on the instance "
                                "or as a number, str or tuple on its class (a property or a method is not read when "
                                "the code is generated)")
            return UNDECIDED
        linker = values.ns.linker
        if isinstance(holder, type) and linker is not None:
            linker.reads.append((vars(holder), name, found))  # a class attribute: watched (issue 51)
        return _held(values, node, found, f"{type(base).__qualname__}.{name}")
    if isinstance(base, type) and namespace_like(base) and not isinstance(base, enum.EnumMeta):
        found = static_attribute(base, name)  # `cls.SIDES` in a classmethod specialized on its class
        if found is not ABSENT and plain_value(found):  # (what the class's key holds: engine/codekeys.py)
            linker = values.ns.linker
            if linker is not None:
                linker.reads.append((base, name, found))
            return _normal(found)
        return UNDECIDED
    if base is UNDECIDED and isinstance(node.value, cst.Name) and node.value.value not in env:
        owner = global_object(values, node.value.value)
        if owner is sys and name == "version_info":
            # The running interpreter's version: the same for every call in this process, and the
            # cache key holds it (core/cachekey.py `python=`): a test of it is decided now.
            return tuple(sys.version_info)
        if owner is not ABSENT and namespace_like(owner) and not isinstance(owner, enum.EnumMeta):
            found = static_attribute(owner, name)
            if found is not ABSENT and (embeddable(found) or operator_function(found) is not None):
                linker = values.ns.linker
                if linker is not None:
                    linker.reads.append((owner, name, found))  # watched as the linker's reads are
                return _normal(found)
            if isinstance(found, dict | set) or isinstance(found, list) and not is_constant(tuple(found)):
                # (arrays and flat lists of numbers: left to the array rules and the fence)
                values.why[node] = (f"a {type(found).__name__} (not a flat list of numbers), which the engine cannot "
                                    "hold in generated code (it holds numbers, flat tuples or lists of numbers, "
                                    "str, None and enum members)")
    return UNDECIDED


def _held(values: Values, node: cst.CSTNode, found: object, spelled: str) -> object:
    if embeddable(found) is None and not passed_function(found):  # (a function: called where it is decided)
        values.why[node] = (f"{spelled} is a {type(found).__name__}, a value the engine cannot hold in generated code "
                            "(numbers, bools, str, None, enum members, tuples of them and objects of such values)")
        return UNDECIDED
    return _normal(found)


def _normal(value: object) -> object:
    """NumPy scalars become Python scalars, as module-level constants do
    (frontend/namespace.normalize_constant)."""
    if isinstance(value, tuple):
        return tuple(_normal(v) for v in value)
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()  # type: ignore[attr-defined]
    return value


def callee_object(values: Values, func: cst.BaseExpression, env: dict[str, object]) -> object:
    """The live object a call's callee names (a global, or an attribute of a global class or
    module; a method of a static object or a callable the code is specialized on:
    frontend/static_methods.py), ABSENT for anything else and for functions of the vectorized code."""
    found = static_methods.callee(values, func, env, UNDECIDED)
    if found is not ABSENT:
        return found
    if isinstance(func, cst.Name):
        if func.value in env or values.ns.resolve(func.value).kind != "unknown":
            return ABSENT  # functions of the code, builtins, math: not evaluated here
        return global_object(values, func.value)
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value not in env:
        owner = global_object(values, func.value.value)
        if owner is ABSENT or not namespace_like(owner):
            return ABSENT
        if isinstance(owner, types.ModuleType):
            return vars(owner).get(func.attr.value, ABSENT)
        try:
            raw = inspect.getattr_static(owner, func.attr.value)
        except AttributeError:
            return ABSENT
        if isinstance(raw, classmethod):
            return getattr(owner, func.attr.value)  # bound to the class: no instance state
        if isinstance(raw, staticmethod):
            return raw.__func__
        return raw if isinstance(raw, type) else ABSENT
    return ABSENT


def call_value(values: Values, node: cst.Call, env: dict[str, object], obj: object = ABSENT) -> object:
    """The value of a call evaluated now by interpreting it (frontend/pure_eval.py), else
    UNDECIDED: with the reason in `values.why` where it is not pure, or the exception it raises
    in `values.raised` (that statement's exception for the lanes that reach it). `obj`: the
    callee when the caller knows it (a function of the code: static_methods.code_call)."""
    obj = callee_object(values, node.func, env) if obj is ABSENT else obj
    if obj is ABSENT or not evaluable(obj):
        return UNDECIDED
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for a in node.args:
        if a.star:
            return UNDECIDED
        v = values.evaluate(a.value, env)
        if v is UNDECIDED or embeddable(v) is None:
            return UNDECIDED
        if a.keyword is not None:
            kwargs[a.keyword.value] = v
        else:
            args.append(v)
    return evaluate_call(values, node, obj, tuple(args), kwargs)


def evaluate_call(values: Values, node: cst.CSTNode, obj: object, args: tuple, kwargs: dict,
                  budget: int = pure_eval.BUDGET) -> object:
    """`obj(*args, **kwargs)` interpreted now for `node` (see call_value), else UNDECIDED."""
    memo_key = (node, tuple(map(id, args)), tuple((k, id(v)) for k, v in kwargs.items()))
    if memo_key in values.memo:  # one object per call site: `ell` is the same object at each read
        return values.memo[memo_key][0]
    covered = values.ns.covered
    try:
        result, reads = pure_eval.evaluate(obj, tuple(args), kwargs, covered=None if covered is None else (
            lambda container, name: (id(container), name) in covered), budget=budget)
    except Impure as exc:
        values.why[node] = f"it cannot be evaluated when the code is generated: {exc.reason}"
        return UNDECIDED
    linker = values.ns.linker
    if linker is not None:
        linker.reads.extend(reads)  # the Watch checks on every call that each is still what was read
    else:
        values.ns.watched.extend(reads)
    if isinstance(result, pure_eval.Raised):
        values.raised[node] = result.exception
        return UNDECIDED
    if embeddable(result) is None:
        values.why[node] = f"the call returned a {type(result).__name__}, a value the engine cannot hold"
        return UNDECIDED
    values.memo[memo_key] = (result, args, kwargs)  # keeps the arguments alive: their ids stay theirs
    return result


class Variants:
    """The callees specialized on static arguments during one lowering: name -> (statics)."""

    def __init__(self) -> None:
        self.statics: dict[str, dict[str, object]] = {}
        self.names: dict[tuple, str] = {}
        self.bases: dict[str, object] = {}  # a base name -> the function it stands for (static_methods.py)

    def name_for(self, ns: Namespace, glob: Global, statics: dict[str, object], avoid: set[str]) -> str | None:
        """The name of `glob`'s copy specialized on `statics` (made on first use), None where a
        value has no deterministic key."""
        try:
            key = (glob.name, tuple((k, value_key(v)) for k, v in sorted(statics.items())))
        except TypeError:
            return None
        if key in self.names:
            return self.names[key]
        taken = set(ns.globals or ()) | set(ns.links) | set(self.statics) | avoid
        base, n = f"{glob.name}_static", 1
        name = base
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        ns.define(name, Global("function", name, glob.value))
        linker = ns.linker
        if linker is not None and glob.name in linker.homes:
            linker.homes[name] = linker.homes[glob.name]  # its globals still mean its own module's
        self.names[key] = name
        self.statics[name] = dict(statics)
        return name


def static_default(value: object) -> bool:
    """A parameter default a copy is specialized on when the call leaves it: a static value (None,
    a str, an object...) or a tuple of numbers (`dims=(-1, -1)`, whose reads are decided there)."""
    return is_static(value) and not isinstance(value, type) or type(value) is tuple and bool(value) \
        and is_constant(value)


def static_arguments(values: Values, node: cst.Call, env: dict[str, object]):  # noqa: ANN201
    """For a call of a function of the code: (its Global, parameter names in order, {param:
    static value} for the static arguments and static defaults left, the static Arg nodes),
    or None when no argument is static or the call cannot be bound here."""
    if not isinstance(node.func, cst.Name) or node.func.value in env:
        return None
    glob = values.ns.resolve(node.func.value)
    if glob.kind != "function" or not isinstance(glob.value, types.FunctionType):
        return None
    try:
        sig = inspect.signature(glob.value)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None
    names = [p.name for p in params]
    statics: dict[str, object] = {}
    static_args: list[cst.Arg] = []
    bound: set[str] = set()
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, a in enumerate(node.args):
        if a.star:
            return None
        if a.keyword is None:
            if i >= len(positional):
                return None
            pname = positional[i]
        else:
            pname = a.keyword.value
            if pname not in names:
                return None
        bound.add(pname)
        v = values.value(a.value, env)
        if v is not UNDECIDED and (is_static(v) and not isinstance(v, type) or passed_function(v)):
            statics[pname] = v
            static_args.append(a)
    for p in params:
        if p.name not in bound and p.default is not p.empty and static_default(p.default):
            statics[p.name] = p.default  # left at a static default (ell=None, dims=(-1, -1)): decided in the copy
    if not statics:
        return None
    return glob, names, positional, statics, static_args
