"""`vectorize(obj.method)`, `vectorize(Shape().area)`, `vectorize(callable_instance)`,
`vectorize(functools.partial(f, ...))` (issue 51): the function they run, compiled, with the
arguments they bind given on every call.

`frontend/callables.py` finds the function and the bound arguments without calling anything.
The function is an ordinary `VectorizedFunction`; a bound `self` (or a class, a str, None, a
function) is a uniform argument that is not a number, so the code is specialized on it and the
kernel's key holds its content (engine/statics.py: an object's class and attributes, the code of
its class and of the functions it stores), read again at every call: an object changed since,
or another object, gets its own code. A bound number is an argument like any other.
"""

from __future__ import annotations

import enum
import functools
import inspect
import warnings
from typing import Any

import numpy as np

from ..api import VectorizedFunction
from ..engine.batch import Batch
from ..engine.inputs import InputError
from ..engine.loop import per_element
from ..engine.statics import static_key
from ..errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeValueError,
    user_stacklevel,
)
from ..frontend.callables import Bound, resolve
from ..options import Options


def _call_lane(pyfunc: Any, positional: int, keys: list[str], *values: Any) -> Any:
    return pyfunc(*values[:positional], **dict(zip(keys, values[positional:])))


class BoundVectorized:
    """A vectorized callable: calls it like the original, on numbers or arrays."""

    def __init__(self, vf: VectorizedFunction, bound: Bound, original: Any) -> None:
        self._vf, self._function = vf, bound.function
        self._args, self._kwargs = bound.args, bound.kwargs
        functools.update_wrapper(self, bound.function, updated=())  # name, qualname, doc, module
        self.pyfunc = self.__wrapped__ = original
        try:
            self.__signature__ = inspect.signature(original)
        except (TypeError, ValueError):  # pragma: no cover - a callable inspect cannot read
            self.__signature__ = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        why = self._refresh()
        if why is not None:
            return self._element_by_element(why, args, kwargs)
        return self._vf(*self._args, *args, **{**self._kwargs, **kwargs})

    def _refresh(self) -> str | None:
        """The callable resolved again (without calling anything), compiled again where it now
        runs another function; why it cannot be compiled any more, if so. `obj(x)` looks
        `__call__` up on obj's class at every call (a class whose `__call__` was replaced runs
        the new one), and a pass-through wrapper's global may have been bound to another function."""
        bound = resolve(self.pyfunc)
        if isinstance(bound, str):
            return bound
        if bound.function is not self._function:
            self._vf, self._function = VectorizedFunction(bound.function, self._vf.options), bound.function
        self._args, self._kwargs = bound.args, bound.kwargs
        return None

    def _element_by_element(self, why: str, args: tuple, kwargs: dict) -> Any:
        """The callable as it is now, run on each lane's Python values as a loop runs it (the
        engine's loop: engine/loop.py), after a FallbackWarning; a VectorizeError under
        fallback="error"."""
        message = f"{self.pyfunc!r} no longer runs a Python function the engine can compile: {why}"
        if self._vf.options.fallback == "error":
            raise VectorizeError(message, hint="fallback='warn' runs it element by element, as a loop")
        warnings.warn(FallbackWarning(f"{message}; it runs element by element, as a loop (slow)"),
                      stacklevel=user_stacklevel())
        keys = list(kwargs)
        try:
            batch = Batch([f"arg{i}" for i in range(len(args))] + keys,
                          [np.asarray(v) for v in (*args, *kwargs.values())])
        except ValueError as exc:  # shapes that do not broadcast
            raise VectorizeValueError(str(exc)) from None
        # A partial has no __code__: the loop passes each lane's values positionally, in order.
        return per_element(functools.partial(_call_lane, self.pyfunc, len(args), keys), batch, None)

    @property
    def vectorized(self) -> VectorizedFunction:
        """The engine's function of the bound function (its parameters include the bound ones)."""
        return self._vf

    def explain(self, *sample_args: Any, html: Any = None, **sample_kwargs: Any) -> str:
        """As VectorizedFunction.explain, the bound arguments given first."""
        if not sample_args and not sample_kwargs:
            return self._vf.explain(html=html)
        return self._vf.explain(*self._args, *sample_args, html=html, **{**self._kwargs, **sample_kwargs})

    def __getattr__(self, name: str) -> Any:  # scalar, source, backend, auto_trial, watch...
        if name.startswith("__") or name in ("_vf", "_args", "_kwargs"):
            raise AttributeError(name)
        return getattr(self._vf, name)

    def __repr__(self) -> str:
        return f"<vectorized {self.pyfunc!r}>"


def compile_bound(pyfunc: Any, options: Options) -> BoundVectorized | VectorizedFunction | str:
    """The vectorized form of a callable that is no plain function, or why there is none."""
    if isinstance(pyfunc, BoundVectorized):
        pyfunc = pyfunc.pyfunc  # vectorize(vectorize(obj.method), backend=...): again, with these options
    bound = resolve(pyfunc)
    if isinstance(bound, str):
        return bound
    for value in (*bound.args, *bound.kwargs.values()):
        if not _specializable(value):
            return (f"{pyfunc!r} binds a {type(value).__qualname__}, which is no number and no value the code can be "
                    "specialized on (None, a str, an enum member, a function, a class, or an object of a Python "
                    "class whose attributes are such values)")
    # (a pass-through wrapper too: what its global or cell holds is checked again at every call)
    return BoundVectorized(VectorizedFunction(bound.function, options), bound, pyfunc)


def _specializable(value: Any) -> bool:
    """A bound argument a call can pass on: a number, or a value the code is specialized on."""
    if type(value) in (bool, int, float) or isinstance(value, np.number):
        return True
    if isinstance(value, bool | int | float | complex) and not isinstance(value, enum.Enum):
        return False  # a number subclass: its own operators (`__rmul__`...) are not a number's
    try:
        static_key(value)
    except InputError:
        return False
    return True
