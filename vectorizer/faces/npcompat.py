"""`vectorize(pyfunc, otypes, doc, excluded, cache, signature)`: numpy.vectorize's parameters.

`np.vectorize(f, ...)` -> `vectorizer.vectorize(f, ...)` is a drop-in change: the same calls
(positional and keyword arguments), excluded arguments passed through whole, `otypes` converted
as numpy.vectorize converts (otypes_cast.py: where its conversion raises or wraps, it decides),
gufunc-style `signature="(n),(n)->()"` with core dimensions (their sizes checked as NumPy does),
the same values and errors, and the same attributes (`pyfunc`, `otypes`, `excluded`, `signature`,
`cache`, `__doc__`). As in numpy.vectorize, the signature's inputs go to the mapped arguments in
call order: the positional ones, then the keyword ones as passed (`f(y=b, x=a)` gives the first
core dimensions to `y`); arguments left to their defaults are passed whole, not mapped.

Every callable numpy.vectorize takes is taken. Where the engine cannot run a call, it goes to
numpy.vectorize itself (its own class, even where a user has put vectorizer.vectorize in
`numpy.vectorize`'s place), after one `FallbackWarning` per reason, or raises a `VectorizeError`
with fallback="error": a callable that is not a Python function (`math.cos`, `random.randrange`,
a bound method, a `functools.partial`, `np.ndarray.sum`, `np.outer`: `foreign` and
`ElementByElement`), a function with `*args`/`**kwargs`, arguments that are not numbers (None,
strings, objects) together with numpy.vectorize's parameters, an excluded argument or a default
that is not numeric, and `otypes` that are not numbers (`object`). A plain `vectorize(f)` called
with arguments that are not numbers runs the engine's loop instead (api.py,
`VectorizedFunction._objects_element_by_element`): each lane's Python values, as a loop passes
them, at a loop's speed.

Deliberate differences, from the vectorizer contract: a call on scalars returns a NumPy scalar
(numpy.vectorize returns a 0-d array); without `otypes` the result dtype comes from the
function's code, or from every lane's value where it runs lane by lane, not from the first
element's (numpy.vectorize truncates every element to the first element's type when a function
returns ints for some and floats for others, and turns a later None into nan); a lane that returns something other than a number (None, a str, an object) there
makes an object array of the loop's values (engine/results.py).
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..api import VectorizedFunction
from ..errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    user_stacklevel,
)
from ..options import Options
from .otypes_cast import cast_like_numpy

try:  # numpy's own class, even where a user has put vectorizer.vectorize in numpy.vectorize's place
    from numpy.lib._function_base_impl import vectorize as numpy_vectorize
except ImportError:  # NumPy 1.x
    from numpy.lib.function_base import vectorize as numpy_vectorize  # type: ignore[no-redef]

_DIMS = re.compile(r"\(([^()]*)\)")


def parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """'(n),(n)->()' -> ([('n',), ('n',)], [()]), as numpy.vectorize parses it."""
    if "->" not in signature:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    ins, outs = signature.replace(" ", "").split("->")
    parse = lambda part: [tuple(d for d in group.split(",") if d) for group in _DIMS.findall(part)]  # noqa: E731
    return parse(ins), parse(outs)


class NumpyVectorized:
    """The numpy.vectorize-compatible front of a `VectorizedFunction`."""

    def __init__(self, vf: VectorizedFunction, otypes: Iterable[Any] | str | None, doc: str | None,
                 excluded: Iterable[int | str] | None, cache: bool, signature: str | None) -> None:
        self._vf = vf
        self._numpy = numpy_vectorize(vf.scalar, otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
        # numpy.vectorize's attributes, as it stores them (otypes: a str, or a list of dtypes)
        self.pyfunc = vf.scalar
        self.otypes = self._numpy.otypes
        self.excluded = set(self._numpy.excluded)
        self.cache = cache  # accepted for compatibility: compiled code is cached per argument kinds anyway
        self.signature = signature
        self.__doc__ = self._numpy.__doc__
        self.__name__ = vf.__name__
        self.__wrapped__ = vf.scalar
        self._core = parse_signature(signature) if signature else None
        self._signature = inspect.signature(vf.scalar)
        self._params = list(self._signature.parameters)
        self._fell_back = False
        self._warned: set[str] = set()
        self._variadic = any(q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD) for q in self._signature.parameters.values())

    @property
    def vectorized(self) -> VectorizedFunction:
        """The engine's function this front calls (its `explain`, its specializations)."""
        return self._vf

    @property
    def backend(self) -> str:
        """As VectorizedFunction.backend; "python" when the last call ran through numpy.vectorize."""
        return "python" if self._fell_back else self._vf.backend

    @property
    def source(self) -> str:
        if self._core and self._vf.last_key is None:
            raise VectorizeError(f"{self.__name__}.source: with signature={self.signature!r} the generated code "
                                 "depends on the core dimensions' sizes, so it is made at the first call",
                                 hint="call the function once, then read .source")
        return self._vf.source

    def explain(self, *sample_args: Any, html: Any = None, **sample_kwargs: Any) -> str:
        """As VectorizedFunction.explain; sample arguments are laid out as for a call (excluded
        arguments and signature= core dimensions included)."""
        from . import explain

        if not sample_args and not sample_kwargs:
            return self._vf.explain(html=html)
        bound = self._signature.bind(*sample_args, **sample_kwargs)
        bound.apply_defaults()
        mapped = self._mapped(len(sample_args), sample_kwargs)
        core, _ = self._core_dims(mapped, bound.arguments) if self._core else ({}, {})
        values = [bound.arguments[n] for n in self._params]
        ndims = [len(core.get(n, ())) if n in mapped else np.ndim(v) for n, v in zip(self._params, values)]
        return explain.explain(self._vf, tuple(values), {}, html=html, ndims=ndims)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._fell_back = False
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if self._variadic:  # the engine needs one value per named parameter; numpy.vectorize does not
            return self._fallback("it takes *args or **kwargs", *args, **kwargs)
        mapped = self._mapped(len(args), kwargs)
        why = self._not_numeric(bound.arguments, mapped, {*self._params[:len(args)], *kwargs})
        if why is not None:
            return self._fallback(why, *args, **kwargs)
        if self.otypes and any(np.dtype(t).kind not in "biuf" for t in self.otypes):
            return self._fallback(f"otypes {self.otypes!r} are not all numbers", *args, **kwargs)
        core, sizes = self._core_dims(mapped, bound.arguments)
        values = [bound.arguments[n] for n in self._params]
        ndims = [len(core.get(n, ())) if n in mapped else np.ndim(v) for n, v in zip(self._params, values)]
        try:
            result = self._vf.call_lanes(values, ndims)
        except VectorizeInputError as exc:  # objects, strings, None...: numpy.vectorize takes them
            if self._vf.options.fallback == "error":
                raise
            return self._fallback(str(exc), *args, **kwargs)
        if self._core is not None:
            self._check_outputs(result, sizes)
        if self.otypes is None:
            return result
        cast, why = cast_like_numpy(result, self.otypes)
        return self._fallback(why, *args, **kwargs) if why is not None else cast

    def _check_outputs(self, result: Any, sizes: dict[str, int]) -> None:
        """numpy.vectorize's checks of the results against the signature's outputs."""
        outs = self._core[1]  # type: ignore[index]
        got = list(result) if isinstance(result, tuple) else [result]
        if len(outs) != len(got) or (len(outs) > 1) != isinstance(result, tuple):
            raise ValueError(f"wrong number of outputs from pyfunc: expected {len(outs)}, got {len(got)}")
        for out, dims in zip(got, outs):
            _update_dim_sizes(sizes, np.asarray(out), dims)

    def _mapped(self, nargs: int, kwargs: dict[str, Any]) -> list[str]:
        """The parameters numpy.vectorize maps over, in its order: the positional arguments whose
        index is not excluded, then the keyword arguments whose name is not, as they were passed.
        Everything else (excluded, or left to its default) goes to every call whole."""
        positional = [self._params[i] for i in range(nargs) if i not in self.excluded]
        return positional + [n for n in kwargs if n not in self.excluded]

    def _not_numeric(self, arguments: dict[str, Any], mapped: list[str], passed: set[str]) -> str | None:
        """Which argument passed whole (excluded, or a default) the engine cannot take, or None."""
        for name in self._params:
            if name not in mapped and not _numeric(arguments[name]):
                what = "an excluded argument" if name in passed else f"the default value of {name!r}"
                return f"{what} is not a number or an array of numbers"
        return None

    def _core_dims(self, mapped: list[str], arguments: dict[str, Any]) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
        """Each mapped parameter's core dimensions (the signature's inputs, in numpy's order),
        checked as numpy.vectorize checks them, with its errors; and each dimension's size."""
        if self._core is None:
            return {}, {}
        ins = self._core[0]
        if len(mapped) != len(ins):
            raise TypeError(f"wrong number of positional arguments: expected {len(ins)!r}, got {len(mapped)!r}")
        sizes: dict[str, int] = {}
        for name, dims in zip(mapped, ins):
            _update_dim_sizes(sizes, np.asanyarray(arguments[name]), dims)
        return dict(zip(mapped, ins)), sizes

    def _fallback(self, why: str, *args: Any, **kwargs: Any) -> Any:
        if self._vf.options.fallback == "error":
            raise VectorizeError(f"{self.__name__}: {why}", hint="use numpy.vectorize for this call")
        if why not in self._warned:  # once per reason, as the engine's fallback warns once
            self._warned.add(why)
            warnings.warn(FallbackWarning(f"{self.__name__} runs through numpy.vectorize (slow): {why}"),
                          stacklevel=user_stacklevel())
        self._fell_back = True
        self._numpy.otypes, self._numpy.cache = self.otypes, self.cache  # as the caller may have set them
        return self._numpy(*args, **kwargs)


class ElementByElement:
    """numpy.vectorize itself, for a callable the engine cannot read (a builtin such as math.cos,
    a bound method, a functools.partial, an ndarray method, a callable object): the same calls,
    values, dtypes and attributes, after one `FallbackWarning` at its first call."""

    backend = "python"

    def __init__(self, numpy_vf: Any, why: str) -> None:
        object.__setattr__(self, "_numpy", numpy_vf)
        object.__setattr__(self, "_why", why)
        object.__setattr__(self, "_warned", False)
        object.__setattr__(self, "__doc__", numpy_vf.__doc__)
        object.__setattr__(self, "__name__", getattr(numpy_vf, "__name__", type(numpy_vf.pyfunc).__name__))
        object.__setattr__(self, "__wrapped__", numpy_vf.pyfunc)

    @property
    def scalar(self) -> Callable[..., Any]:
        return self._numpy.pyfunc

    @property
    def source(self) -> str:
        raise VectorizeError(f"{self.__name__}: no generated code: {self._why}")

    def __getattr__(self, name: str) -> Any:  # pyfunc, otypes, excluded, cache, signature
        if name.startswith("_"):  # not numpy's: and no recursion before __init__ ran (copy, pickle)
            raise AttributeError(name)
        return getattr(self._numpy, name)

    def __setattr__(self, name: str, value: Any) -> None:  # f.otypes = "i", f.cache = True, as numpy allows
        setattr(self._numpy, name, value)

    def __repr__(self) -> str:
        return f"<vectorized {self._numpy.pyfunc!r} (element by element)>"

    def explain(self, *sample_args: Any, html: Any = None, **sample_kwargs: Any) -> str:
        """No compiled code to explain: says why it runs through numpy.vectorize."""
        text = f"{self.__name__}: runs through numpy.vectorize, element by element (no generated code): {self._why}"
        if html is not None:
            import html as html_lib

            with open(html, "w", encoding="utf-8") as out:
                out.write(f"<!doctype html><meta charset='utf-8'><title>{html_lib.escape(self.__name__)}</title>"
                          f"<pre>{html_lib.escape(text)}</pre>\n")
        return text

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._warned:
            object.__setattr__(self, "_warned", True)
            warnings.warn(FallbackWarning(f"{self.__name__} runs through numpy.vectorize (slow): {self._why}"),
                          stacklevel=user_stacklevel())
        return self._numpy(*args, **kwargs)


def foreign(pyfunc: Any, options: Options, otypes: Any, doc: str | None, excluded: Any, cache: bool,
            signature: str | None) -> ElementByElement:
    """vectorize() of a callable that is not a plain Python function: compiled where it runs one
    (a bound method, a partial, a callable instance, a pass-through decorator's wrapper:
    faces/bound.py), else numpy.vectorize's semantics (its own TypeError for what is not
    callable), or, with fallback="error", a VectorizeError."""
    why = None
    if otypes is None and doc is None and excluded is None and not cache and signature is None:
        from .bound import compile_bound

        found = compile_bound(pyfunc, options)
        if not isinstance(found, str):
            return found  # type: ignore[return-value]
        why = found
    numpy_vf = numpy_vectorize(pyfunc, otypes=otypes, doc=doc, excluded=excluded, cache=cache, signature=signature)
    why = why or f"{pyfunc!r} is a {type(pyfunc).__name__}, not a Python function (def or lambda) the engine can read"
    if options.fallback == "error":
        raise VectorizeError(f"vectorize() needs a Python function to compile: {why}",
                             hint="fallback='warn' runs it element by element through numpy.vectorize")
    return ElementByElement(numpy_vf, why)


def _update_dim_sizes(sizes: dict[str, int], arg: np.ndarray, dims: tuple[str, ...]) -> None:
    """numpy.vectorize's check of one input's core dimensions (numpy/lib/_function_base_impl.py),
    with the same errors: too few dimensions, or a size that differs from an earlier input's."""
    if not dims:
        return
    if arg.ndim < len(dims):
        raise ValueError(f"{arg.ndim}-dimensional argument does not have enough dimensions for all core "
                         f"dimensions {dims!r}")
    for dim, size in zip(dims, arg.shape[arg.ndim - len(dims):]):
        if sizes.setdefault(dim, size) != size:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs {sizes[dim]!r}")


def _numeric(value: Any) -> bool:
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except (TypeError, ValueError):
        return False
