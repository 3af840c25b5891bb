"""What every per-example array rule (arrays.py) is made of: `Arg`, `ArrayRule`, and the
padding and broadcasting of example shapes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.types import (
    ArrayType,
    Type,
    Val,
    rank,
)
from ..errors import VectorizeTypeError


@dataclass(frozen=True)
class Arg:
    """An operand at lowering time: its text and what the analysis knows of it."""

    text: str
    val: Val

    @property
    def rank(self) -> int:
        return rank(self.val.type)


@dataclass(frozen=True)
class ArrayRule:
    family: str
    result: Callable[[list[Val], dict[str, Val]], Val]
    lower: Callable[[list[Arg], dict[str, Arg], Val], str]
    keywords: frozenset[str] = frozenset()  # the keyword arguments the rule understands
    blas: bool = False  # its batched form calls BLAS per lane: parameters are passed C-contiguous


def arity(name: str, args: list[Val], low: int, high: int) -> None:
    """NumPy's own positional arguments beyond the ones a rule understands are refused, never
    ignored (np.linalg.norm(x, 1) is not the 2-norm)."""
    if not low <= len(args) <= high:
        count = str(low) if low == high else f"{low} to {high}"
        raise VectorizeTypeError(f"{name}() takes {count} positional argument(s) here, got {len(args)}",
                                 hint=f"see numpy's {name.removeprefix('np.')}; other forms are not supported")


def pad(arg: Arg, to_rank: int) -> str:
    """A batched operand of lower rank gets axes after its lane axis: x -> x[:, None]."""
    if not arg.val.batched or arg.rank >= to_rank:
        return arg.text
    return f"{atom(arg.text)}[:, {', '.join(['None'] * (to_rank - arg.rank))}]"


def atom(text: str) -> str:
    return text if text.replace("_", "").replace(".", "").isalnum() else f"({text})"


def broadcast_shapes(*shapes: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """NumPy's broadcasting of example shapes (right-aligned), with unknown sizes as None."""
    out: list[int | None] = []
    for dims in zip(*(((1,) * (max(map(len, shapes)) - len(s)) + s) for s in shapes)):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise VectorizeTypeError(f"array shapes {' and '.join(map(str, shapes))} do not broadcast",
                                     hint="check the shapes of the per-example arrays")
        out.append(known.pop() if known else (None if None in dims else 1))
    return tuple(out)


def shape_of(v: Val) -> tuple[int | None, ...]:
    return v.type.shape if isinstance(v.type, ArrayType) else ()


def result_val(t: Type, shape: tuple[int | None, ...], batched: bool) -> Val:
    if shape:
        return Val(ArrayType(t, shape), batched, fresh=True)
    return Val(t, batched, numpy=True)
