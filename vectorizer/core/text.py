"""Text vocabulary that the passes and codegen share: constants as source, number literals,
and the prefix of the origin comments that carry the user's lines through lowering."""

from __future__ import annotations

import math

# `# line 12: if x > 0:`, attached by passes/annotate_origins and read by codegen/emit.
ORIGIN_PREFIX = "# line "


def literal(value: object) -> str:
    """Python source for a constant, valid in generated code."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "np.nan"
        if math.isinf(value):
            return "np.inf" if value > 0 else "-np.inf"
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    source = getattr(value, "source", None)  # a uniform table (core/tables.py): np.array([...])
    if callable(source):
        return source()
    raise TypeError(value)


def is_number(text: str, signed: bool = True) -> bool:
    """Whether `text` reads as a number (`float()` accepts it: `1`, `2.5e-3`, `inf`); with
    `signed=False`, one without a leading sign (an atom: it needs no parentheses)."""
    try:
        float(text)
    except ValueError:
        return False
    return signed or not text.startswith(("-", "+"))

