"""What lowering one specialization gives back (`Generated`: the module's text, its kernel's name,
how its results are stored...), and the module's header line that names the static values it is
specialized on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .core.types import ResultKind
from .frontend.static_objects import describe
from .specialized_analysis import Statics


@dataclass(frozen=True)
class Generated:
    """The result of lowering one specialization."""

    source: str  # the generated module
    name: str  # the kernel's name in it
    result: tuple[ResultKind, ...]  # how each returned value is stored
    returns_tuple: bool
    function: str  # the kernel's `def` alone (Numba: its lane functions, drivers and entry point)
    constants: dict[str, object]  # module constants it reads
    parallel_min_lanes: int | None = None  # Numba: the batch size from which the parallel driver runs


def noted(source: str, statics: Statics | None) -> str:
    """The module with a second header line naming the values it is specialized on."""
    if statics is None or not (statics.params or statics.helpers):
        return source
    values = [f"{n}={describe(v)}" for n, v in statics.params.items()] + [f"{n}()={v!r}" for n, v in statics.helpers.items()]
    first, _, rest = source.partition("\n")
    return f"{first}\n# Specialized on {', '.join(values)}: the branches they decide are decided here.\n{rest}"
