"""The helpers a generated module carries: exactly those its code calls, each once, in one order.

A helper is a top-level function, class or constant of a NumPy-only module, registered in a table
by its name there: name -> (module, the table names it reads). `RUNTIME` holds what kernels call
(runtime/), `IN_PROCESS` adds what exact=True kernels call; the CLI's standalone modules add
engine/carried.py's flag-and-patch. `carry` takes the
names a module's code reads, closes them over the table's dependencies, and copies each helper's
source, read from its module's file with `ast` by name:

    def where(cond, yes, no): ...       ->   def _vz_where(cond, yes, no): ...

In the copy, the helper's own name and the names of its dependencies become `_vz_<name>` (names
that already start with `_vz_`/`_VZ_` stay): a generated module's names cannot collide with them.
Parameter and return annotations go (they may name `typing` helpers the module does not import);
comments above a definition stay behind, the ones inside it come along. Helpers come in the
table's order, constants and classes first where a definition reads them when it runs.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType

from ..core.binding import bound_names
from ..runtime import exactmath, helpers, intmath, special

Table = Mapping[str, tuple[ModuleType, tuple[str, ...]]]

# What generated kernels call (`_vz_where`, `_vz_exact`, `_vz_erfc`...), with what each reads.
RUNTIME: Table = {
    "where": (helpers, ()),
    "power": (helpers, ()),
    "array_power": (helpers, ()),
    "stepped_power": (helpers, ()),
    "numpy_power": (helpers, ()),
    "masked": (helpers, ()),
    "Compaction": (helpers, ()),
    "BranchLanes": (helpers, ()),
    "exact": (exactmath, ()),
    "_VZ_ERF_SMALL": (special, ()),
    "_VZ_ERFCX": (special, ()),
    "_VZ_PART_SHIFT": (special, ()),
    "_VZ_FIRST_PART": (special, ()),
    "_vz_poly": (special, ()),
    "_vz_erfc_tail": (special, ("_VZ_PART_SHIFT", "_VZ_FIRST_PART", "_VZ_ERFCX")),
    "_vz_erf": (special, ("_vz_poly", "_VZ_ERF_SMALL", "_vz_erfc_tail", "where")),
    "_vz_erfc": (special, ("_vz_poly", "_VZ_ERF_SMALL", "_vz_erfc_tail", "where")),
    # math.remainder, comb, factorial... (rules/mathcalls.py)
    "_VZ_FACTORIALS": (intmath, ()),
    "_VZ_I64_BIG": (intmath, ()),
    "_VZ_ISQRT_MAX": (intmath, ()),
    "_vz_scalar": (intmath, ()),
    "remainder": (intmath, ("_vz_scalar",)),
    "modf": (intmath, ("_vz_scalar",)),
    "frexp": (intmath, ("_vz_scalar",)),
    "factorial": (intmath, ("_vz_scalar", "_VZ_FACTORIALS")),
    "comb": (intmath, ("_vz_scalar", "_VZ_I64_BIG")),
    "perm": (intmath, ("_vz_scalar", "_VZ_I64_BIG")),
    "isqrt": (intmath, ("_vz_scalar", "_VZ_ISQRT_MAX")),
    "lcm": (intmath, ("_vz_scalar", "_VZ_I64_BIG")),
    "powmod": (intmath, ("_vz_scalar", "_VZ_ISQRT_MAX")),
    "bit_length": (intmath, ("_vz_scalar",)),
}

# And what only exact=True kernels call, which run in process (the CLI's standalone modules are
# exact=False: their shared runtime, faces/cli/standalone.py, holds `RUNTIME` alone).
IN_PROCESS: Table = {**RUNTIME, "c_pow": (exactmath, ())}


def emitted(name: str) -> str:
    """The name a helper has in a generated module."""
    return name if name.startswith(("_vz_", "_VZ_")) else "_vz_" + name.lstrip("_")


def closure(names: Iterable[str], table: Table) -> list[str]:
    """The table's helpers that `names` (the global names a module's code reads) call, with the
    helpers those read, in the table's order."""
    by_emitted = {emitted(k): k for k in table}
    todo = [by_emitted[n] for n in names if n in by_emitted]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(table[name][1])
    return [k for k in table if k in seen]


def carry(names: Iterable[str], table: Table) -> str:
    """The source of the helpers `names` call (see `closure`), "" if none."""
    previous_constant = False
    out = ""
    for k in closure(names, table):
        module, deps = table[k]
        constant = isinstance(_definitions(module.__name__)[1][k], ast.Assign)
        # Constants in a row share a block; definitions stand two blank lines apart.
        sep = "\n" if constant and previous_constant else "\n\n\n"
        out += (sep if out else "") + helper_source(module.__name__, k, deps)
        previous_constant = constant
    return out


@functools.cache
def _definitions(module: str) -> tuple[list[str], dict[str, ast.stmt]]:
    """A module's lines and its top-level definitions by name (functions, classes, constants)."""
    path = Path(__import__(module, fromlist=["_"]).__file__)  # type: ignore[arg-type]
    text = path.read_text(encoding="utf-8")
    found: dict[str, ast.stmt] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node
    return text.splitlines(), found


def _annotations(tree: ast.AST) -> set[int]:
    """The ids of the nodes in parameter and return annotations (the copies drop them)."""
    roots = [n.annotation for n in ast.walk(tree) if isinstance(n, ast.arg) and n.annotation is not None]
    roots += [n.returns for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.returns is not None]
    return {id(sub) for root in roots for sub in ast.walk(root)}


def reads(module: str, name: str) -> set[str]:
    """The global names a helper's copy reads, itself left out (for checking the tables)."""
    lines, found = _definitions(module)
    tree = found[name]
    dropped = _annotations(tree)
    out = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in dropped}
    # Its own locals and parameters are not globals (engine/loop.py's lane_runner returns its
    # inner `run`, which is not execute.py's `run`); a `global` statement's names are.
    params = {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
              for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg) if a is not None}
    declared = {g for n in ast.walk(tree) if isinstance(n, ast.Global) for g in n.names}
    out -= (bound_names(tree) | params) - declared
    return (out | declared) - {name}  # an assignment's target is its own name


@functools.cache
def helper_source(module: str, name: str, deps: tuple[str, ...]) -> str:
    """`name`'s definition in `module`, renamed for a generated module (see the module docstring)."""
    lines, found = _definitions(module)
    if name not in found:
        raise KeyError(f"{module} defines no top-level {name!r}")
    top = found[name]  # its positions count the module's lines: `at` makes them the snippet's
    first = top.lineno
    snippet = lines[first - 1:top.end_lineno]
    text = "\n".join(snippet)
    renames = {n: emitted(n) for n in (name, *deps)} | {emitted(n): emitted(n) for n in deps}
    starts = [0]
    for line in snippet:
        starts.append(starts[-1] + len(line) + 1)

    def at(lineno: int, col: int) -> int:  # ast columns count UTF-8 bytes
        return starts[lineno - first] + len(snippet[lineno - first].encode()[:col].decode())

    edits: list[tuple[int, int, str]] = []
    tree = top
    if isinstance(top, ast.FunctionDef | ast.ClassDef):
        keyword = "def " if isinstance(top, ast.FunctionDef) else "class "
        start = text.index(keyword + name) + len(keyword)
        edits.append((start, start + len(name), renames[name]))
    dropped = _annotations(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in renames and n.id != renames[n.id] and id(n) not in dropped:
            edits.append((at(n.lineno, n.col_offset), at(n.end_lineno, n.end_col_offset), renames[n.id]))  # type: ignore[arg-type]
        elif isinstance(n, ast.Global | ast.Nonlocal) and set(n.names) & set(renames):
            kind = "global" if isinstance(n, ast.Global) else "nonlocal"
            new = f"{kind} {', '.join(renames.get(g, g) for g in n.names)}"
            edits.append((at(n.lineno, n.col_offset), at(n.end_lineno, n.end_col_offset), new))  # type: ignore[arg-type]
        elif isinstance(n, ast.arg):
            if n.arg in renames:
                raise ValueError(f"{module}.{name}: parameter {n.arg!r} shadows a helper it carries")
            if n.annotation is not None:  # `x: int` -> `x`
                start = at(n.lineno, n.col_offset) + len(n.arg)
                edits.append((start, at(n.annotation.end_lineno, n.annotation.end_col_offset), ""))  # type: ignore[arg-type]
        elif isinstance(n, ast.FunctionDef) and n.returns is not None:  # `) -> int:` -> `):`
            end = at(n.returns.end_lineno, n.returns.end_col_offset)  # type: ignore[arg-type]
            arrow = text.rindex("->", 0, at(n.returns.lineno, n.returns.col_offset))
            edits.append((len(text[:arrow].rstrip()), end, ""))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text
