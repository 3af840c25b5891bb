"""The bindings a Numba module carries where its lane code calls NumPy's own float64 loop of a
ufunc (`_vz_ufunc_sin(x)`: passes/ops_to_lanes/numpy_calls.py, backends/numba/ufunclane.py).

    from vectorizer.backends.numba.ufunclane import lane_loop as _vz_ufunc_loop

    _vz_ufunc_sin = _vz_ufunc_loop("sin", False)

One line a ufunc the lanes call, in name order; the flag says whether the loop takes a data
pointer in the process that generated the module (its import checks that it still does).
`_vz_ufunc_stepped_power` (the loop called with array steps: `x ** table`) is bound with
`stepped=True`.
"""

from __future__ import annotations

from collections.abc import Collection

from ..backends.numba import ufuncloops


def ufunc_source(called: Collection[str]) -> str:
    """The bindings of the ufunc loops lane functions call (`called`: the names they call), else ""."""
    names = sorted(n.removeprefix("_vz_ufunc_") for n in called if n.startswith("_vz_ufunc_") and n != "_vz_ufunc_loop")
    if not names:
        return ""
    lines = ["from vectorizer.backends.numba.ufunclane import lane_loop as _vz_ufunc_loop", ""]
    for called_name in names:
        stepped = called_name.startswith("stepped_")
        name = called_name.removeprefix("stepped_")
        loop = ufuncloops.find(name, stepped)
        if loop is None:  # the pass asked for it in this process: a bug, said clearly
            raise AssertionError(f"lane code calls NumPy's loop of np.{name}: {ufuncloops.unavailable(name, stepped)}")
        lines.append(f"_vz_ufunc_{called_name} = _vz_ufunc_loop({name!r}, {bool(loop.data)}"
                     f"{', stepped=True' if stepped else ''})")
    return "\n".join(lines)
