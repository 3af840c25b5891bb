"""Vectorized functions on Dask and xarray: lazy graphs in, lazy graphs out (issue 32).

`foreign(values)` is the only thing a plain call pays: the top-level module name of each
argument's type, no import. Dask and xarray are imported only when such an object is passed:

* graph.py: dask arrays in, dask arrays out (one blockwise layer, then the first failing lane);
* xr.py: xarray objects in, xarray objects out (`xarray.apply_ufunc`);
* travel.py: how a vectorized function reaches worker processes (by source and options).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

_FOREIGN = frozenset({"dask", "xarray"})
_PLAIN = frozenset({float, int, bool, type(None), str, np.ndarray})


def foreign(values: Sequence[object]) -> bool:
    """Some argument is a Dask or xarray object (judged by its type's module: nothing imported)."""
    for v in values:
        if type(v) in _PLAIN:  # (an array, a number: at once)
            continue
        if type(v).__module__.partition(".")[0] in _FOREIGN:
            return True
    return False


def call(vf: Any, values: list[Any], example_ndims: list[int] | None = None) -> Any:
    """`vf` over arguments of which some are Dask or xarray objects: a lazy result of their kind."""
    if example_ndims and any(example_ndims):
        from ...errors import VectorizeError

        raise VectorizeError(f"{vf.scalar.__qualname__}: per-example arrays (vmap, signature=) do not take Dask or "
                             "xarray arguments yet", hint="map the function over blocks with dask.array.map_blocks")
    if any(type(v).__module__.partition(".")[0] == "xarray" for v in values):
        from .xr import call as call_xarray

        return call_xarray(vf, values)
    from .graph import call as call_dask

    return call_dask(vf, values)


def reduce(vf: Any) -> tuple:
    """`VectorizedFunction.__reduce__`: the function travels by its source and options (travel.py)."""
    from .travel import reduce as by_source

    return by_source(vf)
