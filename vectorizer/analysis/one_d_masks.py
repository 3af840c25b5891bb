"""Boolean-mask reads and writes of one-element arrays (analysis/one_d.py), as code written for
scalars and arrays alike has them:

    mon[E < 14] = E[E < 14] - 1        a[mask] = v, v read under the same mask
    K[:] = 2                           a[:] = v
    K[np.atleast_1d(leap)] = 1

On a lane a one-element array is its number, and `mask` (a one-element bool array) its truth:
`a[mask] = v` is `a = v if mask else a` with v cast to a's dtype as NumPy's assignment casts,
`a[:] = v` is `a = v` cast. `a[mask]` read is a 0- or 1-element array: allowed only in the value
of a store under the same mask, through element-wise operators (passes/one_d_stores.py checks
that and rewrites both). What the analysis knows is recorded here; the rewrite is that pass's.
"""

from __future__ import annotations

from ..core.types import BOOL, FLOAT, INT, ArrayType, Type, Val
from ..errors import VectorizeTypeError

FULL = "full"  # the index of `a[:]`


def mask(index: Val) -> None:
    """The index of a one-element array: a one-element bool array (its truth on a lane)."""
    if isinstance(index.type, ArrayType) or index.one_d is not True or index.type is not BOOL:
        raise VectorizeTypeError("indexing a one-element array (np.atleast_1d of a number) is supported with a mask "
                                 "that is a one-element bool array (np.atleast_1d(x) < c) or with [:] only",
                                 hint="use x.item() for its number")


def read(base: Val, index: Val) -> Val:
    """`a[mask]`: a 0- or 1-element array of a's dtype (what may follow: passes/one_d_stores.py)."""
    mask(index)
    return Val(base.type, base.batched or index.batched, numpy=True, zero_d=True, one_d=True)


def store(base: Val, index: Val | str, value: Val, under_control: bool) -> Val:
    """`a[mask] = value` or `a[:] = value` (index FULL): a's value after it."""
    if base.one_d is None:
        raise VectorizeTypeError("assigning into a value that is a one-element array (np.atleast_1d of a number) on "
                                 "some paths and a number on others", hint="convert it the same way on every path")
    if not isinstance(base.type, Type) or base.type not in (BOOL, INT, FLOAT):
        raise VectorizeTypeError("item assignment needs an array", hint="create it with np.zeros(n)")
    if index != FULL:
        assert isinstance(index, Val)
        mask(index)
    if isinstance(value.type, ArrayType) or value.one_d is None or value.type not in (BOOL, INT, FLOAT):
        raise VectorizeTypeError("assigning an array or a tuple into a one-element array (np.atleast_1d of a number) "
                                 "is not supported here", hint="assign a number or a one-element array")
    batched = base.batched or value.batched or under_control or (index != FULL and index.batched)  # type: ignore[union-attr]
    return Val(base.type, batched, numpy=True, zero_d=True, one_d=True, fresh=True)
