"""Options that change the generated code. Frozen: they are part of every cache key."""

from __future__ import annotations

import os
import sys

from .core.record import Record

BACKENDS = ("numpy", "numba", "auto")  # what the CLI, its configuration and the import hook offer
# Opt-in backends of vectorize() and vmap() alone, never chosen by "auto": "jax" (exact=False only;
# XLA on JAX's devices, docs/jax.md). The CLI writes standalone NumPy modules, which it is not.
OPT_IN_BACKENDS = ("jax",)

# VECTORIZER_DISABLE is read on every call (a test may set it at any time). os.environ.get costs
# ~0.7 µs, a quarter of a short call; the mapping's own dict answers the same in ~40 ns.
_ENV_DATA = getattr(os.environ, "_data", None)
_DISABLE_KEY = os.environ.encodekey("VECTORIZER_DISABLE") if hasattr(os.environ, "encodekey") else None


def disabled() -> bool:
    """VECTORIZER_DISABLE=1: every vectorized function runs the scalar function lane by lane."""
    if _ENV_DATA is not None and _DISABLE_KEY is not None:
        value = _ENV_DATA.get(_DISABLE_KEY)
        return value is not None and value not in (b"", b"0", "", "0")
    return os.environ.get("VECTORIZER_DISABLE", "") not in ("", "0")


class _Disabled:
    def get(self, key: object) -> str | None:  # a mapping's `get` that answers as `disabled()` does
        return "1" if disabled() else None


def disable_lookup() -> tuple[object, object]:
    """(mapping, key): `mapping.get(key)` is None, "", "0" or b"0" (or the bytes b"") unless
    VECTORIZER_DISABLE is set: the check `disabled()` makes, for generated code to inline."""
    return (_ENV_DATA, _DISABLE_KEY) if _ENV_DATA is not None and _DISABLE_KEY is not None else (_Disabled(), None)


FALLBACKS = ("warn", "error")


class Options(Record):
    """Options that change the generated code. Immutable: they are part of every cache key.

    backend      "numpy", "numba", "auto" or "jax" (with exact=False: XLA on JAX's devices, docs/jax.md)
    fallback     unsupported function: "warn" (per-element loop + FallbackWarning) or "error"
    optimize     drop asserts (default: as python -O does)
    compact      compact the active lanes of while loops when few remain
    reassociate  allow reordering floating-point reductions (vmap loops)
    exact        True: every value is CPython's bit for bit (libm through compiled loops);
                 False: speed over the last bit (NumPy's SIMD math, vector math, `s * s`...)
                 within a documented ulp bound per operation (docs/contract.md)
    vector_math  with exact=False: exp, log, pow, erfc... through glibc's vector math where it
                 runs (vecmath.py, lanemath.py). None (the default) means `not exact`; the CLI's
                 standalone modules set False (they import nothing but NumPy)
    """

    __slots__ = ("backend", "fallback", "optimize", "compact", "reassociate", "exact", "vector_math")
    backend: str
    fallback: str
    optimize: bool
    compact: bool
    reassociate: bool
    exact: bool
    vector_math: bool

    def __init__(self, backend: str = "numpy", fallback: str = "warn", optimize: bool | None = None,
                 compact: bool = True, reassociate: bool = False, exact: bool = True,
                 vector_math: bool | None = None) -> None:
        if backend not in BACKENDS + OPT_IN_BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS + OPT_IN_BACKENDS))}, got {backend!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(map(repr, FALLBACKS))}, got {fallback!r}")
        if not isinstance(exact, bool):
            raise TypeError(f"exact must be True or False, got {exact!r}")
        if backend == "jax" and exact:
            raise ValueError("backend='jax' needs exact=False: XLA's exp, sin, pow... are not the C library's "
                             "(discrete outcomes and exceptions stay exact); pass exact=False")
        if vector_math and exact:
            raise ValueError("vector_math=True gives other last bits than CPython: it needs exact=False")
        self._set(backend=backend, fallback=fallback,
                  optimize=bool(sys.flags.optimize) if optimize is None else optimize,
                  compact=compact, reassociate=reassociate, exact=exact,
                  vector_math=(not exact) if vector_math is None else bool(vector_math))

    def replace(self, **changes: object) -> Options:
        """A copy with `changes` (vector_math follows a changed `exact` unless given)."""
        fields = self.fields()
        if "exact" in changes and "vector_math" not in changes:
            fields["vector_math"] = None
        fields.update(changes)
        return Options(**fields)  # type: ignore[arg-type]

    def key(self) -> str:
        """A stable text form for cache keys (never `hash()`, which is salted per process)."""
        return ",".join(f"{k}={v!r}" for k, v in sorted(self.fields().items()))


def exactness(exact: bool, vector_math: bool | None) -> bool:
    """`exact` as the faces take it: the deprecated `vector_math=True` means `exact=False`."""
    if vector_math is not None:
        import warnings

        from .errors import user_stacklevel

        warnings.warn("vector_math= is deprecated: exact=False turns vector math on (with NumPy's SIMD math, "
                      "x * x for x ** 2...) where it runs", DeprecationWarning, stacklevel=user_stacklevel())
        if vector_math:
            return False
    return exact
