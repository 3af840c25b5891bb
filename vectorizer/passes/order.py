"""The pass lists' contract, checked when pipeline.py is imported (as Numba's pass manager checks
what each pass requires): a reordering that breaks it fails at import, never as a wrong kernel.

Each `Pass` says, besides its name and `run(code, ctx) -> code`:

* `takes` / `gives`: the code form it reads and returns (`TREE`, a libcst `FunctionDef`, up to
  the lowering; then `ARRAY_AST`, the array function as a Python `ast` tree, core/pyast.py's
  `ArrayCode`, printed once at the end; `LANES`, the lane functions as `ast` trees too (ops_to_lanes'
  `LaneKernels`, core/lanenodes.py); `JAX`, their JAX lowering). Each pass takes what the one
  before it gives.
* `needs`: the `Context` fields it reads that an earlier pass of its list must have filled
  (`if_to_select` reads `ctx.loop_masks`, which `while_to_masked` writes).
* `writes`: the `Context` fields it fills or changes.
* `before`: passes of its list that must come after it (`select_chains` works on ifs that
  `if_to_select` would have turned into masked blocks).

tests/passes/test_pass_order.py reads each pass's modules and checks the declarations against
the fields the code really touches, and that swapping two passes fails the check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

TREE, ARRAY_AST, LANES, JAX = "tree", "array ast", "lanes", "jax"
FORMS = (TREE, ARRAY_AST, LANES, JAX)


@dataclass(frozen=True)
class Pass:
    """One pipeline stage and its contract (see the module docstring)."""

    name: str
    run: Callable[[Any, Any], Any]
    takes: str = TREE
    gives: str = TREE
    needs: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    before: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.takes not in FORMS or self.gives not in FORMS:
            raise ValueError(f"pass {self.name!r}: a code form is one of {FORMS}")


class PassOrderError(AssertionError):
    """A pass list breaks its passes' contract: an engine bug, found when pipeline.py loads."""


def check_order(label: str, passes: Sequence[Pass]) -> None:
    """Raise PassOrderError naming the first broken rule of `passes` (one list of pipeline.py)."""
    names = [p.name for p in passes]
    written: set[str] = set()
    form = TREE
    for i, p in enumerate(passes):
        if p.takes != form:
            raise PassOrderError(f"{label}: pass {p.name!r} takes {p.takes}, but the code is {form} here"
                                 f"{f' (after {names[i - 1]!r})' if i else ''}")
        missing = sorted(p.needs - written)
        if missing:
            writers = sorted({q.name for q in passes if q.writes & set(missing)})
            raise PassOrderError(f"{label}: pass {p.name!r} reads ctx.{', ctx.'.join(missing)} before "
                                 f"{' or '.join(map(repr, writers)) or 'any pass'} writes it")
        for later in p.before:
            if later in names[:i]:
                raise PassOrderError(f"{label}: pass {p.name!r} must run before {later!r}, which comes first")
        written |= p.writes
        form = p.gives


def prefix(passes: Sequence[Pass], name: str) -> list[Pass]:
    """The passes of a list up to and including the one called `name` (a callee's passes)."""
    return list(passes[: [p.name for p in passes].index(name) + 1])
