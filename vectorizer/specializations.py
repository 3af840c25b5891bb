"""The specializations of one vectorized function: a kernel per key, per generation of its globals.

A key (engine/kernels.py `Key`) says what one call's code is made for: each argument's kind
(bool / int / float), whether it is uniform (one value for every lane), its per-example shape,
and the values the code is specialized on (None, str, enum options: engine/statics.py; pure
zero-argument helpers' values). The kernels belong to a `fingerprint.Generation`, valid while the
module binds the names the function reads to the same objects. Each kernel is found in the disk
cache by a content hash (the sources of the function and of all it reaches, the globals it reads,
the options, the versions); only a miss imports the compiler (pipeline.py).

`Specializations` makes and keeps them; `VectorizedFunction` (api.py) calls through it, and its
inspection methods hand out `Specialization` snapshots (what one key's code is made for), which
the explain report (faces/explain.py) reads.
"""

from __future__ import annotations

import builtins
import inspect
import os
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .core import cache
from .engine import kernels, statics
from .engine.fingerprint import Generation, Generations, engine_fingerprint
from .engine.kernels import Kernel, Key, Route, engine_bug
from .engine.patch import Result
from .errors import VectorizeError
from .frontend.prepare import prepare
from .options import Options

if TYPE_CHECKING:
    from .core.types import Val
    from .engine.batch import Batch


@dataclass(frozen=True, eq=False)
class Specialization:
    """What the code of one key is made for: the key, the parameters in order, and the values it
    is specialized on (`fixed`: parameter -> None, a str, an enum member...; `helpers`: pure
    zero-argument helper -> its value when the key was made)."""

    key: Key
    names: tuple[str, ...]
    fixed: dict[str, object]
    helpers: dict[str, object]

    def params(self) -> dict[str, Val]:
        """Each parameter that stays a number -> its `Val` (kind, per-example shape, batched or
        uniform), as the compiler types it."""
        from .core.types import ArrayType, Val, type_of_dtype

        return {n: Val(ArrayType(type_of_dtype(kind), shape) if shape else type_of_dtype(kind), not uniform)
                for n, (kind, uniform, shape) in zip(self.names, self.key) if kind in "bif"}


class Specializations:
    """The kernels of one scalar function: made on first use of a key, kept per generation."""

    def __init__(self, func: types.FunctionType, names: list[str]) -> None:
        self.scalar = func
        self.names = tuple(names)
        # Per generation (the globals as one call read them): kernels: dict[Key, Kernel | VectorizeError].
        self.generations = Generations(func)
        self.specs: dict[Key, tuple[dict, dict]] = {}  # key -> (parameter values, helper values)
        self._helpers: tuple[object, dict] | None = None  # (generation, its pure zero-argument helpers)
        self._refused: tuple[Generation | None, VectorizeError | None] = (None, None)

    def current(self) -> Generation:
        """The generation made from the module globals as they are now."""
        return self.generations.current()

    def specialization(self, key: Key) -> Specialization:
        """What `key`'s code is made for (no values specialized on, for a key no call made)."""
        fixed, helpers = self.specs.get(key, ({}, {}))
        return Specialization(key, self.names, fixed, helpers)

    def annotated_key(self, signature: inspect.Signature) -> Key:
        """The key of the annotations (every argument batched), its specialized values recorded."""
        key, fixed = statics.annotated_key(signature)
        if fixed:
            self.specs.setdefault(key, (fixed, {}))
        return key

    def helper_values(self, gen: Generation) -> dict[str, object] | None:
        """Each pure zero-argument helper's value now (engine/statics.py), None if one raised."""
        if self._helpers is None or self._helpers[0] is not gen:
            g = self.scalar.__globals__
            self._helpers = (gen, statics.pure_helpers(self.scalar, lambda n: g.get(n, getattr(builtins, n, None))))
        return statics.helper_values(self._helpers[1])  # type: ignore[arg-type]

    def no_helpers(self, gen: Generation) -> bool:
        """True where the function reaches no pure zero-argument helper in `gen` (a call's key is
        then its arguments' alone: engine/refusedpath.py)."""
        return self._helpers is not None and self._helpers[0] is gen and not self._helpers[1]

    def key(self, gen: Generation, fixed: dict[str, object], batch: Batch) -> tuple[dict | None, Key | None]:
        """(the pure helpers' values, the key) of a call of `batch` with the values `fixed` (None,
        str, enum options: engine/statics.py) in `gen`; (None, None) where a helper raised."""
        helpers = self.helper_values(gen)
        if helpers is None:
            return None, None
        if any(batch.ndims):
            key: Key = tuple((a.dtype.kind, batch.uniform(i), batch.example_shape(i)) for i, a in enumerate(batch.arrays))
        else:  # a number a lane (Batch.uniform, with no example dimensions)
            shape = batch.shape
            key = tuple((a.dtype.kind, a.ndim == 0 or (a.size == 1 and a.shape != shape), ()) for a in batch.arrays)
        if fixed:  # a specialized parameter's entry says its value, at its place
            numbers = iter(key)
            key = tuple(statics.entry(fixed[n]) if n in fixed else next(numbers) for n in self.names)
        if helpers:
            key += tuple(statics.entry(v, h) for h, v in helpers.items())
        return helpers, key

    def kernel(self, gen: Generation, key: Key, options: Options,
               announce: Callable[[Key], None] | None = None) -> Kernel | VectorizeError:
        """The kernel of `key` in `gen`, made (or loaded from the disk cache) on first use;
        `announce(key)` is called when one is made (vectorize(f, explain=...))."""
        found = gen.kernels.get(key)
        if found is None:
            backend = self.route(key, options, gen)
            auto_lanes = options.backend == "auto" and backend == "numba"
            try:
                found = self.build(gen, key, backend, options)
            except VectorizeError as exc:  # fallback="error": the NumPy route may still take it
                if not auto_lanes:
                    raise
                found = exc
            if auto_lanes and isinstance(found, VectorizeError):
                why = f"the lane code refuses it ({found.message}): the NumPy route"
                numpy = self.build(gen, key, Route("numpy", why), options)  # with fallback="error", its refusal raises
                found = numpy if isinstance(numpy, Kernel) else found
            gen.kernels[key] = found
            if announce is not None:
                announce(key)
            gen.rewatch()
        return found

    def route(self, key: Key | None, options: Options, gen: Generation | None = None) -> Route:
        """The backend that builds `key`'s kernel (the cost model's pick for backend="auto", with its
        reason; "auto" while no key says)."""
        return kernels.resolve_backend(options.backend, key, lambda k: self._auto_choice(gen, k, options))

    def _auto_choice(self, gen: Generation | None, key: Key, options: Options) -> Route:
        gen = gen or self.current()
        return kernels.remembered_choice(gen.content, options, key, lambda: self._prepared_or_none(gen))

    def build(self, gen: Generation, key: Key, backend: str, options: Options) -> Kernel | VectorizeError:
        """The kernel for `key` from this generation's globals (its namespace decides the code, its
        content hash the cache entry: both read the same values)."""
        lowering = kernels.lowering_options(options, backend)  # exact=True needs Numba's loops
        cache_key = cache.cache_key(gen.content, backend, lowering.key() + kernels.machine_key(lowering), repr(key),
                                    engine_fingerprint())
        # VECTORIZER_DUMP_AFTER prints the passes, so they run even when the cache has the result.
        dumped = self._lower(gen, key, backend, options) if os.environ.get("VECTORIZER_DUMP_AFTER") else None
        found = kernels.load(cache_key, backend, self.scalar, lambda: dumped or self._lower(gen, key, backend, options))
        kernels.warn_if_inexact(options, backend, found)  # once a process, where Numba is missing
        return found

    def _lower(self, gen: Generation, key: Key, backend: str, options: Options) -> Any:
        try:
            parsed, namespace = self.prepared(gen)  # before the compiler's import: no source, no compiler
            from .pipeline import Statics, lower, lower_jax, lower_lanes

            spec = self.specialization(key)
            lowering = {"numba": lower_lanes, "jax": lower_jax}.get(backend, lower)
            return lowering(parsed, namespace, spec.params(), kernels.lowering_options(options, backend),
                            statics=Statics(spec.fixed, spec.helpers))
        except VectorizeError as exc:
            if options.fallback == "error":
                raise
            return exc
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - an engine bug: refused visibly, never the user's call crashing
            error = engine_bug("transforming", self.scalar, exc)
            if options.fallback == "error":
                raise error from exc
            return error

    def prepared(self, gen: Generation) -> Any:
        """(parsed, namespace) of the function as `gen`'s globals read it; raises its refusal."""
        if gen.prepared is None:
            gen.prepared = prepare(self.scalar, gen.namespace, _for_numbers)
            gen.rewatch()
        return gen.prepared

    def _prepared_or_none(self, gen: Generation) -> Any:
        try:
            return self.prepared(gen)
        except VectorizeError:
            return None

    def result_structure(self) -> tuple[bool, tuple[str, ...]] | None:
        """(returns a tuple?, result kinds) without running a lane: from a specialization that
        compiled, else from the source's `return`s (None when neither says)."""
        gen = self.current()
        for kernel in list(gen.kernels.values()):
            if isinstance(kernel, Kernel):
                return kernel.returns_tuple, tuple(Result(t).kind for t in kernel.result_types)
        from .frontend.arity import static_structure
        return static_structure(self.scalar, gen.namespace)

    def refusal(self) -> VectorizeError | None:
        """Why the source cannot be vectorized as the globals are now (the fence's refusal), else
        None; looked at once per generation."""
        gen = self.current()
        if self._refused[0] is not gen:
            try:
                self.prepared(gen)
                self._refused = (gen, None)
            except VectorizeError as exc:
                self._refused = (gen, exc)
        return self._refused[1]


def _for_numbers(parsed: Any, namespace: Any) -> Any:
    """specialized_analysis.decided_for_numbers, imported when a function needs it (the compiler's
    modules stay unimported in a process served from the cache)."""
    from .specialized_analysis import decided_for_numbers

    return decided_for_numbers(parsed, namespace)
