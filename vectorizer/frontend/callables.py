"""What a callable that is not a plain function runs: the Python function and the arguments bound
to it (issue 51), read without calling anything.

* `obj.method` (a bound method): `type(obj).method`'s function, with `obj` bound as `self`;
  `Cls.make` (a classmethod): its function with the class bound as `cls`;
* `functools.partial(f, *args, **kwargs)`: f's function with those arguments bound (nested
  partials and partials of methods too);
* a callable instance: `type(obj).__call__`'s function with `obj` bound as `self`;
* a function wrapped by a decorator (`__wrapped__`, set by functools.wraps): the wrapped
  function, only where the wrapper is a pure pass-through (`pass_through`). The source
  `inspect` shows for a wrapper is the wrapped function's, so any other wrapper is refused: a
  decorator that changes the arguments or the result must never be skipped.

`resolve` gives a `Bound` (function, positional and keyword arguments bound ahead of the call's),
or a reason it cannot: builtins, C callables, `functools.lru_cache` wrappers (a cache returns an
earlier result for an equal argument: `f(-0.0)` after `f(0.0)`) and anything else stay with
numpy.vectorize's element-by-element semantics (faces/npcompat.py).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable

from ..core.record import Record

_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


class Bound(Record):
    """A callable as the function it runs and the arguments it binds ahead of a call's."""

    __slots__ = ("function", "args", "kwargs")
    function: types.FunctionType
    args: tuple
    kwargs: dict

    def __init__(self, function: types.FunctionType, args: tuple = (), kwargs: dict | None = None) -> None:
        self._set(function=function, args=args, kwargs=dict(kwargs or {}))


def pass_through(wrapper: types.FunctionType) -> bool:
    """Whether `wrapper` only calls its `__wrapped__` with the arguments it got and returns what
    that returns: its code is `def w(*args, **kwargs): return wrapped(*args, **kwargs)` (a
    docstring allowed), `wrapped` a closure cell or a global bound to `wrapper.__wrapped__`.
    Decided on the bytecode: compared with that text compiled by this interpreter."""
    wrapped = getattr(wrapper, "__wrapped__", None)
    code = wrapper.__code__
    varargs = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
    if wrapped is None or code.co_argcount or code.co_kwonlyargcount or code.co_posonlyargcount \
            or code.co_flags & varargs != varargs or code.co_flags & _NOT_PLAIN or code.co_cellvars \
            or len(code.co_varnames) != 2:
        return False
    args, kwargs = code.co_varnames
    if code.co_freevars:
        if len(code.co_freevars) != 1 or code.co_names:
            return False
        name = code.co_freevars[0]
        try:
            target = wrapper.__closure__[0].cell_contents  # type: ignore[index]
        except ValueError:  # an empty cell: the wrapper would raise NameError
            return False
    else:
        if len(code.co_names) != 1:
            return False
        name = code.co_names[0]
        target = wrapper.__globals__.get(name)
    if target is not wrapped:
        return False
    return _template(name, args, kwargs, bool(code.co_freevars)) == code.co_code


@functools.lru_cache(maxsize=64)
def _template(name: str, args: str, kwargs: str, closure: bool) -> bytes:
    """The bytecode of the pass-through wrapper with these names, compiled here."""
    text = f"def _wrapper(*{args}, **{kwargs}):\n    return {name}(*{args}, **{kwargs})\n"
    if closure:  # the same function nested in one that binds `name`: it reads a cell
        nested = "".join(f"    {line}\n" for line in text.splitlines())
        text = f"def _outer():\n    {name} = None\n{nested}    return _wrapper\n"
    module = compile(text, "<vectorizer pass-through>", "exec", dont_inherit=True)
    code = _find(module, "_wrapper")
    return code.co_code if code is not None else b""


def _find(code: types.CodeType, name: str) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name:
                return const
            found = _find(const, name)
            if found is not None:
                return found
    return None


def unwrap(func: types.FunctionType) -> types.FunctionType | None:
    """The function a chain of pass-through wrappers calls (`func` itself when it wraps nothing),
    None when one wrapper of the chain does more than pass its arguments through."""
    seen = 0
    while hasattr(func, "__wrapped__"):
        inner = func.__wrapped__
        if not pass_through(func) or not isinstance(inner, types.FunctionType) or seen > 16:
            return None
        func, seen = inner, seen + 1
    return func


def resolve(obj: object) -> Bound | str:
    """The function `obj` runs and the arguments it binds, or why there is none (see the module
    docstring)."""
    args: list = []
    kwargs: dict = {}
    for _ in range(32):  # partial(partial(obj.method, 1), 2): one layer a turn
        if isinstance(obj, functools.partial):
            args[:0] = obj.args
            kwargs = {**obj.keywords, **kwargs}
            obj = obj.func
        elif isinstance(obj, types.MethodType):
            args.insert(0, obj.__self__)
            obj = obj.__func__
        elif isinstance(obj, types.FunctionType):
            func = unwrap(obj)
            if func is None:
                return (f"{obj.__qualname__} is wrapped by a decorator that does more than pass its arguments "
                        "through (the source inspect shows for a wrapper is the wrapped function's)")
            return Bound(func, tuple(args), kwargs)
        elif _instance_call(obj) is not None:
            args.insert(0, obj)
            obj = _instance_call(obj)
        else:
            return f"{obj!r} is a {type(obj).__name__}, not a Python function (def or lambda) the engine can read"
    return f"{obj!r} binds its arguments more than 32 layers deep"


def _instance_call(obj: object) -> Callable | None:
    """`type(obj).__call__` when it is a Python function (a callable instance of a Python class)."""
    t = type(obj)
    if isinstance(obj, type) or t.__module__.split(".")[0] in ("builtins", "vectorizer", "numpy"):
        return None  # (vectorizer's own callables run the engine, not a user's scalar code)
    found = inspect.getattr_static(t, "__call__", None)
    return found if isinstance(found, types.FunctionType) else None
