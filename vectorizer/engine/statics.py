"""Uniform arguments that are not numbers, and zero-argument helpers: the values a call's code is
specialized on (issue 30 items 1-3).

A lane of the scalar function receives the same `None`, string, enum member or flag on every
lane, so a branch on it (`if method == "fast":`, `if tol is None:`) has one answer per call: the
code is generated for that answer (passes/specialize.py) and the kernel's key carries the value.
Numbers stay ordinary arguments (batched or uniform) except where their value must be known to
generate the code: a Python `bool` given to a parameter whose default is a bool (an option flag),
a Python `int` given as `round`'s `ndigits`, either to a parameter the function never rebinds;
a tuple given to a parameter whose default is a tuple.

Zero-argument helpers of the module (`isIP()`, which reads the unit system from a module global)
return the same value for every lane: each batched call runs them once, before dispatch, and the
value joins the key (never frozen: the next call runs them again). Only helpers that read nothing
but module-level values and call nothing but such helpers qualify (`pure_helpers`), and only once
the generation-time interpreter has run one to its end (frontend/pure_eval.py): a helper that
loops forever or acts is never run for lanes that do not call it.
"""

from __future__ import annotations

import ast
import builtins
import dis
import enum
import inspect
import textwrap
import types
from collections.abc import Callable

import numpy as np

from ..frontend.static_objects import is_static_object, object_key, value_key
from .codekeys import code_key
from .inputs import InputError
from .lanefn import lane_function  # noqa: F401 - re-exported: statics.lane_function, as before

_KEYED = (type(None), bool, int, float, str, bytes)
_LANES = frozenset({float, np.ndarray})  # never one value the code is specialized on
_TUPLE_KEYS: dict[int, tuple[tuple, str]] = {}  # id -> (a tuple of _KEYED values, its key): a default tuple
# (primefac's 16 primes) is keyed at every call, ~20 us
_WRITES = {"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR",
           "IMPORT_NAME", "IMPORT_FROM", "YIELD_VALUE"}


def static_key(value: object) -> str:
    """A deterministic text for a value the code is specialized on (its type is part of it: 1,
    1.0 and True differ); an `InputError` for a value that has none."""
    if isinstance(value, enum.Enum):
        return f"enum:{type(value).__module__}.{type(value).__qualname__}.{value.name}"
    if isinstance(value, tuple):
        held = _TUPLE_KEYS.get(id(value))
        if held is not None and held[0] is value:
            return held[1]
        key = f"tuple({','.join(static_key(v) for v in value)})"
        if type(value) is tuple and all(type(v) in _KEYED for v in value):  # immutable, all the way down
            if len(_TUPLE_KEYS) >= 256:
                _TUPLE_KEYS.clear()
            _TUPLE_KEYS[id(value)] = (value, key)  # held: its id names no other tuple while it is here
        return key
    if type(value) in _KEYED:
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, str | bytes):  # a subclass (pygeodesy's Str_): its class and its characters
        base = str if isinstance(value, str) else bytes
        return f"{type(value).__module__}.{type(value).__qualname__}:{base.__repr__(value)}"
    if is_static_object(value):  # its class and its attributes' values (frontend/static_objects.py)
        try:
            return object_key(value, code=code_key)
        except TypeError as exc:
            raise InputError(f"a {type(value).__qualname__} object: {exc}") from None
    if isinstance(value, type | types.FunctionType) and value.__module__ != "builtins":
        return value_key(value, code=code_key)  # a class or a function: its code (engine/codekeys.py)
    raise InputError(f"a {type(value).__name__} has no deterministic value to key a specialization")


def entry(value: object, helper: str | None = None) -> tuple[str, str, tuple]:
    """A kernel key's entry for a specialized argument ("s") or a helper's value ("h"), shaped
    as a number argument's (kind, uniform, per-example shape): its shape is ()."""
    return ("s", static_key(value), ()) if helper is None else ("h", f"{helper}()={static_key(value)}", ())


def helper_values(helpers: dict[str, Callable[[], object]]) -> dict[str, object] | None:
    """Each helper's value now; None if one raised (the scalar loop raises it where a lane calls
    it). A value with no key is left out: its call stays, refused at the call site."""
    values: dict[str, object] = {}
    for name, helper in helpers.items():
        try:
            value = helper()
            static_key(value)
        except InputError:
            continue
        except Exception:  # noqa: BLE001 - the loop's exception: the per-element run raises it
            return None
        values[name] = value
    return values


def is_static(value: object) -> bool:
    """None, a string, bytes or an enum member: never a number array, always a specialization."""
    return value is None or isinstance(value, str | bytes | enum.Enum)


class Plan:
    """Which parameters of a function are specialized on their value when uniform."""

    __slots__ = ("flags", "tuples", "ndigits")

    def __init__(self, func: types.FunctionType) -> None:
        params = list(inspect.signature(func).parameters.values())
        bound_again = rebound(func.__code__)
        numbers = [i for i, p in enumerate(params) if p.name not in bound_again]  # flags, ndigits
        self.flags = frozenset(i for i in numbers if isinstance(params[i].default, bool))
        self.tuples = frozenset(i for i, p in enumerate(params)
                                if isinstance(p.default, tuple) or "tuple" in str(p.annotation).lower())
        ndigits = round_ndigits(func)
        self.ndigits = frozenset(i for i in numbers if params[i].name in ndigits)

    def statics(self, names: list[str], values: list[object]) -> dict[str, object]:
        """The arguments of this call the code is specialized on (name -> value)."""
        found = self.whole(names, values)
        for name, v in found.items():
            try:
                static_key(v)
            except InputError as exc:
                raise InputError(f"argument {name!r}: {exc}; a uniform argument that is not a number must be "
                                 "None, a str, bytes, a bool, an enum member, a tuple of them, a function, a class "
                                 "or an object whose attributes are such values") from None
        return found

    def whole(self, names: list[str], values: list[object]) -> dict[str, object]:
        """The arguments of this call that are one value for every lane, not arrays of lanes
        (name -> value): those `statics` specializes on, before it checks they can be."""
        found: dict[str, object] = {}
        for i, v in enumerate(values):
            t = type(v)
            if t in _LANES:  # (an array, a float: lanes of numbers, the common case, at once)
                continue
            if (v is None or isinstance(v, str | bytes | enum.Enum) or (t is bool and i in self.flags)
                    or (t is tuple and i in self.tuples) or (t is int and i in self.ndigits) or is_static_object(v)
                    or t is types.FunctionType or isinstance(v, type) and v.__module__ != "builtins"):
                found[names[i]] = v
        return found


def rebound(code: types.CodeType) -> set[str]:
    """The names `code` binds or deletes (`n += 1`, `for n in ...`, `n = 0` in a branch): a
    parameter among them does not hold its argument throughout, so it is never specialized (its
    reads become the value, passes/specialize.py). It stays an ordinary argument, as an array
    given to it would."""
    names: set[str] = set(code.co_cellvars)  # a closure may bind it
    for ins in dis.get_instructions(code):
        if ins.opname.startswith(("STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF")):
            names.update(ins.argval if isinstance(ins.argval, tuple) else (ins.argval,))
    return names


def round_ndigits(func: types.FunctionType) -> set[str]:
    """Parameters given as `round`'s ndigits (`round(x, n)`, `round(x, ndigits=n)`), read from
    the function's source: its tree says which call is `round`'s, which its bytecode cannot
    without following the stack (a parameter passed last of two arguments to `max` is none).
    None without source, where nothing is compiled anyway."""
    code = func.__code__
    if "round" not in code.co_names:
        return set()
    params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    tree = _function_tree(func)
    if tree is None:
        return set()
    given: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "round":
            ndigits = node.args[1] if len(node.args) == 2 else next(
                (k.value for k in node.keywords if k.arg == "ndigits"), None)
            if isinstance(ndigits, ast.Name) and ndigits.id in params:
                given.add(ndigits.id)
    return given


def _function_tree(func: types.FunctionType) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | None:
    """`func`'s own definition, parsed from its source; None where there is none to read."""
    try:
        module = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    kinds = (ast.Lambda,) if func.__name__ == "<lambda>" else (ast.FunctionDef, ast.AsyncFunctionDef)
    found = [n for n in ast.walk(module) if isinstance(n, kinds) and getattr(n, "name", func.__name__) == func.__name__]
    return found[0] if len(found) == 1 else None


def pure_helpers(func: types.FunctionType, resolve: Callable[[str], object]) -> dict[str, types.FunctionType]:
    """The zero-argument module functions `func` reaches (through same-module calls) whose value
    is the same for every lane: they read only module-level numbers, strings, None, enum members
    and tuples, raise builtin exceptions, call only such helpers, and write nothing.
    `resolve(name)` gives the object a module global is bound to (None-able: ABSENT is passed
    through as any non-value object)."""
    found: dict[str, types.FunctionType] = {}
    todo, seen = [func], set()
    while todo:
        f = todo.pop()
        if f.__qualname__ in seen:
            continue
        seen.add(f.__qualname__)
        for name in f.__code__.co_names:
            obj = resolve(name)
            if isinstance(obj, types.FunctionType) and obj.__module__ == func.__module__:
                if _takes_nothing(obj):
                    if _pure(obj, resolve, set()) and _finishes(obj):
                        found[name] = obj
                else:
                    todo.append(obj)
    return found


def _finishes(f: types.FunctionType) -> bool:
    """It finishes within the interpreter's budget, reading and calling only what is pure
    (frontend/pure_eval.py): what each call then runs for every lane, reached or not, cannot
    hang or act."""
    from ..frontend.pure_builtins import Impure
    from ..frontend.pure_eval import evaluate

    try:
        evaluate(f, (), {})
    except Impure:
        return False
    return True


def _takes_nothing(f: types.FunctionType) -> bool:
    c = f.__code__
    return c.co_argcount == 0 and c.co_kwonlyargcount == 0 and not c.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)


def _pure(f: types.FunctionType, resolve: Callable[[str], object], stack: set[str]) -> bool:
    code = f.__code__
    if f.__qualname__ in stack or f.__closure__ or any(isinstance(c, types.CodeType) for c in code.co_consts):
        return False
    if any(i.opname in _WRITES for i in dis.get_instructions(code)):
        return False
    attrs = {i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_ATTR", "LOAD_METHOD")}
    for name in code.co_names:
        if name in attrs:
            return False  # attribute reads reach objects whose state may change
        obj = resolve(name)
        if isinstance(obj, types.FunctionType):
            if not (_takes_nothing(obj) and _pure(obj, resolve, stack | {f.__qualname__})):
                return False
        elif isinstance(obj, type) and issubclass(obj, BaseException) and getattr(builtins, obj.__name__, None) is obj:
            continue
        else:
            try:
                static_key(obj)
            except InputError:
                return False
    return True


def annotated_key(signature: inspect.Signature) -> tuple[tuple, dict[str, object]]:
    """The key of the specialization the annotations describe (`vectorizer show`, the CLI), and
    the parameters fixed by a static default (None, a str...) on it."""
    kinds = {int: "i", float: "f", bool: "b", "int": "i", "float": "f", "bool": "b"}
    params = list(signature.parameters.values())
    fixed = {p.name: p.default for p in params if p.default is not p.empty and is_static(p.default)}
    for name, value in list(fixed.items()):
        try:
            static_key(value)
        except InputError:  # no key: not pre-specialized here (a call passing it is refused there)
            del fixed[name]
    key = tuple(entry(fixed[p.name]) if p.name in fixed else (kinds.get(p.annotation, "f"), False, ()) for p in params)
    return key, fixed
