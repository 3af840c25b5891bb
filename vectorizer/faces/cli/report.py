"""`vectorizer report PACKAGE|PATH`: which functions the import hook would vectorize, and why not.

The import hook makes the selected functions of a package dual-mode and builds their batched code
on the first array call; a function it cannot batch runs element by element after one warning, so
without this report a user would not see which functions got the fast path. For every module of
the package (or file under a path), the report applies the hook's selection rule
(`[tool.vectorizer.import-hook] select`, or --select) and generates each selected function the way
`vectorizer generate` does, from the annotations, then prints one line per function:

    mypkg/geo.py:12: wrap: vectorized
    mypkg/geo.py:30: bearing: element by element: mypkg/geo.py:33:9: error[VEC-SYNTAX]: ...

and a summary. The verdict is static (from the annotations); the hook decides again at the first
call from the arguments' dtypes, so a function annotated `float` and called with ints may still
be refused there. Exit code 0; 1 with --strict when any selected function is not vectorized.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
from pathlib import Path

from ...errors import VectorizeError
from ...options import BACKENDS, Options
from ..importhook import read_config
from ..selection import SELECT_MODES, select_functions
from .cliio import Reporter, decode, display_path, plural


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    report = sub.add_parser("report", parents=[common], help="which functions the import hook would vectorize, and why not")
    report.add_argument("target", metavar="PACKAGE|PATH", help="an importable package name, or a file or directory")
    report.add_argument("--select", choices=SELECT_MODES, help="the hook's selection rule (default: configured, else annotated)")
    report.add_argument("--backend", choices=BACKENDS, help="code generation backend (default: configured)")
    report.add_argument("--strict", action="store_true", help="exit 1 when a selected function is not vectorized")


def run(args: argparse.Namespace, reporter: Reporter) -> int:
    from .standalone import generate_module  # libcst: only when there is something to report

    table = read_config(Path.cwd())
    select = args.select or table.get("select", "annotated")
    options = Options(backend=args.backend or table.get("backend", "numpy"))
    counts = {"vectorized": 0, "element by element": 0}
    for path in _sources(args.target):
        shown = display_path(path)
        try:
            text = decode(path.read_bytes())
            tree = ast.parse(text, filename=shown)
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, ValueError) as exc:
            reporter.error(f"{shown}: cannot read or parse: {exc}")
            continue
        eligible, marked = select_functions(tree, select)
        lines = {**eligible, **marked}
        if not lines:
            continue
        try:
            refused = generate_module(text, shown, names=tuple(lines), options=options).per_element
        except VectorizeError as exc:  # the module as a whole (e.g. a name clash): every function
            refused = dict.fromkeys(lines, exc)
        for name, line in sorted(lines.items(), key=lambda item: item[1]):
            if name in refused:
                counts["element by element"] += 1
                why = str(refused[name]).splitlines()[0]
                print(f"{shown}:{line}: {name}: element by element: {why}")
            else:
                counts["vectorized"] += 1
                print(f"{shown}:{line}: {name}: vectorized")
    total = sum(counts.values())
    reporter.info(f"{plural(total, 'function')} selected ({select}): {counts['vectorized']} vectorized, "
                  f"{counts['element by element']} element by element.")
    return 1 if args.strict and counts["element by element"] else 0


def _sources(target: str) -> list[Path]:
    """The .py files of a path, or of the package (or module) named `target`, in a stable order."""
    path = Path(target)
    if not path.exists():
        try:
            spec = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            raise FileNotFoundError(f"{target} is neither a path nor an importable package or module")
        locations = list(spec.submodule_search_locations or [])
        if not locations:
            return [Path(spec.origin)] if spec.origin and spec.origin.endswith(".py") else []
        return sorted(p for folder in locations for p in Path(folder).rglob("*.py") if "__pycache__" not in p.parts)
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
