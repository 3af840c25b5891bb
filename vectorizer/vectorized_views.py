"""What other modules read of a `VectorizedFunction` (api.py): its public properties and methods.

faces/explain.py, vmap, npcompat and the CLI read a VectorizedFunction through these, never its
attributes: its parameters, the last call's specialization and the engine's verdict on it, the
route a key's kernel takes, the generated code, the module globals it was made from. They are
apart from api.py, which holds the decorator and the call path, because they only read what the
calls made; `VectorizedFunction` inherits them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .engine.kernels import Kernel, Key, Route
from .errors import VectorizeError
from .options import Options, disabled

if TYPE_CHECKING:
    import types

    from .engine.fingerprint import Generations, Watch
    from .frontend.namespace import Namespace
    from .specializations import Specialization, Specializations


class VectorizedViews:
    """The readings of a VectorizedFunction: the state they read is set by its `__init__` and its
    calls, and `_kernel` and `_annotated_key` are its own (api.py)."""

    scalar: types.FunctionType
    options: Options
    _names: list[str]
    _variadic: tuple[str, ...]
    _explain: bool | str | os.PathLike
    _made: Specializations
    _generations: Generations  # _made.generations
    _last: Key | None

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """The scalar function's parameters, in order: a batched call gives one value for each."""
        return tuple(self._names)

    @property
    def variadic(self) -> tuple[str, ...]:
        """Its `*args` / `**kwargs` parameters as spelled ("*args"): a batched call refuses them."""
        return self._variadic

    @property
    def explain_option(self) -> bool | str | os.PathLike:
        """vectorize(f, explain=...): True reports each new specialization on stderr, a path
        writes it there as HTML, False (the default) reports nothing."""
        return self._explain

    @property
    def last_key(self) -> Key | None:
        """The key of the specialization the last call used (None before a call)."""
        return self._last

    def last_verdict(self) -> Kernel | VectorizeError | None:
        """The engine's verdict on the last call's specialization, as the globals are now: its
        kernel, or the VectorizeError it runs element by element for; None before a call. (A
        call a refusal served may leave the globals' new verdict unmade: it is made here.)"""
        if self._last is None:
            return None
        gen = self._generations.current()
        found = gen.kernels.get(self._last)
        if found is None:
            try:
                found = self._kernel(gen, self._last)
            except VectorizeError as exc:  # fallback="error"
                found = exc
        return found

    def forget_last_call(self) -> None:
        """Forget which specialization the last call used: `last_verdict()` is then the next call's."""
        self._last = None

    def specialization(self, key: Key | None = None) -> Specialization:
        """What the code of `key` is made for (the annotations' key when None: every argument batched)."""
        return self._made.specialization(self._annotated_key() if key is None else key)

    def route(self, key: Key | None) -> Route:
        """The backend `key`'s kernel is made for, with its reason (`Route.why`); raises
        VectorizeError for backend="numba" without Numba."""
        return self._made.route(key, self.options)

    def namespace(self) -> Namespace:
        """The module globals as the function reads them now (frontend/namespace.py)."""
        return self._generations.current().namespace

    def generated(self, key: Key, backend: str = "numpy") -> Kernel | VectorizeError:
        """The kernel of `key` for `backend`, made from the globals as they are now (from the disk
        cache when it has it); a refusal is returned, or raised with fallback="error"."""
        return self._made.build(self._generations.current(), key, backend, self.options)

    def refusal(self) -> VectorizeError | None:
        """Why the source cannot be vectorized as the globals are now (the fence's refusal), else None."""
        return self._made.refusal()

    def watch(self) -> Watch:
        """The module globals the current specializations were made from (fingerprint.Watch)."""
        return self._generations.current().watch

    @property
    def _kernels(self) -> dict[Key, Kernel | VectorizeError]:
        """The specializations of the current generation."""
        return self._generations.current().kernels

    @property
    def pyfunc(self) -> Callable[..., Any]:
        return self.scalar

    @property
    def excluded(self) -> set[int | str]:
        return set()

    @property
    def backend(self) -> str:
        """The last specialization's route: "numpy", "numba", or "python" (element by element),
        a `Route` whose `.why` says why (the cost model's reason, for backend="auto")."""
        if disabled():
            return Route("python", "VECTORIZER_DISABLE is set: the scalar function, lane by lane")
        kernel = self.last_verdict()
        if isinstance(kernel, VectorizeError):
            return Route("python", f"refused ({kernel.message}): the scalar function, lane by lane")
        if isinstance(kernel, Kernel):
            return kernel.backend if isinstance(kernel.backend, Route) else Route(kernel.backend)
        return self.route(None)

    @property
    def source(self) -> str:
        """The generated module of the last specialization used (or of the annotations)."""
        key = self._last if self._last is not None else self._annotated_key()
        kernel = self._kernel(self._generations.current(), key)
        if isinstance(kernel, VectorizeError):
            raise kernel
        return kernel.source
