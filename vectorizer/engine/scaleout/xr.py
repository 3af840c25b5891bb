"""xarray objects in, xarray objects out, through `xarray.apply_ufunc`.

Dimensions broadcast by name, and coordinates and attributes are kept, as apply_ufunc keeps them
for a function of scalars (no core dimensions); Datasets map over their data variables. The data
reach the vectorized function as they are: NumPy arrays run now, dask arrays build the lazy graph
of graph.py (`dask="allowed"`). `dask="parallelized"` would call the function block by block
through `dask.array.apply_gufunc`, each block on its own: a lane's exception would then name its
lane in a block, and the first failing block to run would raise; graph.py keeps the loop's
exception (the first failing lane in C order over the whole array, with its global index).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .graph import structure


def call(vf: Any, values: list[Any]) -> Any:
    """`vf` over arguments of which some are xarray objects (DataArray, Dataset, Variable)."""
    import xarray as xr

    returns_tuple, dtypes = _structure(vf, values, xr)

    def lanes(*data: Any) -> Any:  # positional, whatever the parameters' kinds (keyword-only too)
        return vf.call_lanes(list(data))

    lanes.__name__ = getattr(vf, "__name__", "vectorized")
    count = len(dtypes) if returns_tuple else 1
    return xr.apply_ufunc(lanes, *values, dask="allowed", output_core_dims=[()] * count)


def _structure(vf: Any, values: list[Any], xr: Any) -> tuple[bool, list[np.dtype]]:
    """(returns a tuple?, result dtypes) from the arguments' dtypes, without computing."""
    args: list[Any] = []
    for v in values:
        if isinstance(v, xr.Dataset):  # its variables' common dtype: the specialization's kinds
            dtypes = [d.dtype for d in v.data_vars.values()]
            args.append(np.empty((0,), np.result_type(*dtypes) if dtypes else np.float64))
        elif isinstance(v, (xr.DataArray, xr.Variable)) or getattr(v, "ndim", 0):
            args.append(np.empty((0,), v.dtype))
        else:
            args.append(v)
    return structure(vf, args)
