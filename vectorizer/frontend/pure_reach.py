"""Calls and attribute reads of the generation-time interpreter (frontend/pure_eval.py): which
callee runs how (interpreted, or a pure built-in), and what `obj.name` is without running a
user's `__getattr__`, property or descriptor that the interpreter does not interpret itself."""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
import types
from typing import Any

from . import pure_builtins as pb
from .lane_stand_ins import LaneStandIn, is_instance, type_of
from .pure_builtins import Impure, Thrown

_ABSENT = object()
_BUILTIN_TYPES = frozenset({int, float, complex, bool, str, bytes, tuple, list, dict, set, frozenset, range,
                            slice, enumerate, zip, map, filter, reversed})


def call(ev: Any, callee: object, args: list, kwargs: dict) -> object:
    """`callee(*args, **kwargs)`, interpreted where it is Python code, `Impure` where it is not pure."""
    from .pure_exprs import Closure

    if isinstance(callee, pb.Interpreted):
        callee = callee.callee
    if args and isinstance(args[0], LaneStandIn) and not kwargs:  # a lane's kind, not its value
        if callee is isinstance and len(args) == 2:
            return is_instance(args[0], args[1])
        if callee is type and len(args) == 1:
            return type_of(args[0])
    if isinstance(callee, Closure):
        return ev.call_closure(callee, args, kwargs)
    if isinstance(callee, types.MethodType) and isinstance(callee.__func__, types.FunctionType):
        return call(ev, callee.__func__, [callee.__self__, *args], kwargs)
    if isinstance(callee, types.FunctionType):
        why = pb.module_reason(callee.__module__)
        if why is not None:
            raise Impure(f"it calls {pb.describe(callee)}(), which reads or changes {why}")
        return ev.interpret(callee, args, kwargs)
    if isinstance(callee, type):
        return construct(ev, callee, args, kwargs)
    if isinstance(callee, types.BuiltinFunctionType | types.BuiltinMethodType):
        pb.wrap_functions(ev, callee, args, kwargs)
        pb.check_builtin_call(callee, args, kwargs, ev.made)
        if getattr(callee, "__name__", "") == "range":
            _bounded_range(args, ev.budget)
        return ev.made_here(ev.apply(lambda: callee(*args, **kwargs), (), None))
    raise Impure(f"it calls {pb.describe(callee)}, a {type(callee).__qualname__}, which is not known to be pure")


def construct(ev: Any, cls: type, args: list, kwargs: dict) -> object:
    """`cls(*args, **kwargs)`: a built-in type, an exception, an enum lookup, or a Python class
    whose `__init__` is interpreted on a new object the evaluation owns."""
    if cls in _BUILTIN_TYPES:
        if cls is range:
            _bounded_range(args, ev.budget)
        pb.wrap_functions(ev, _AS_BUILTIN.get(cls, cls), args, kwargs)
        pb.check_builtin_call(_AS_BUILTIN.get(cls, cls), args, kwargs, ev.made)  # type: ignore[arg-type]
        return ev.made_here(ev.apply(lambda: cls(*args, **kwargs), (), None))
    if issubclass(cls, BaseException):
        if not issubclass(cls, Exception):
            raise Impure(f"it makes a {cls.__qualname__}, which is not an Exception")
        if isinstance(inspect.getattr_static(cls, "__init__"), types.FunctionType):
            exc = cls.__new__(cls, *args)
            _init(ev, cls, exc, args, kwargs)
            return exc
        if not all(pb.plain(a) for a in (*args, *kwargs.values())):
            raise Impure(f"it makes a {cls.__qualname__} of values whose methods may run")
        return ev.apply(lambda: cls(*args, **kwargs), (), None)
    if isinstance(cls, enum.EnumMeta):
        if kwargs or len(args) != 1 or not pb.plain(args[0]):
            raise Impure(f"it calls the enum {cls.__qualname__} with other than one plain value")
        return ev.apply(cls, (args[0],), None)
    if type(cls).__call__ is not type.__call__ or cls.__new__ is not object.__new__ or cls.__module__ == "builtins":
        raise Impure(f"it makes a {cls.__qualname__}, whose construction runs code the interpreter does not read "
                     "(a metaclass, __new__, or a type implemented in C)")
    why = pb.module_reason(cls.__module__)
    if why is not None:
        raise Impure(f"it makes a {pb.describe(cls)}, which reads or changes {why}")
    obj = object.__new__(cls)
    ev.made[id(obj)] = obj
    _init(ev, cls, obj, args, kwargs)
    return obj


def _init(ev: Any, cls: type, obj: object, args: list, kwargs: dict) -> None:
    init = inspect.getattr_static(cls, "__init__")
    if init is object.__init__ or init is BaseException.__init__:
        if args or kwargs and init is object.__init__:
            raise Thrown(TypeError(f"{cls.__qualname__}() takes no arguments"))
        return
    if dataclasses.is_dataclass(cls) and getattr(init, "__code__", None) is not None \
            and init.__code__.co_filename.startswith("<"):  # made by dataclasses, from text
        _dataclass_init(ev, cls, obj, args, kwargs)
        return
    if not isinstance(init, types.FunctionType):
        raise Impure(f"{cls.__qualname__}.__init__ is not Python code the interpreter can read")
    if ev.call(init, [obj, *args], kwargs) is not None:
        raise Thrown(TypeError("__init__() should return None"))


def _dataclass_init(ev: Any, cls: type, obj: object, args: list, kwargs: dict) -> None:
    """What the `__init__` dataclasses writes does: the fields from the arguments or their
    defaults (a default_factory is called as the evaluation calls anything), then __post_init__."""
    fields = [f for f in dataclasses.fields(cls)]
    if any(isinstance(f.type, dataclasses.InitVar) for f in fields):
        raise Impure(f"{cls.__qualname__} has InitVar fields")
    params = [f for f in fields if f.init]
    positional = [f for f in params if not getattr(f, "kw_only", False)]
    if len(args) > len(positional):
        raise Thrown(TypeError(f"{cls.__qualname__}.__init__() takes {len(positional) + 1} positional arguments"))
    given = {f.name: a for f, a in zip(positional, args)}
    for name, value in kwargs.items():
        if name in given or name not in {f.name for f in params}:
            raise Thrown(TypeError(f"{cls.__qualname__}.__init__() got an unexpected or repeated argument {name!r}"))
        given[name] = value
    for f in fields:
        if f.name in given and f.init:
            value = given[f.name]
        elif f.default is not dataclasses.MISSING:
            value = f.default
        elif f.default_factory is not dataclasses.MISSING:
            value = ev.call(f.default_factory, [], {})
        elif f.init:
            raise Thrown(TypeError(f"{cls.__qualname__}.__init__() missing argument {f.name!r}"))
        else:
            continue
        object.__setattr__(obj, f.name, value)
    post = inspect.getattr_static(cls, "__post_init__", None)
    if post is not None:
        ev.call(post, [obj], {})


def attribute(ev: Any, owner: object, name: str, node: ast.AST, frame: object) -> object:
    """`owner.name`, read as Python would, without running code the interpreter does not read."""
    if isinstance(owner, LaneStandIn):
        owner.read()
    if isinstance(owner, types.ModuleType):
        if owner in pb.PURE_MODULES:
            return ev.apply(getattr, (owner, name), node)
        why = pb.module_reason(owner.__name__)
        value = vars(owner).get(name, _ABSENT)
        if why is not None and type(value) is type:
            # A plain class of such a module (np.ndarray, for isinstance) is read as PURE_MODULES'
            # attributes are, unwatched: a library's classes are not rebound. Calling it is still
            # refused, with its module's reason.
            return value
        if why is not None:
            raise Impure(f"it reads {owner.__name__}.{name}: {why} ({pb.where(frame, node)})")
        if value is _ABSENT:
            raise Thrown(AttributeError(f"module {owner.__name__!r} has no attribute {name!r}"))
        ev.read(vars(owner), name, value, root=True)
        return value
    if isinstance(owner, type):
        return _class_attribute(ev, owner, owner, name, frame, node)
    t = type(owner)
    if t in _BUILTIN_TYPES or pb.plain(owner) or isinstance(owner, BaseException) and name == "args":
        return ev.apply(getattr, (owner, name), node)
    if isinstance(owner, types.FunctionType) and name in owner.__dict__ and not name.startswith("__wrapped"):
        value = owner.__dict__[name]  # an attribute set on a function (trueskill's global_env.__trueskill__)
        ev.read(owner.__dict__, name, value, root=True)
        return value
    if isinstance(owner, types.FunctionType | types.MethodType | types.BuiltinFunctionType) or t.__module__ == "builtins":
        raise Impure(f"it reads {name!r} of a {t.__qualname__} ({pb.where(frame, node)})")
    if t.__getattribute__ is not object.__getattribute__ or inspect.getattr_static(t, "__getattr__", None) is not None:
        raise Impure(f"{t.__qualname__} defines __getattribute__ or __getattr__ ({pb.where(frame, node)})")
    found = inspect.getattr_static(t, name, _ABSENT)
    if isinstance(found, property):
        if not isinstance(found.fget, types.FunctionType):
            raise Impure(f"{t.__qualname__}.{name} is a property the interpreter cannot read")
        return ev.call(found.fget, [owner], {})
    if found is not _ABSENT and hasattr(type(found), "__set__") and not isinstance(found, types.MemberDescriptorType):
        raise Impure(f"{t.__qualname__}.{name} is a descriptor ({pb.where(frame, node)})")
    state = getattr(owner, "__dict__", None)
    if isinstance(state, dict) and name in state:
        value = state[name]
        if id(owner) in ev.external:
            ev.read(state, name, value)
        return value
    if isinstance(found, types.MemberDescriptorType):  # __slots__
        return ev.apply(found.__get__, (owner, t), node)
    if found is _ABSENT:
        raise Thrown(AttributeError(f"{t.__qualname__!r} object has no attribute {name!r}"))
    if isinstance(found, types.FunctionType):
        return types.MethodType(found, owner)
    return _class_attribute(ev, t, owner, name, frame, node)


def _class_attribute(ev: Any, cls: type, owner: object, name: str, frame: object, node: ast.AST) -> object:
    try:
        found = inspect.getattr_static(cls, name)
    except AttributeError:
        raise Thrown(AttributeError(f"type object {cls.__qualname__!r} has no attribute {name!r}")) from None
    if isinstance(found, classmethod):
        return types.MethodType(found.__func__, cls)
    if isinstance(found, staticmethod):
        return found.__func__
    if isinstance(found, types.FunctionType | type):
        return found
    if isinstance(found, enum.Enum) or cls.__module__ == "builtins":
        return ev.apply(getattr, (cls, name), node)
    if hasattr(type(found), "__get__"):
        raise Impure(f"{cls.__qualname__}.{name} is a descriptor the interpreter cannot read ({pb.where(frame, node)})")
    home = next((base for base in cls.__mro__ if name in vars(base)), cls)
    ev.read(home, name, found, root=True)
    return found


def _bounded_range(args: list, budget: int) -> None:
    try:
        size = len(range(*args))
    except (TypeError, ValueError, OverflowError):
        return  # the call itself raises it
    if size > budget:
        raise Impure(f"a range of {size:,} items is more than the evaluation's {budget:,} steps")


_AS_BUILTIN = {t: getattr(__import__("builtins"), t.__name__) for t in _BUILTIN_TYPES}
