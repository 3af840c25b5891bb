"""The second corpus (issue 51): real code from fields the first corpus does not touch.

The rule, applied by `python scripts/corpus.py select --corpus second` (this module), not chosen by
hand; whether the vectorizer accepts a function plays no part:

1. Packages: those of `PACKAGES` (named in issue 51's list of fields the first corpus lacks, or found
   in PyPI's package index by a field's word), none of `corpus/requirements.txt` and none by its
   authors, pinned in `corpus/second/requirements.txt`. A package is dropped when its own files
   hold compiled modules (not pure Python), when it cannot be imported, or when rule 2 takes none
   of its functions.
2. Candidates: every function reached by a public name (no leading `_`) of a public module of the
   package (modules whose dotted path has no part starting with `_` or `test`), defined in the
   package, and the static methods of its public classes; one candidate per function (a function
   object reached by two names, or two with the same name and source text, counts once, at the
   first name found).
3. A candidate is excluded, with the reason, when it takes `*args`/`**kwargs`; when a parameter
   without a default is typed by its annotation or its docstring (numpydoc `x : type`, Google
   `x (type):`, Sphinx `:param type x:` / `:type x: type`) as something other than a number; when no
   parameter is a number (batched parameters: those without a default or with a number default;
   other defaults, keyword-only ones, and every parameter after the first option are options left
   at their defaults, as the measurement passes lanes by position); when its source cannot be
   read; or when, on 256 typical lanes of the best of six float ranges (ints: 0..100; bools: both;
   a parameter that neither its annotation, its docstring nor a default types is tried as a float
   in each range, then as an int in 0..100 with each),
   it returns a number (an int, float or bool, or a tuple of them) on fewer than a fifth of them
   (the reason says what it did instead), or takes more than `PROBE_SECONDS` to probe.
4. Of the rest, at most `CAP` a package: those with the most control-flow nodes (if, for, while,
   try, except, with, boolean operators, conditional expressions, comprehensions, raise, return,
   break, continue) in their own source; ties in the order found. The others are excluded as over
   the cap.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import os
import pkgutil
import re
import signal
import textwrap
import types
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from corpus.measure import Param, is_real_result, make_inputs
from corpus.selection import load  # noqa: F401 - the entry loader is the first corpus's (no setup hooks here)

# (distribution on PyPI, import name, field)
PACKAGES: list[tuple[str, str, str]] = [
    ("astronomia", "astronomia", "astronomy (Meeus's algorithms)"),
    ("thermofeel", "thermofeel", "thermal comfort / biometeorology"),
    ("meteocalc", "meteocalc", "meteorology"),
    ("refet", "refet", "agriculture (reference evapotranspiration)"),
    ("seawater", "seawater", "oceanography"),
    ("py_lets_be_rational", "py_lets_be_rational", "finance (option implied volatility)"),
    ("numpy-financial", "numpy_financial", "finance (time value of money)"),
    ("trueskill", "trueskill", "rating systems"),
    ("openskill", "openskill", "rating systems"),
    ("coloraide", "coloraide", "colour science"),
    ("primefac", "primefac", "number theory"),
    ("acoustics", "acoustics", "acoustics"),
    ("pytweening", "pytweening", "animation (easing curves)"),
    ("easing-functions", "easing_functions", "animation (easing curves)"),
    ("pyerf", "pyerf", "special functions / statistics"),
    ("electricpy", "electricpy", "electrical engineering"),
    ("structuralcodes", "structuralcodes", "structural engineering (design codes)"),
]
CAP = 16
PROBE_SECONDS = 20
LANES = 256
FLOAT_RANGES = [(0.1, 10.0), (0.01, 1.0), (1.0, 1000.0), (250.0, 600.0), (1e4, 1e7), (-100.0, 100.0)]
INT_RANGE = (0, 100)
# a type's text is a number's when one of its words (split at non-letters and CamelCase) is one of these
NUMBER_WORDS = {"float", "int", "integer", "number", "numeric", "real", "scalar", "double", "array", "ndarray",
                "arraylike", "float64", "int64", "floating", "integral"}
INT_WORDS = {"int", "integer", "int64", "integral"}
BOOL_WORD = re.compile(r"^\s*(bool|boolean)\s*$", re.I)
CONTROL = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.ExceptHandler, ast.With, ast.BoolOp,
           ast.IfExp, ast.comprehension, ast.Raise, ast.Return, ast.Break, ast.Continue, ast.Match)


class ProbeTimeout(BaseException):  # not an Exception: the probed code's handlers must not catch it
    pass


def _alarm(_signum, _frame):
    raise ProbeTimeout


def compiled_files(import_name: str) -> list[str]:
    spec = importlib.util.find_spec(import_name)
    roots = spec.submodule_search_locations or [] if spec else []
    return sorted(str(p.name) for root in roots for p in Path(root).rglob("*") if p.suffix in (".so", ".pyd"))


def public_modules(import_name: str) -> tuple[list[types.ModuleType], list[tuple[str, str]]]:
    """The package's public modules in walk order, and (module, reason) for those that fail to import."""
    top = importlib.import_module(import_name)
    names = [import_name]
    if hasattr(top, "__path__"):
        names += [n for _, n, _ in pkgutil.walk_packages(top.__path__, import_name + ".", onerror=lambda _: None)
                  if not any(part.startswith(("_", "test")) for part in n.split("."))]
    modules, failed = [], []
    for name in names:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                modules.append(importlib.import_module(name))
        except Exception as exc:  # noqa: BLE001 - an unimportable module is recorded, not fatal
            failed.append((name, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))
    return modules, failed


def candidates(import_name: str, modules: list[types.ModuleType]) -> list[tuple[str, str, Any]]:
    """(module, qualname, function) per function object, at its first public name (rule 2)."""
    seen: set[Any] = set()
    found = []
    for mod in modules:
        for name, obj in list(vars(mod).items()):
            if name.startswith("_"):
                continue
            if isinstance(obj, types.FunctionType):
                items = [(name, obj)]
            elif isinstance(obj, type) and obj.__module__.split(".")[0] == import_name:
                items = [(f"{name}.{a}", o.__func__) for a, o in vars(obj).items()
                         if isinstance(o, staticmethod) and not a.startswith("_") and isinstance(o.__func__, types.FunctionType)]
            else:
                continue
            for qualname, fn in items:
                key = _identity(fn)
                if (fn.__module__ or "").split(".")[0] != import_name or key in seen:
                    continue
                seen.add(key)
                found.append((mod.__name__, qualname, fn))
    return found


def _identity(fn) -> Any:
    """A function's identity for rule 2: its name and source text (a package that ships one file
    twice, as primefac does, has two function objects for each), else the object itself."""
    try:
        return fn.__qualname__, inspect.getsource(fn)
    except (OSError, TypeError):
        return id(fn)


def doc_type(doc: str, name: str) -> str | None:
    """The type a docstring gives parameter `name`, if it gives one."""
    n = re.escape(name)
    for pattern in (rf"^\s*{n}(?:\([^)]*\))?\s+:\s*(?!\s*$)([^\n]+)$", rf"^\s*{n}\s*:\s*(?!\s*$)([^\n]+)$",
                    rf"^\s*{n}\s*\(([^)]+)\)\s*:", rf":param\s+([^:]+?)\s+{n}\s*:",
                    rf":type\s+{n}\s*:\s*([^\n]+)"):
        m = re.search(pattern, doc, re.M)
        if m:
            return m.group(1).strip()
    return None


def kind_of(type_text: str) -> str | None:
    """"f", "i" or "b" for a number type's text, None for another type."""
    if BOOL_WORD.match(type_text):
        return "b"
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+\d*|[A-Z]+(?![a-z])\d*", type_text)}
    if not words & NUMBER_WORDS:
        return None
    return "i" if words & NUMBER_WORDS <= INT_WORDS else "f"


def batched_params(fn) -> tuple[list[list], dict[str, str]] | str:
    """[name, kind, lo, hi] per batched parameter (float ranges None: by probe) and the options, or
    the reason the function is excluded (rule 3)."""
    doc = inspect.getdoc(fn) or ""
    params, options = [], {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            return "takes *args or **kwargs"
        default = p.default
        if p.kind == p.KEYWORD_ONLY and default is p.empty:
            return f"keyword-only parameter '{p.name}' without a default"
        if default is not p.empty and (options or p.kind == p.KEYWORD_ONLY or isinstance(default, bool)
                                       or not isinstance(default, int | float)):
            options[p.name] = re.sub(r" at 0x[0-9a-f]+", "", repr(default))  # every later one too: lanes go by position
            continue
        annotation = None if p.annotation is p.empty else (p.annotation.__name__ if isinstance(p.annotation, type)
                                                           else str(p.annotation))
        typed = annotation or doc_type(doc, p.name)
        kind = "i" if isinstance(default, int) and default is not p.empty else "f"
        if typed is not None:
            kind = kind_of(typed) or ""
            if not kind:
                source = "annotation" if annotation else "docstring"
                return f"parameter '{p.name}' is not a number by its {source}: {typed[:60]}"
        untyped = typed is None and default is p.empty
        params.append([p.name, "?" if untyped else kind,
                       *(INT_RANGE if kind == "i" and not untyped else (0, 1) if kind == "b" else (None, None))])
    if not params:
        return "no number parameter"
    return params, options


def probe(fn, params: list[list]) -> tuple[float, Counter]:
    """The fraction of typical lanes on which fn, called positionally with the batched parameters
    (options at their defaults, as the measurement calls it), returns numbers, and what it did on
    the others."""
    arrays = make_inputs([Param(*p) for p in params], LANES, seed=1, hostile_every=10**9)
    outcomes: Counter = Counter()
    ok = 0
    for lane in zip(*(a.tolist() for a in arrays)):
        try:
            value = fn(*lane)
        except Exception as exc:  # noqa: BLE001 - a raising lane counts as no result, by type
            outcomes[f"raised {type(exc).__name__}: {str(exc)[:60]}"] += 1
            continue
        if is_real_result(value):
            ok += 1
        else:
            outcomes[f"returned {type(value).__module__}.{type(value).__qualname__}".replace("builtins.", "")] += 1
    return ok / LANES, outcomes


def choose_ranges(fn, params: list[list]) -> tuple[list[list], float, Counter]:
    """The float range (one for all float parameters) on which fn returns numbers most often; the
    untyped parameters ("?") are floats there, then ints in INT_RANGE with each float range."""
    open_ = any(p[2] is None for p in params)
    best: tuple[list[list], float, Counter] | None = None
    untyped_as = ("f", "i") if any(p[1] == "?" for p in params) else ("f",)
    trials = [[([p[0], as_, *INT_RANGE] if as_ == "i" and p[1] == "?" else [p[0], "f" if p[1] == "?" else p[1], lo, hi])
               if p[2] is None else p for p in params]
              for as_ in untyped_as for lo, hi in (FLOAT_RANGES if open_ else [(None, None)])]
    for trial in trials:
        rate, outcomes = probe(fn, trial)
        if best is None or rate > best[1] + 0.05:
            best = (trial, rate, outcomes)
    return best


def control_flow_nodes(fn) -> int:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    return sum(isinstance(node, CONTROL) for node in ast.walk(tree))


def judge(fn) -> dict | str:
    """The entry fields of a candidate that passes rule 3, or the reason it is excluded."""
    spec = batched_params(fn)
    if isinstance(spec, str):
        return spec
    try:
        nodes = control_flow_nodes(fn)
    except (OSError, TypeError, SyntaxError) as exc:
        return f"no readable source ({type(exc).__name__})"
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(PROBE_SECONDS)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            params, rate, outcomes = choose_ranges(fn, spec[0])
    except ProbeTimeout:
        return f"probing took more than {PROBE_SECONDS} s"
    finally:
        signal.alarm(0)
    if rate < 0.2:
        what, count = outcomes.most_common(1)[0]
        return f"numbers on {rate:.0%} of the typical lanes; most lanes {what} ({count}/{LANES})"
    return {"params": params, "options": spec[1], "typical_rate": round(rate, 3), "control_flow": nodes}


def select_with_exclusions() -> tuple[list[dict], list[dict]]:
    """The corpus (rule above) and every excluded package, module and candidate with its reason."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    chosen, excluded = [], []
    for dist, import_name, field in PACKAGES:
        compiled = compiled_files(import_name)
        if compiled:
            excluded.append({"package": dist, "what": import_name, "reason": f"not pure Python: {', '.join(compiled[:3])}"})
            continue
        try:
            modules, failed = public_modules(import_name)
        except Exception as exc:  # noqa: BLE001 - an unimportable package is dropped with the reason
            excluded.append({"package": dist, "what": import_name, "reason": f"cannot be imported: {type(exc).__name__}: {exc}"})
            continue
        excluded += [{"package": dist, "what": m, "reason": f"module cannot be imported: {why}"} for m, why in failed]
        passing = []
        for module, qualname, fn in candidates(import_name, modules):
            verdict = judge(fn)
            if isinstance(verdict, str):
                excluded.append({"package": dist, "what": f"{module}.{qualname}", "reason": verdict})
                continue
            passing.append({"id": f"{module}.{qualname}", "package": dist, "field": field, "module": module,
                            "qualname": qualname, **verdict})
        ranked = sorted(passing, key=lambda e: -e["control_flow"])  # stable: ties in the order found
        for rank, entry in enumerate(ranked, 1):
            if rank <= CAP:
                chosen.append(entry)
            else:
                excluded.append({"package": dist, "what": entry["id"],
                                 "reason": f"over the cap of {CAP} (rank {rank}, {entry['control_flow']} control-flow nodes)"})
        if not passing:
            excluded.append({"package": dist, "what": import_name, "reason": "no function passes rule 3"})
    return chosen, excluded
