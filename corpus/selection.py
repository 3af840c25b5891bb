"""Which functions the corpus holds, and how their inputs are drawn.

The selection rule, the same for every package (so it is typical code, not code that passes):
walk the listed modules (or classes' static methods) in source order and take every public
function defined there (for the standard library: the listed helpers too) whose parameters are
all named (no *args/**kwargs) and which returns numbers (an int, float, bool, or a tuple of them)
on at least a fifth of 256 typical lanes when called as a user would: batched parameters are the
ones without a default or with a number default; other defaults (None, strings, bools, objects)
are uniform options left as they are. At most `cap` functions a module. Whether the vectorizer
accepts a function plays no part.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import types
from typing import Any

# (package, module or "module:Class" for static methods, cap, names to take besides the public ones)
SOURCES: list[tuple[str, str, int, tuple[str, ...]]] = [
    ("fluids", "fluids.core", 14, ()),
    ("fluids", "fluids.friction", 8, ()),
    ("fluids", "fluids.drag", 6, ()),
    ("fluids", "fluids.fittings", 6, ()),
    ("ht", "ht.conv_internal", 10, ()),
    ("ht", "ht.conv_external", 6, ()),
    ("ht", "ht.conv_free_immersed", 6, ()),
    ("chemicals", "chemicals.vapor_pressure", 8, ()),
    ("chemicals", "chemicals.viscosity", 8, ()),
    ("chemicals", "chemicals.volume", 6, ()),
    ("psychrolib", "psychrolib", 24, ()),
    ("iapws", "iapws.iapws97", 20, ("_h13_s", "_P23_T", "_t_P", "_t_hs", "_PSat_T", "_TSat_P", "_PSat_h",
                                     "_PSat_s", "_h1_s", "_h3a_s", "_h2ab_s", "_h2c3b_s", "_Backward1_T_Ph",
                                     "_Backward1_T_Ps", "_Backward1_P_hs", "_P_2bc", "_hbc_P", "_hab_s",
                                     "_Backward2a_T_Ph", "_Backward2_T_Ph", "_Backward2_T_Ps")),
    ("pygeodesy", "pygeodesy.utily", 14, ()),
    ("geographiclib", "geographiclib.geomath:Math", 14, ()),
    ("utm", "utm.conversion", 8, ()),
    ("haversine", "haversine.haversine", 6, ()),
    ("pymap3d", "pymap3d.ecef", 6, ()),
    ("pymap3d", "pymap3d.aer", 4, ()),
    ("pymap3d", "pymap3d.latitude", 8, ()),
    ("jdcal", "jdcal", 8, ()),
    ("convertdate", "convertdate.julian", 4, ()),
    ("convertdate", "convertdate.gregorian", 4, ()),
    ("convertdate", "convertdate.hebrew", 5, ()),
    ("convertdate", "convertdate.islamic", 3, ()),
    ("convertdate", "convertdate.persian", 3, ()),
    ("convertdate", "convertdate.coptic", 3, ()),
    ("convertdate", "convertdate.mayan", 3, ()),
    ("pysolar", "pysolar.solar", 16, ()),
    ("astral", "astral.sun", 20, ()),
    ("stdlib", "colorsys", 10, ("_v",)),
    ("stdlib", "calendar", 10, ("_monthlen", "_prevmonth", "_nextmonth")),
    ("stdlib", "pydatetime", 12, ("_is_leap", "_days_before_year", "_days_in_month", "_days_before_month",
                                "_ymd2ord", "_ord2ymd", "_isoweek1monday", "_check_date_fields")),
    ("stdlib", "statistics", 2, ("_normal_dist_inv_cdf",)),
]
# Run before a package's functions are read. datetime: its pure-Python module (3.12+: _pydatetime;
# 3.11's datetime.py deletes its helpers when the C module loads, so load the file again without it).
# psychrolib: its pure-Python functions (with Numba importable it replaces them by numba ufuncs).
SETUP = {"psychrolib": "from corpus.selection import pure_psychrolib; pure_psychrolib()",
         "stdlib": "from corpus.selection import pure_datetime; pure_datetime()"}

INT_NAMES = {"year": (1, 3000), "month": (1, 12), "day": (1, 28), "hour": (0, 23), "minute": (0, 59),
             "y": (1, 3000), "m": (1, 12), "d": (1, 28), "n": (1, 50), "zone_number": (1, 60),
             "baktun": (0, 19), "katun": (0, 19), "tun": (0, 19), "uinal": (0, 17), "kin": (0, 19),
             "lo": (1, 10), "hi": (11, 20), "ordinal": (1, 730000), "n_out": (1, 20), "N": (1, 50)}
# Physical quantities by name, for the packages that name them so (psychrolib: °C and Pa, SI).
FLOAT_NAMES = {
    "lat": (-89.0, 89.0), "latitude": (-89.0, 89.0), "lat0": (-89.0, 89.0), "lat1": (-89.0, 89.0),
    "lat2": (-89.0, 89.0), "lon": (-179.0, 179.0), "longitude": (-179.0, 179.0), "lon0": (-179.0, 179.0),
    "lon1": (-179.0, 179.0), "lon2": (-179.0, 179.0), "lng": (-179.0, 179.0), "az": (0.0, 359.0),
    "re": (10.0, 1e7), "ed": (1e-6, 1e-2), "d": (0.01, 10.0), "rho": (0.5, 2000.0), "mu": (1e-6, 1e-2),
    "v": (0.1, 10.0), "pr": (0.5, 100.0), "k": (0.01, 100.0), "cp": (500.0, 5000.0), "l": (0.1, 100.0),
    "t": (250.0, 600.0), "tc": (400.0, 700.0), "pc": (1e6, 1e7), "tb": (250.0, 500.0), "p": (1e4, 1e7),
    "h": (100.0, 3000.0), "s": (1.0, 8.0), "jd": (1.7e6, 2.6e6), "juliancentury": (-1.0, 1.0),
    "tdrybulb": (-20.0, 50.0), "twetbulb": (-20.0, 30.0), "tdewpoint": (-20.0, 30.0),
    "pressure": (8e4, 1.1e5), "relhum": (0.0, 1.0), "humratio": (1e-4, 0.03), "vappres": (100.0, 5000.0),
    "moistairenthalpy": (1e4, 1e5), "r": (0.0, 1.0), "g": (0.0, 1.0), "b": (0.0, 1.0),
}
CANDIDATES = [(0.1, 10.0), (0.01, 1.0), (1.0, 1000.0), (250.0, 600.0), (1e4, 1e7), (-100.0, 100.0)]


def functions_of(source: str, extra: tuple[str, ...]) -> list[tuple[str, Any]]:
    """(qualified name, function) in source order: public functions defined there, and `extra`."""
    modname, _, cls = source.partition(":")
    mod = importlib.import_module(modname)
    owner = getattr(mod, cls) if cls else mod
    found = []
    for name, obj in vars(owner).items():
        fn = obj.__func__ if isinstance(obj, staticmethod) else obj
        if not isinstance(fn, types.FunctionType):
            continue
        if cls and not isinstance(obj, staticmethod):
            continue
        if not cls and fn.__module__ != modname:
            continue
        if name.startswith("_") and name not in extra:
            continue
        found.append((f"{cls}.{name}" if cls else name, fn))
    found.sort(key=lambda nf: nf[1].__code__.co_firstlineno)
    return found


def batched_params(fn) -> tuple[list[list], dict[str, str]] | None:
    """[name, kind, lo, hi] per batched parameter (range None: choose by probe), and the options
    left at their defaults (as repr); None when the function takes *args or **kwargs."""
    params, options = [], {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return None
        default = p.default
        if default is not p.empty and (isinstance(default, bool) or not isinstance(default, int | float)):
            options[p.name] = repr(default)
            continue
        if p.name in INT_NAMES or (isinstance(default, int) and default is not p.empty):
            lo, hi = INT_NAMES.get(p.name, (0, 100))
            params.append([p.name, "i", lo, hi])
        else:
            lo, hi = FLOAT_NAMES.get(p.name.lower(), (None, None))
            params.append([p.name, "f", lo, hi])
    return params, options


def probe(fn, params: list[list], lanes: int = 256) -> float:
    """The fraction of typical lanes (no hostile values) on which fn returns numbers."""
    from .measure import Param, is_real_result, make_inputs

    arrays = make_inputs([Param(*p) for p in params], lanes, seed=1, hostile_every=10**9)
    ok = 0
    for lane in zip(*(a.tolist() for a in arrays)):
        try:
            ok += is_real_result(fn(*lane))
        except Exception:  # noqa: BLE001, S112 - a raising lane counts as no result
            continue
    return ok / lanes


def choose_ranges(fn, params: list[list]) -> tuple[list[list], float]:
    """Fill the unnamed float ranges with the candidate on which fn returns numbers most often."""
    open_ = [p for p in params if p[2] is None]
    best, best_rate = None, -1.0
    for lo, hi in CANDIDATES if open_ else [(None, None)]:
        trial = [[p[0], p[1], lo, hi] if p[2] is None else p for p in params]
        rate = probe(fn, trial)
        if rate > best_rate + 0.05:
            best, best_rate = trial, rate
    if best_rate < 0.2 and any(p[1] == "f" and p[2] is not None for p in params):
        # the names misled (another unit, another quantity): every float range by probe
        return choose_ranges(fn, [[p[0], p[1], None, None] if p[1] == "f" else p for p in params])
    return best, best_rate


def select() -> list[dict]:
    """The corpus: one entry per selected function (see the module docstring for the rule)."""
    chosen = []
    for package, source, cap, extra in SOURCES:
        if package in SETUP:
            exec(SETUP[package], {})
        taken = 0
        for qualname, fn in functions_of(source, extra):
            if taken >= cap:
                break
            spec = batched_params(fn)
            if spec is None or not spec[0]:
                continue
            params, rate = choose_ranges(fn, spec[0])
            if rate < 0.2:
                continue
            taken += 1
            chosen.append({"id": f"{source.split(':')[0]}.{qualname}", "package": package,
                           "module": source.split(":")[0], "qualname": qualname, "params": params,
                           "options": spec[1], "typical_rate": round(rate, 3)})
    return chosen


def load(entry: dict):
    """The function an entry names (after its package's setup)."""
    if entry["package"] in SETUP:
        exec(SETUP[entry["package"]], {})
    owner: Any = importlib.import_module(entry["module"])
    for part in entry["qualname"].split("."):
        owner = getattr(owner, part)
    return owner


def pure_psychrolib() -> None:
    """Import psychrolib with Numba hidden (its plain functions), in SI units."""
    if "psychrolib" not in sys.modules:
        saved = sys.modules.get("numba")
        sys.modules["numba"] = None  # type: ignore[assignment]
        try:
            importlib.import_module("psychrolib")
        finally:
            if saved is None:
                sys.modules.pop("numba", None)
            else:
                sys.modules["numba"] = saved
    sys.modules["psychrolib"].SetUnitSystem(sys.modules["psychrolib"].SI)


def pure_datetime() -> None:
    """Register CPython's pure-Python datetime as module `pydatetime` (the corpus reads it)."""
    if "pydatetime" in sys.modules:
        return
    try:
        sys.modules["pydatetime"] = importlib.import_module("_pydatetime")
        return
    except ImportError:
        pass
    path = os.path.join(os.path.dirname(os.__file__), "datetime.py")
    blocked = sys.modules.get("_datetime")
    sys.modules["_datetime"] = None  # type: ignore[assignment]  # makes `from _datetime import *` fail
    try:
        spec = importlib.util.spec_from_file_location("pydatetime", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules["pydatetime"] = module
        spec.loader.exec_module(module)
    finally:
        if blocked is None:
            sys.modules.pop("_datetime", None)
        else:
            sys.modules["_datetime"] = blocked
