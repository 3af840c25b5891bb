"""Options that change the generated code. Frozen: they are part of every cache key."""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field

BACKENDS = ("numpy", "numba", "auto")
FALLBACKS = ("warn", "error")


@dataclass(frozen=True)
class Options:
    backend: str = "numpy"
    fallback: str = "warn"  # unsupported function: "warn" = per-element loop + FallbackWarning; "error"
    optimize: bool = field(default_factory=lambda: bool(sys.flags.optimize))  # drop asserts (python -O)
    compact: bool = True  # compact the active lanes of while loops when few remain
    reassociate: bool = False  # allow reordering floating-point reductions (vmap loops)

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {self.backend!r}")
        if self.fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(map(repr, FALLBACKS))}, got {self.fallback!r}")

    def key(self) -> str:
        """A stable text form for cache keys (never `hash()`, which is salted per process)."""
        return ",".join(f"{k}={v!r}" for k, v in sorted(asdict(self).items()))
