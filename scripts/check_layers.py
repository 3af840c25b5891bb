"""Check that vectorizer's subpackages import only from the layers below them.

    python scripts/check_layers.py [--package PATH]

Reads every module's imports with `ast` (nothing is imported), maps each module to its layer,
prints the import graph between the groups (a subpackage, or a top-level module), and exits 1 on
an import that goes UP a layer, on a cycle between groups, on a module in no layer, on an import
of a module that does not exist (an old path, after a merge), or on an allowlist entry that no
longer matches an import. Imports inside functions (lazy) and under
`if TYPE_CHECKING:` count like the others: the allowlist below names the few that go up.

Layers, bottom to top (a module may import from its own layer and the layers below):

    core      core/ (types, tree, record, cache), and errors.py and options.py: they live at the
              top level (they are public: `vectorizer.errors`, `Options`) but import nothing
              above core/, and every layer raises the errors and reads the options; and
              catalogue/, the error catalogue's pages (package data), which imports nothing
    runtime   runtime/: NumPy-only code that generated modules call or carry a copy of
    backends  backends/numba/: loads generated modules with Numba and holds the vector math that
              generated code imports; it knows nothing of the compiler, whose passes read its
              tables (vecmath.FUNCTIONS), so it sits below the compiler, not above codegen
    rules     rules/: the op tables
    frontend  frontend/
    analysis  analysis/
    passes    passes/
    codegen   codegen/
    engine    engine/: in-process execution around a generated module
    top       api.py (and vectorized_views.py, what other modules read of its function),
              specializations.py, pipeline.py and the modules the pipeline's driver reads
              (specialized_analysis.py, generated.py, pass_dump.py)
    faces     faces/ and __main__.py; then the package's __init__.py, which re-exports

`from vectorizer import __version__` is allowed anywhere: the package sets it before it imports
anything else.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import defaultdict
from pathlib import Path

LAYERS: list[tuple[str, tuple[str, ...]]] = [  # (layer, its groups), bottom to top
    ("core", ("core", "errors", "options", "catalogue")),
    ("runtime", ("runtime",)),
    ("backends", ("backends",)),
    ("rules", ("rules",)),
    ("frontend", ("frontend",)),
    ("analysis", ("analysis",)),
    ("passes", ("passes",)),
    ("codegen", ("codegen",)),
    ("engine", ("engine",)),
    ("top", ("api", "vectorized_views", "specializations", "pipeline", "specialized_analysis", "generated",
             "pass_dump")),
    ("faces", ("faces", "__main__")),
    ("package", ("__init__",)),
]
LEVEL = {group: i for i, (_, groups) in enumerate(LAYERS) for group in groups}

# (importing module, imported module) -> why it may go up. Keep it short; each is a refactor to do.
ALLOWED_UP: dict[tuple[str, str], str] = {
}


def module_name(path: Path, package: Path) -> str:
    parts = (package.name, *path.relative_to(package).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def group_of(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def is_module(module: str, package: Path) -> bool:
    rel = Path(*module.split(".")[1:]) if "." in module else Path()
    return (package / rel).with_suffix(".py").is_file() or (package / rel).is_dir()


def imports_of(path: Path, package: Path) -> list[tuple[str, int, str]]:
    """(imported module of the package, line, kind) for every import in the file; kind is
    "top", "lazy" (inside a function) or "typing" (under `if TYPE_CHECKING:`)."""
    module = module_name(path, package)
    own_package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[str, int, str]] = []

    def visit(node: ast.AST, kind: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = kind
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                inner = "lazy"
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = "typing" if kind == "top" else kind
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, kind) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = own_package.split(".")[: len(own_package.split(".")) - child.level + 1]
                    source = ".".join(base + ([child.module] if child.module else []))
                else:
                    source = child.module or ""
                for alias in child.names:
                    sub = f"{source}.{alias.name}"
                    if is_module(sub, package) and sub.startswith(package.name + "."):
                        found.append((sub, child.lineno, kind))
                    elif not (source == package.name and alias.name == "__version__"):
                        found.append((source, child.lineno, kind))
            visit(child, inner)

    visit(tree, "top")
    return [(m, line, kind) for m, line, kind in found if m == package.name or m.startswith(package.name + ".")]


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one group (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def check(package: Path) -> int:
    problems: list[str] = []
    graph: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # group -> group -> kinds
    used: set[tuple[str, str]] = set()
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        source = module_name(path, package)
        src_group = group_of(source)
        if src_group not in LEVEL:
            problems.append(f"{path}: {source} is in no layer (add its group to LAYERS)")
            continue
        for target, line, kind in imports_of(path, package):
            if not is_module(target, package):
                problems.append(f"{path}:{line}: imports {target}, which does not exist (moved?)")
                continue
            dst_group = group_of(target)
            if dst_group == src_group:
                continue
            if dst_group not in LEVEL:
                problems.append(f"{path}:{line}: imports {target}, which is in no layer")
                continue
            if (source, target) in ALLOWED_UP:
                used.add((source, target))
                graph[src_group][dst_group].add("allowed")
                continue
            graph[src_group][dst_group].add(kind)
            if LEVEL[dst_group] > LEVEL[src_group]:
                problems.append(f"{path}:{line}: {source} ({LAYERS[LEVEL[src_group]][0]}) imports {target} "
                                f"({LAYERS[LEVEL[dst_group]][0]}), a layer above it ({kind} import)")
    for stale in sorted(set(ALLOWED_UP) - used):
        problems.append(f"allowlist entry {stale[0]} -> {stale[1]} matches no import: remove it")
    edges = {g: {d for d, kinds in targets.items() if kinds != {"allowed"}} for g, targets in graph.items()}
    for component in cycles(edges):
        problems.append(f"import cycle between {', '.join(component)}")

    print("layers, bottom to top: " + " < ".join(
        name + (f"({', '.join(groups)})" if groups != (name,) else "") for name, groups in LAYERS))
    print("imports between groups ('lazy' / 'typing': only inside functions / under TYPE_CHECKING;"
          " 'allowed': in the allowlist):")
    for group in sorted(graph, key=lambda g: (LEVEL[g], g)):
        parts = []
        for dst in sorted(graph[group], key=lambda g: (LEVEL[g], g)):
            kinds = graph[group][dst]
            note = "" if "top" in kinds else f" ({'/'.join(sorted(kinds))})"
            parts.append(dst + note)
        print(f"  {group:9} -> {', '.join(parts)}")
    if ALLOWED_UP:
        print("allowed upward imports:")
        for (source, target), why in ALLOWED_UP.items():
            print(f"  {source} -> {target}: {why}")
    for problem in problems:
        print(f"ERROR {problem}", file=sys.stderr)
    print(f"{len(problems)} problem(s)" if problems else "ok: every import goes down a layer or stays in its own")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", type=Path, default=Path(__file__).resolve().parent.parent / "vectorizer",
                        help="the package directory to check (default: this checkout's vectorizer/)")
    return check(parser.parse_args(argv).package.resolve())


if __name__ == "__main__":
    raise SystemExit(main())
