"""Uniform tables: module-level 1-D NumPy arrays a function reads (coefficient tables such as
`n = _N; np.sum(n * x ** _I)`), held as an immutable value.

A `Table` is a constant like a number or a tuple: the same for every lane, fixed when the
function is vectorized, part of the cache key (its repr holds every value), emitted into the
generated module as `np.array([...], dtype=np.float64)`. Only the dtypes a lane's own scalar code
can meet without new arithmetic are tables: float64, int64 and bool (a float32 table would give
float32 arithmetic with Python floats under NumPy's promotion rules: refused, not guessed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

TABLE_DTYPES = {"float64": "f", "int64": "i", "bool": "b"}
MAX_SIZE = 100_000  # a table is text in the generated module and in the cache key


@dataclass(frozen=True)
class Table:
    """A 1-D array's values (Python scalars, exact) and its dtype name."""

    values: tuple
    dtype: str  # 'float64' | 'int64' | 'bool'

    @property
    def kind(self) -> str:
        """The dtype kind: 'f', 'i' or 'b'."""
        return TABLE_DTYPES[self.dtype]

    def __len__(self) -> int:
        return len(self.values)

    def array(self):  # -> np.ndarray (NumPy is imported lazily: core imports no NumPy at start-up)
        """A fresh read-only array of the values."""
        import numpy as np

        out = np.array(self.values, dtype=self.dtype)
        out.flags.writeable = False
        return out

    def source(self) -> str:
        """The array as source text, exact (float reprs round-trip; nan and inf spelled)."""
        items = [_item(v) for v in self.values]
        dtype = f"dtype=np.{'bool_' if self.dtype == 'bool' else self.dtype}"
        if sum(len(i) + 2 for i in items) <= 80:
            return f"np.array([{', '.join(items)}], {dtype})"
        rows = [", ".join(items[at:at + 4]) for at in range(0, len(items), 4)]  # a long table: 4 a line
        return "np.array([\n" + "".join(f"    {row},\n" for row in rows) + f"], {dtype})"


def _item(v: object) -> str:
    if isinstance(v, float) and not math.isfinite(v):
        return "np.nan" if math.isnan(v) else ("np.inf" if v > 0 else "-np.inf")
    return repr(v)


def table_of(value: object) -> Table | None:
    """The table of a 1-D float64/int64/bool NumPy array with at least one element; None for
    anything else (a 2-D array, a float32 or object array, an empty one, a non-array)."""
    if not is_table(value):
        return None
    return Table(tuple(value.tolist()), str(value.dtype))  # type: ignore[attr-defined]


def is_array(value: object) -> bool:
    """A NumPy ndarray (checked without importing NumPy)."""
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"


def unsupported_array(value: object) -> str | None:
    """Why a NumPy array (`is_array`) is not a table, for the refusal's message; None if it is one."""
    dtype = str(value.dtype)  # type: ignore[attr-defined]
    if dtype not in TABLE_DTYPES:
        return f"its dtype is {dtype} (only float64, int64 and bool arrays are supported)"
    if value.ndim != 1:  # type: ignore[attr-defined]
        return f"it has {value.ndim} dimensions (only 1-D arrays are supported)"  # type: ignore[attr-defined]
    if value.size == 0:  # type: ignore[attr-defined]
        return "it is empty"
    if value.size > MAX_SIZE:  # type: ignore[attr-defined]
        return f"it has {value.size} elements (tables of up to {MAX_SIZE} are emitted into the code)"  # type: ignore[attr-defined]
    return None


def is_table(value: object) -> bool:
    """`table_of(value) is not None`, without copying the values."""
    return is_array(value) and unsupported_array(value) is None
