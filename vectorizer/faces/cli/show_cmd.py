"""`vectorizer show FILE::FUNCTION`: print the generated code of one function (its kernel and its
export; with a per-element fallback, the scalar copy it loops over), nothing else of the module."""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from ...errors import VectorizeError
from ...options import BACKENDS, Options
from . import config
from .cliio import (
    Reporter,
    decode,
    display_path,
    leaves_project,
    link_refusal,
    parse_python,
    render,
    syntax_error_text,
)


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    show = sub.add_parser("show", parents=[common], help="print the generated code of one function")
    show.add_argument("target", metavar="FILE::FUNCTION")
    show.add_argument("--backend", choices=BACKENDS, help="code generation backend (default: configured)")


def run(args: argparse.Namespace, report: Reporter) -> int:
    file, sep, func = args.target.rpartition("::")
    path = Path(file)
    if not sep or not file or not func.isidentifier():
        raise config.ConfigError(f"show expects FILE::FUNCTION (e.g. kernels.py::price), got {args.target!r}")
    if not path.is_file():
        raise config.ConfigError(f"file {file} does not exist")
    overrides = {"backend": args.backend} if args.backend else {}
    settings = config.load(path.absolute().parent, Path(args.config) if args.config else None, overrides)
    if leaves_project(path, settings.root):
        report.error(link_refusal(display_path(path)))
        return 1
    try:
        text = decode(path.read_bytes())
        tree = parse_python(text, file)
    except (OSError, UnicodeDecodeError, LookupError) as exc:
        report.error(f"error: cannot read {file}: {exc}")
        return 1
    except SyntaxError as exc:
        report.error(syntax_error_text(display_path(path), exc))
        return 1
    if func not in {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}:
        raise config.ConfigError(f"{file} has no top-level function {func!r}")
    from .standalone import (
        generate_module,  # the compiler: only once there is something to show
    )

    try:
        result = generate_module(text, display_path(path), names=(func,), options=Options(backend=settings.backend))
    except VectorizeError as exc:
        report.error(str(exc))
        return 1
    wanted = {func, f"_kernel_{func}"}
    if func in result.per_element:
        report.warning(render(result.per_element[func], "warning", f"{func!r} is exported as a per-element loop"))
        wanted.add(f"_scalar_{func}")
    lines, blocks = result.text.splitlines(), []
    section = next((i for i, line in enumerate(lines) if line.startswith(f"# {func}(")), None)
    for node in ast.parse(result.text).body:
        if isinstance(node, ast.FunctionDef) and node.name in wanted:
            start = node.lineno - 1
            if node.name == f"_kernel_{func}" and section is not None:
                start = section  # with Numba, the lane functions and drivers come first
            while start > 0 and lines[start - 1].startswith("#"):
                start -= 1
            blocks.append("\n".join(lines[start:node.end_lineno]))
    sys.stdout.write("\n\n\n".join(blocks) + "\n")
    return 0
