"""`vmap(f, in_axes, out_axes)`: JAX's vmap for plain Python + NumPy functions.

    dist = vmap(lambda_free_distance, in_axes=(0, None))     # map over rows of x, share y
    pairwise = vmap(vmap(distance, (None, 0)), (0, None))    # a distance matrix

`in_axes` is an int, None, or a tuple/list with one entry per positional argument; an entry is
an int, None, or a prefix tree of its argument (`in_axes=({"x": 0, "w": None},)`); keyword
arguments are mapped over axis 0. `out_axes` is likewise an int, None, or a prefix tree of the
result. Arguments and results may be pytrees as JAX has them: tuples, lists, dicts, namedtuples,
dataclasses, registered nodes (faces/pytree.py). Arguments and results that are arrays and
numbers run as generated code: each mapped argument has its mapped axis moved to the front;
arguments not mapped at a level get a size-1 axis there, so nested vmaps become one call of the
generated code over a grid of lanes (the levels broadcast), and each lane's slice is the
per-example array the function sees. A call with pytrees runs the same way on the function
specialized on their leaves (vmap_compile.py, pytree_flat.py; the axes: vmap_layout.py) when the function only reads leaves
by constant subscripts and returns pytree literals. Other pytree calls, callables that are not
Python functions and functions the engine refuses run example by example instead (vmap_loop.py),
after one `FallbackWarning` per reason (a `VectorizeError` with fallback="error"). `out_axes` puts each level's axis in the output, innermost level first; None
requires the output not to vary along that level. `axis_size` gives the size of a level that maps
no argument.
"""

from __future__ import annotations

import functools
import inspect
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..api import VectorizedFunction, vectorize
from ..errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeValueError,
    user_stacklevel,
)
from ..options import Options, exactness
from .pytree import check_spec, is_axis, node_kind
from .vmap_compile import UNCHANGED, PytreeCalls
from .vmap_layout import Axis, in_entry, lay_out, out_entry, place
from .vmap_loop import loop_vmap


class Vmapped:
    """A vmapped function (call it like JAX's)."""

    def __init__(self, fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, axis_size: int | None = None,
                 *, backend: str = "auto", fallback: str = "warn", reassociate: bool = False,
                 exact: bool = True) -> None:
        if isinstance(in_axes, dict):
            raise VectorizeValueError("vmap in_axes as a dict: in_axes must be an int, None, or a tuple with one entry "
                                      "per positional argument (an entry may be a dict, for a dict argument)")
        for name, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
            check_spec(axes, name)
        if axis_size is not None and (not isinstance(axis_size, int) or axis_size < 0):
            raise VectorizeValueError(f"vmap axis_size must be a non-negative int, got {axis_size!r}")
        self.fun = fun  # what one example runs: the function, or the next vmap level
        inner = fun
        self.levels: list[tuple[Any, Any, int | None]] = [(in_axes, out_axes, axis_size)]
        while isinstance(inner, Vmapped):
            self.levels += inner.levels
            inner = inner.base
        self.base: Callable[..., Any] = inner.scalar if isinstance(inner, VectorizedFunction) else inner
        self._vf: VectorizedFunction | None = None
        if isinstance(inner, VectorizedFunction) or isinstance(inner, types.FunctionType):
            # fallback="error" refuses at the call: a function of pytrees the engine refuses as it
            # is may run as generated code once specialized on the leaves (vmap_compile.py)
            self._vf = inner if isinstance(inner, VectorizedFunction) else vectorize(
                inner, backend=backend, fallback="warn", reassociate=reassociate, exact=exact)
            if not isinstance(inner, VectorizedFunction):
                self._vf.options = Options(backend=backend, fallback=fallback, reassociate=reassociate, exact=exact)
        elif not callable(inner):
            raise TypeError(f"vmap needs a callable, got {type(inner).__name__}")
        elif fallback == "error":
            raise VectorizeError(f"vmap compiles Python functions (def or lambda); {inner!r} is not one",
                                 hint="fallback='warn' runs it example by example")
        self._fallback = fallback
        self._warned: set[str] = set()
        functools.update_wrapper(self, self.base)
        if not hasattr(self, "__name__"):  # a functools.partial, a callable object
            self.__name__ = type(self.base).__name__
        try:
            self.__signature__: inspect.Signature | None = inspect.signature(self.base)
        except (TypeError, ValueError):  # some builtins have none: arguments are named by position
            self.__signature__ = None
        # calls with pytrees, as generated code of their leaves (vmap_compile.py)
        self._pytrees = PytreeCalls(self.base, self._vf, self.levels, self.__signature__) \
            if self._vf is not None else None

    @property
    def source(self) -> str:
        """The generated module of the last call's specialization: it depends on the per-example
        shapes, which only a call gives, so there is none before the first call. After a call
        with pytrees that ran as generated code, the function of their leaves."""
        if self._vf is None:
            raise VectorizeError(f"vmap({self.__name__}).source: it runs example by example, with no generated code")
        if self._pytrees is not None and self._pytrees.last_vf is not None:
            return self._pytrees.last_vf.source
        if self._vf.last_key is None:
            raise VectorizeError(f"vmap({self.__name__}).source: the generated code is made per specialization "
                                 "(argument kinds and per-example shapes) at the first call; there is none yet",
                                 hint="call the vmapped function once, then read .source")
        return self._vf.source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        why = self._loop_reason(args, kwargs)
        if why is not None and self._pytrees is not None:
            done, out = self._pytrees.call(self._names(len(args)), args, kwargs)  # pytrees: the function of their leaves
            if done:
                return out
            why = why if out == UNCHANGED else out
        if why is not None:
            if self._fallback == "error":
                raise VectorizeError(f"vmap({self.__name__}) cannot run as generated code: {why}",
                                     hint="fallback='warn' runs it example by example (slow, exact)")
            if why not in self._warned:
                self._warned.add(why)
                warnings.warn(FallbackWarning(f"vmap({self.__name__}) runs example by example (slow, exact): {why}"),
                              stacklevel=user_stacklevel())
            in_axes, out_axes, axis_size = self.levels[0]
            return loop_vmap(self.fun, self._names(len(args)), args, kwargs, in_axes, out_axes, axis_size)
        assert self._vf is not None and self._pytrees is not None
        self._pytrees.last_vf = None
        arrays, sizes, ndims = self._lanes(args, kwargs)
        result = self._vf.call_lanes(arrays, ndims)
        outs = list(result) if isinstance(result, tuple) else [result]
        outs = [place(self.levels, np.asarray(o), sizes, [out_entry(level[1], len(outs), k) for level in self.levels])
                for k, o in enumerate(outs)]
        return tuple(outs) if isinstance(result, tuple) else outs[0]

    def explain(self, *sample_args: Any, html: Any = None, **sample_kwargs: Any) -> str:
        """As VectorizedFunction.explain: of the specialization sample arguments (laid out as a call
        lays them out: the mapped axes as lanes) would run, else of the last compiled pytree call's
        function of the leaves, else of the annotations; for a call that would run example by
        example, why."""
        from . import explain

        if self._vf is None or self._pytrees is None:
            return f"vmap({self.__name__}) runs example by example (no generated code): {self._loop_reason((), {})}"
        last_vf = self._pytrees.last_vf
        if not (sample_args or sample_kwargs):
            return (last_vf or self._vf).explain(html=html)
        why = self._loop_reason(sample_args, sample_kwargs)
        if why is not None and any(node_kind(v) is not None for v in (*sample_args, *sample_kwargs.values())):
            if last_vf is not None:  # what the last call with pytrees ran: the function of its leaves
                return last_vf.explain(html=html)
            return (f"vmap({self.__name__}): {why}; a call decides whether it runs as generated code (a function "
                    "of the pytree's leaves) or example by example (a FallbackWarning says why): call it once, "
                    "then .explain() explains what ran")
        if why is not None:  # refused: the reasons, line by line
            return self._vf.explain(html=html)
        arrays, _, ndims = self._lanes(sample_args, sample_kwargs)
        return explain.explain(self._vf, tuple(arrays), {}, html=html, ndims=ndims)

    def _lanes(self, args: tuple, kwargs: dict[str, Any]) -> tuple[list[np.ndarray], list[int], list[int]]:
        """The call's arguments as the engine's lanes: arrays, the mapped sizes, per-example ndims."""
        assert self.__signature__ is not None
        params = list(self.__signature__.parameters)
        bound = self.__signature__.bind(*args, **kwargs)
        positional = list(args)
        values: dict[str, np.ndarray] = {}
        axes: dict[str, list[Axis]] = {}
        for name in params:
            if name in bound.arguments:
                value = bound.arguments[name]
                index = next((i for i, _ in enumerate(positional) if i < len(args) and params[i] == name), None)
                axes[name] = [in_entry(level[0], index, len(args)) if index is not None else 0 for level in self.levels]
            else:
                value = self.__signature__.parameters[name].default
                axes[name] = [None] * len(self.levels)
            values[name] = np.asarray(value)
        arrays, sizes = lay_out(self.levels, values, axes)
        return arrays, sizes, [a.ndim - len(self.levels) for a in arrays]

    def _names(self, count: int) -> list[str]:
        params = list(self.__signature__.parameters) if self.__signature__ is not None else []
        return [params[i] if i < len(params) else f"args[{i}]" for i in range(count)]

    def _loop_reason(self, args: tuple, kwargs: dict[str, Any]) -> str | None:
        """Why this call cannot run as generated code (it then loops over the examples), or None."""
        if self._vf is None:
            return f"{self.base!r} is not a Python function the engine can read"
        for level in self.levels:
            for name, axes in zip(("in_axes", "out_axes"), level[:2]):
                entries = axes if isinstance(axes, tuple | list) else [axes]
                if not all(is_axis(a) for a in entries):
                    return f"{name} {axes!r} names the parts of pytree arguments or results"
        for name, value in [*zip(self._names(len(args)), args), *kwargs.items()]:
            if node_kind(value) is not None:
                return f"argument {name} is a pytree ({type(value).__name__}), not an array"
        exc = self._vf.refusal()  # parsed once per generation of the module's globals
        return None if exc is None else exc.message + (f" at {exc.location}" if exc.location else "")


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, *, axis_name: Any = None,
         axis_size: int | None = None, spmd_axis_name: Any = None, backend: str = "auto", fallback: str = "warn",
         reassociate: bool = False, exact: bool = True, vector_math: bool | None = None) -> Vmapped:
    """Map `fun` over array axes, as `jax.vmap` does, with generated NumPy code.

    Args:
        fun: a function of numbers, per-example arrays and pytrees of them (or a vmapped
            function, to nest).
        in_axes: the axis mapped in each positional argument: an int, None (not mapped), or a
            tuple/list with one entry per positional argument, each an int, None or a prefix
            tree of that argument. Keyword arguments map axis 0.
        out_axes: where the mapped axis goes in each output leaf: an int, None, or a prefix tree
            of the result.
        axis_name, spmd_axis_name: JAX's names for collectives and device sharding; vectorizer
            has neither, so anything but None is refused with a VectorizeError saying so.
        axis_size: the size of the mapped axis when no argument is mapped.
        backend, fallback, reassociate, exact, vector_math: as for `vectorize` (vector_math is
            deprecated: `vector_math=True` means `exact=False`).
    """
    if axis_name is not None:
        raise VectorizeError(f"vmap axis_name={axis_name!r}: a named axis serves JAX's collectives (psum, pmean, "
                             "axis_index...) inside the mapped function; vectorizer has none",
                             hint="reduce over the mapped axis outside: np.sum(vmap(f)(x), axis=0)")
    if spmd_axis_name is not None:
        raise VectorizeError(f"vmap spmd_axis_name={spmd_axis_name!r}: vectorizer does not shard over devices; it "
                             "runs on this machine's cores (NumPy chunks on threads, Numba's prange)",
                             hint="leave spmd_axis_name out")
    return Vmapped(fun, in_axes, out_axes, axis_size, backend=backend, fallback=fallback, reassociate=reassociate,
                   exact=exactness(exact, vector_math))


__all__: Sequence[str] = ["Vmapped", "vmap"]
