"""`@vectorize`: the decorator and the function it makes, its call path and what it shows.

A `VectorizedFunction` specializes the scalar function on each call's argument kinds (bool / int /
float), on which arguments are uniform (one value for every lane) and on uniform options that are
not numbers (None, str, enums: engine/statics.py); the specializations themselves (a kernel per
key, per generation of the module globals, through the disk cache) are specializations.py's.

Module globals are read at each call, as the scalar function reads them: the specializations
belong to a `fingerprint.Generation`, valid while the module binds the names the function reads
(its helpers' too) to the same objects. A call that sees another binding makes a new generation:
new values, new content hash, code generated again or found in the cache.

Other modules read a VectorizedFunction through its public methods and properties
(`parameter_names`, `specialization()`, `route()`, `generated()`, `last_verdict()`...), never
its attributes.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .core import faceslots
from .engine import fastpath, kernels, reentry, refusedpath, scaleout, statics
from .engine.batch import Batch
from .engine.fingerprint import Generation
from .engine.inputs import InputError, RefusedNumber, canonical
from .engine.kernels import Kernel, Key, Route, engine_bug
from .engine.patch import kernel_failed
from .errors import (
    FallbackWarning,
    VectorizeError,
    VectorizeInputError,
    VectorizeValueError,
    user_stacklevel,
)
from .frontend.lambdas import as_def
from .frontend.prepare import prepare  # noqa: F401 - vectorizer.api.prepare, as before
from .options import Options, disabled, exactness
from .specializations import Specializations
from .vectorized_views import VectorizedViews


class VectorizedFunction(VectorizedViews):
    """A scalar function that also takes arrays. Call it like the original."""

    # numpy.vectorize's attributes, as np.vectorize(f) has them: vectorize(f) stands in for it
    otypes: str | list | None = None
    signature: str | None = None
    cache: bool = False  # an attribute: the module `cache` (the disk cache) is unaffected

    def __init__(self, func: types.FunctionType, options: Options,
                 explain: bool | str | os.PathLike = False) -> None:
        func = as_def(func)  # a lambda: a copy named as the `def` it stands for (frontend/lambdas.py)
        self.scalar = func
        self.options = options
        functools.update_wrapper(self, func)
        self.__signature__ = inspect.signature(func)
        self._names = list(self.__signature__.parameters)
        self._positional = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                               for p in self.__signature__.parameters.values())
        self._arity = len(self._names) if self._positional else -1  # a call of this many arguments binds no names
        params = list(self.__signature__.parameters.values())
        self._defaults = [p.default for p in params]  # a call of fewer takes the rest's defaults, from `_fill`
        self._fill = next((i for i in range(len(params), 0, -1) if params[i - 1].default is params[i - 1].empty), 0)
        self._variadic = tuple(f"{'**' if p.kind is p.VAR_KEYWORD else '*'}{p.name}"
                               for p in self.__signature__.parameters.values()
                               if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
        self._explain = explain  # vectorize(f, explain=...): report each new specialization
        self._made = Specializations(func, self._names)  # the kernels, per generation of the globals
        self._generations = self._made.generations
        self._last: Key | None = None
        self._fast: fastpath.Plans | None = None  # the short paths for calls like the last ones
        self._refused: refusedpath.RefusedPlan | None = None  # the short path of a refused call (engine/refusedpath.py)
        self._cycle: frozenset | None = None  # recursion: the scalar code that may call back (engine/reentry.py)
        self._plan = statics.Plan(func)  # which arguments the code is specialized on (engine/statics.py)
        if options.fallback == "error" and not disabled():
            self._made.prepared(self._generations.current())  # refuse unsupported syntax now, at decoration

    # -- what other modules read (faces/explain.py, vmap, npcompat, the CLI): VectorizedViews, and
    # what it shows (the explain report) and how Python sees it (repr, pickling, methods)
    def explain(self, *sample_args: Any, html: str | os.PathLike | None = None, **sample_kwargs: Any) -> str:
        """What the compiler did to this function, as text: the source annotated line by line
        (batched/uniform names, masked `if`s and loops, checks, exact operations, refusals). With
        sample arguments (as for a call) it explains that specialization and profiles one call;
        with `html` it also writes a self-contained HTML report there (faces/explain.py)."""
        return explain_face().explain(self, sample_args, sample_kwargs, html=html)

    def __repr__(self) -> str:
        return f"<vectorized {self.scalar.__module__}.{self.scalar.__qualname__}>"

    def __reduce__(self):  # to dask workers: by source and options, never code objects (engine/scaleout)
        return scaleout.reduce(self)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    # -- the call ------------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._cycle is None:
            self._cycle = reentry.cycle_codes(self.scalar)
        if self._cycle and reentry.reentrant(self._cycle, args, kwargs):
            return self.scalar(*args, **kwargs)  # recursion from its own scalar code (engine/reentry.py)
        if not kwargs and len(args) == self._arity:
            fast = self._fast
            if fast is not None:
                result = fast.go(args)  # the short paths, each one generated function (engine/fastentry.py)
                if result is not fastpath.MISS:
                    self._last = fast.last[0]  # type: ignore[index]
                    return result
            return self.call_lanes(list(args))  # no binding needed
        if not kwargs and self._fill <= len(args) < self._arity:
            return self.call_lanes([*args, *self._defaults[len(args):]])  # as bind() + apply_defaults()
        bound = self.__signature__.bind(*args, **kwargs)
        bound.apply_defaults()
        return self.call_lanes([bound.arguments[n] for n in self._names])

    def call_lanes(self, values: list[Any], example_ndims: list[int] | None = None) -> Any:
        """Run over lanes: leading dimensions are lanes (broadcast), the last `example_ndims` a lane's own array."""
        if self._variadic:  # a lane is one value per parameter: *args would be spread over lanes
            raise VectorizeError(f"{self.scalar.__qualname__} takes {' and '.join(self._variadic)}: a batched call "
                                 "needs one value (or array) per named parameter",
                                 hint="give each argument its own parameter")
        if self._refused is not None and example_ndims is None:  # a call like the last refused one: its loop at once
            batch = self._refused.batch(values, self._generations)  # (engine/refusedpath.py)
            if batch is not None:
                self._last = self._refused.key
                return kernels.per_element(getattr(batch, "scalar", self.scalar), batch, None)
        if scaleout.foreign(values):  # a dask array or an xarray object: a lazy graph (engine/scaleout)
            return scaleout.call(self, values, example_ndims)
        try:
            fixed = self._plan.statics(self._names, values)  # specialized on: None, str, enum, flags
            names = [n for n in self._names if n not in fixed] if fixed else self._names
            arrays = [canonical(n, v) for n, v in zip(self._names, values) if n not in fixed]
            batch = Batch(names, arrays, [k for n, k in zip(self._names, example_ndims) if n not in fixed]
                          if fixed and example_ndims is not None else example_ndims)
        except InputError as exc:
            if self.options.fallback == "error" or example_ndims is not None or isinstance(exc, RefusedNumber):
                raise VectorizeInputError(str(exc)) from None
            # numpy.vectorize's semantics for objects (None, strings, complex): element by element
            return self._objects_element_by_element(values, str(exc))
        except ValueError as exc:
            raise VectorizeValueError(str(exc)) from None
        if fixed:
            batch.scalar = statics.lane_function(self.scalar, fixed)  # type: ignore[attr-defined]
        if disabled():
            return self._per_element(batch)
        # The globals as this call reads them: a refusal's checked cheaply (fingerprint.Generations.refused)
        gen = self._generations.latest()
        helpers, key = self._made.key(gen, fixed, batch)
        if key is None or not self._generations.refused(gen, key, batch.size):
            fresh = self._generations.current()
            if fresh is not gen:
                gen, (helpers, key) = fresh, self._made.key(fresh, fixed, batch)
        if key is None:  # a helper raised: the loop raises it where a lane calls it
            return self._per_element(batch)
        self._made.specs.setdefault(key, (fixed, helpers))  # what the lowering specializes this key on
        kernel = self._kernel(gen, key)
        self._last = key
        if isinstance(kernel, VectorizeError):
            self._refused = (refusedpath.plan(values, self._names, fixed, batch, gen, key)  # the next call like it
                             if example_ndims is None and self._made.no_helpers(gen) else None)
            if any(statics.is_static(v) for v in fixed.values()) and example_ndims is None:
                # not numbers, as before specializations: numpy.vectorize's semantics for objects
                why = kernel.message + (f" at {kernel.location}" if kernel.location else "")
                self._warn(gen, why)  # (the batch of the numbers, the lane function of the others)
                return kernels.per_element(getattr(batch, "scalar", self.scalar), batch, None)
            self._warn(gen, kernel)
            return self._per_element(batch)
        try:
            result = self._run(kernel, batch)
        except kernels.jit().compile_errors() as exc:  # Numba could not type the lane code: use NumPy's
            why = f"Numba could not compile the lane code ({type(exc).__name__}): the NumPy route"
            gen.kernels[key] = kernel = self._made.build(gen, key, Route("numpy", why), self.options)  # type: ignore[assignment]
            if self.options.backend == "numba":
                kernels.jit().warn_once(f"compile:{self.__qualname__}", f"vectorizer: Numba could not compile "
                                        f"{self.__qualname__} ({type(exc).__name__}); using the NumPy backend")
            return self._run(kernel, batch)  # type: ignore[arg-type]
        except kernels.jit().cache_load_errors():  # a damaged Numba cache file: a miss, never a crash
            fn = kernels.jit().reload_after_damage(kernel.fn, kernel.source, self.scalar.__name__)
            gen.kernels[key] = kernel = kernel.with_fn(fn)
            return self._run(kernel, batch)
        except Exception as exc:
            if not kernel_failed(exc):
                raise  # the scalar function's own exception, from the first failing lane
            gen.kernels[key] = error = engine_bug("running the code generated for", self.scalar, exc)
            if self.options.fallback == "error":
                raise error from exc
            self._warn(gen, error)
            return self._per_element(batch)
        # The next call like this one (same dtypes, 1-D, one length; or scalars of the same types)
        # may take the short path. Calls of a specialization that runs on NumPy at their size take
        # the general path (larger ones run chunks on threads).
        self._fast = fastpath.after_call(self._fast, kernel, values, kernel.backend, gen, key, batch.size, self.scalar,
                                         lanes_only=not example_ndims, unspecialized=not fixed and not helpers)
        return result

    def _run(self, kernel: Kernel, batch: Batch) -> Any:
        return kernels.run(kernel, getattr(batch, "scalar", self.scalar), batch)

    def _per_element(self, batch: Batch) -> Any:
        """The scalar function lane by lane (the fallback, or VECTORIZER_DISABLE=1)."""
        return kernels.per_element(getattr(batch, "scalar", self.scalar), batch,
                                   self._made.result_structure() if batch.size == 0 else None)

    def _objects_element_by_element(self, values: list[Any], why: str) -> Any:
        """A call whose arguments are not all numbers (objects, strings, None), after the function's
        FallbackWarning (once): every argument mapped over as numpy.vectorize maps it (an array of
        it, broadcast), but for those the engine takes as one value for every lane (a tuple given
        to a parameter whose default is a tuple, an option object: passed whole, engine/statics.py
        `Plan.whole`), and the scalar function run on each lane's Python values (`.tolist()`), as
        a loop calls it, at a loop's speed (engine/loop.py). Not numpy.vectorize itself: its first
        call passes NumPy scalars (an `isinstance(n, int)` fails on lane 0 only) and runs lane 0
        twice, and it converts every result to the first one's type (a later None becomes nan)."""
        whole = self._plan.whole(self._names, values)  # one value for every lane (a tuple option): passed as it is
        try:
            batch = Batch([n for n in self._names if n not in whole],
                          [np.asarray(v) for n, v in zip(self._names, values) if n not in whole])
        except ValueError as exc:  # shapes that do not broadcast
            self._warn(self._generations.current(), why)
            raise VectorizeValueError(str(exc)) from None
        gen = self._generations.latest()  # the warning's, checked as a refusal's is (the values are the loop's)
        self._warn(gen if self._generations.holds(gen, batch.size) else self._generations.current(), why)
        return kernels.per_element(statics.lane_function(self.scalar, whole) if whole else self.scalar, batch, None)

    def _kernel(self, gen: Generation, key: Key) -> Kernel | VectorizeError:
        return self._made.kernel(gen, key, self.options, self._announce if self._explain else None)

    def _announce(self, key: Key) -> None:
        explain_face().announce(self, key)

    def _annotated_key(self) -> Key:
        return self._made.annotated_key(self.__signature__)

    def _warn(self, gen: Generation, error: VectorizeError | str) -> None:
        """One FallbackWarning per function and values of its globals, carrying every problem of
        `error` (a reason given as text: object inputs)."""
        if not gen.warned:
            what = f"{self.scalar.__qualname__} runs element by element (slow, exact)"
            gen.warned.append(error if isinstance(error, str) else error.message)
            warning = FallbackWarning(f"{what}: {error}") if isinstance(error, str) else FallbackWarning(what, error)
            warnings.warn(warning, stacklevel=user_stacklevel())


# numpy.vectorize's parameters and non-function callables are served by a face
# (faces/npcompat.py), the explain report by faces/explain.py: vectorizer/__init__ binds the slots
# of core/faceslots.py to functions that import them on first use, so that api.py imports no face.
numpy_face: Callable[[], Any] = lambda: faceslots.numpy_face()
explain_face: Callable[[], Any] = lambda: faceslots.explain_face()


def vectorize(pyfunc: Callable[..., Any] | None = None, otypes=None, doc: str | None = None, excluded=None,
              cache: bool = False, signature: str | None = None, *, backend: str = "auto", fallback: str = "warn",
              reassociate: bool = False, exact: bool = True, vector_math: bool | None = None,
              explain: bool | str | os.PathLike = False):
    """Make a scalar function accept arrays: `@vectorize`, `@vectorize(exact=False)`, or
    `vectorize(f, otypes=..., excluded=..., signature=...)` as a drop-in for `numpy.vectorize`.

    Args:
        pyfunc: a function of numbers (or of per-example arrays, with `signature`), defined
            with `def` in a source file.
        otypes, doc, excluded, cache, signature: as for numpy.vectorize (see vectorizer.faces.npcompat).
        backend: "auto" (the default: the route the cost model picks from the code, the argument
            kinds and shapes and the machine, the same in every process; `.backend` names it and
            `.backend.why` says why), "numba" (per-lane compiled kernels, parallel over the batch)
            or "numpy" (generated array code).
        fallback: "warn" runs an unsupported function element by element with a
            `FallbackWarning` (once); "error" raises the `VectorizeError` instead.
        reassociate: allow loops that sum floats over array elements to become np.sum (a
            different summation order: results may differ in the last bits).
        exact: True (the default): every value is the scalar function's, bit for bit. False: speed
            over the last bit: NumPy's SIMD math, glibc's 4-lane AVX2 vector math (libmvec, where
            Numba, glibc 2.35+ and an AVX2 CPU are present), `x * x` for `x ** 2`, LLVM's pow:
            each transcendental operation within the ulp bound docs/contract.md gives; ints,
            bools, branches, trip counts and exceptions stay exact. Part of the cache key.
        vector_math: deprecated; `vector_math=True` means `exact=False` (DeprecationWarning).
        explain: True prints `.explain()`'s report of each new specialization on stderr; a path
            writes it there as HTML. It changes no code (not part of any cache key).
    """
    options = Options(backend=backend, fallback=fallback, reassociate=reassociate, exact=exactness(exact, vector_math))

    def wrap(f: Callable[..., Any]):
        if isinstance(f, VectorizedFunction):
            f = f.scalar
        if not isinstance(f, types.FunctionType) or hasattr(f, "__wrapped__"):  # methods, partials, decorated: npcompat
            return numpy_face().foreign(f, options, otypes, doc, excluded, cache, signature)
        vf = VectorizedFunction(f, options, explain)
        if otypes is None and doc is None and excluded is None and not cache and signature is None and not vf._variadic:
            return vf  # numpy.vectorize's parameters unused: npcompat (and `re`) stay unimported
        return numpy_face().NumpyVectorized(vf, otypes, doc, excluded, cache, signature)

    return wrap if pyfunc is None else wrap(pyfunc)
