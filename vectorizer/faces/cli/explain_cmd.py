"""`vectorizer explain FILE::FUNCTION`: the function's source annotated with what the compiler did.

Unlike `generate` and `show`, `explain` IMPORTS the file (its top-level code runs), because it
reads the function's module constants as a call would and, with `--sample N` or `--html`, runs
one profiled call on N lanes of generated inputs: floats uniform in [-10, 10], ints in [0, 20],
bools at random (by the parameter's annotation; `--range NAME=LO:HI` changes one), a parameter
with a default gets that default as one value for every lane (uniform), as does
`--uniform NAME=VALUE`. Exit code 0, also for a function that is refused (the report says why);
1 when the file cannot be imported or has no such function.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...options import Options
from .cliio import Reporter, use_color

if TYPE_CHECKING:
    from ...api import VectorizedFunction


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("explain", parents=[common], help="annotate a function's source with what the compiler did")
    p.add_argument("target", metavar="FILE::FUNCTION")
    p.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report with a profile")
    p.add_argument("--sample", type=int, metavar="N", help="profile one call on N lanes of generated inputs "
                                                             "(default: 10000 with --html, none otherwise)")
    p.add_argument("--uniform", action="append", default=[], metavar="NAME=VALUE",
                   help="give this parameter one value for every lane (repeatable)")
    p.add_argument("--range", action="append", default=[], metavar="NAME=LO:HI",
                   help="draw this parameter's lanes from [LO, HI] (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")


def run(args: argparse.Namespace, reporter: Reporter) -> int:
    file, sep, name = args.target.rpartition("::")
    if not sep or not file or not name.isidentifier():
        reporter.error(f"error: explain expects FILE::FUNCTION (e.g. kernels.py::price), got {args.target!r}")
        return 2
    path = Path(file)
    if not path.is_file():
        reporter.error(f"error: file {file} does not exist")
        return 2
    from ...api import VectorizedFunction  # the engine: only when this command runs

    try:
        func = _load(path, name)
    except Exception as exc:  # noqa: BLE001 - the user's module failed to import: say so, exit 1
        reporter.error(f"error: cannot import {file}: {type(exc).__name__}: {exc}")
        return 1
    if func is None:
        reporter.error(f"error: {file} has no function {name!r}")
        return 1
    inner = getattr(func, "vectorized", None)  # @vectorize(otypes=...) wraps the function once more (npcompat)
    if isinstance(func, VectorizedFunction) or isinstance(inner, VectorizedFunction):
        vf = func if isinstance(func, VectorizedFunction) else inner
    elif isinstance(func, types.FunctionType):  # not vectorize(): it hands *args functions to npcompat
        vf = VectorizedFunction(func, Options())
    else:
        reporter.error(f"error: {name!r} in {file} is not a Python function defined with def")
        return 1
    sample = args.sample if args.sample is not None else (10_000 if args.html else 0)
    try:
        inputs = _inputs(vf, sample, args.uniform, args.range, args.seed) if sample else {}
    except ValueError as exc:
        reporter.error(f"error: {exc}")
        return 2
    from ..explain import explain  # libcst and the passes: only for this command

    text = explain(vf, (), inputs, html=args.html, color=use_color(args.color, sys.stdout))
    sys.stdout.write(text)
    if args.html:
        reporter.info(f"wrote {args.html}")
    return 0


def _load(path: Path, name: str) -> Any:
    """The module-level object `name` of the file, imported under a private module name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    if name not in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}:
        return None
    module_name = f"_vz_explain_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # inspect.getsource and dataclasses look the module up here
    sys.path.insert(0, str(path.absolute().parent))  # its sibling imports
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.absolute().parent))
    return getattr(module, name, None)


def _inputs(vf: VectorizedFunction, lanes: int, uniform: list[str], ranges: list[str], seed: int) -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    fixed = dict(_pair(u, "--uniform NAME=VALUE") for u in uniform)
    bounds = {k: v.split(":") for k, v in (_pair(r, "--range NAME=LO:HI") for r in ranges)}
    out: dict[str, Any] = {}
    for p in vf.__signature__.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue  # refused by the fence; the report says so
        kind = {int: "int", float: "float", bool: "bool"}.get(p.annotation, p.annotation if isinstance(p.annotation, str) else "float")
        if p.name in fixed:
            out[p.name] = {"int": int, "bool": lambda s: s.lower() in ("1", "true")}.get(kind, float)(fixed[p.name])
        elif p.default is not inspect.Parameter.empty and p.name not in bounds:
            out[p.name] = p.default
        elif kind == "bool":
            out[p.name] = rng.random(lanes) < 0.5
        elif kind == "int":
            lo, hi = (int(b) for b in bounds.get(p.name, ("0", "20")))
            out[p.name] = rng.integers(lo, hi, lanes, endpoint=True)
        else:
            lo, hi = (float(b) for b in bounds.get(p.name, ("-10", "10")))
            out[p.name] = rng.uniform(lo, hi, lanes)
    unknown = (set(fixed) | set(bounds)) - set(out)
    if unknown:
        raise ValueError(f"{', '.join(sorted(unknown))}: no such parameter")
    return out


def _pair(text: str, form: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier() or not value:
        raise ValueError(f"expected {form}, got {text!r}")
    return name, value
