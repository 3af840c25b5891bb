"""Which top-level functions of a module the import hook makes dual-mode, read with `ast` (the
module is not run): `select_functions`, and `is_vectorize`, which knows an `@vectorize` decorator.

    annotated   functions whose every parameter is annotated int, float or bool (the default)
    marked      only the functions decorated with @vectorize
    all         every function with at least one parameter and no *args/**kwargs

A function with another decorator is never selected; an `@vectorize` one is "marked" in every
mode (its own options stay).
"""

from __future__ import annotations

import ast

SELECT_MODES = ("annotated", "marked", "all")
SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool"})


def select_functions(tree: ast.Module, select: str) -> tuple[dict[str, int], dict[str, int]]:
    """Top-level functions to make dual-mode: ({eligible name: def line}, {marked name: first line})."""
    eligible: dict[str, int] = {}
    marked: dict[str, int] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        if node.decorator_list:  # only @vectorize is understood; other decorators rule a function out
            if any(is_vectorize(d) for d in node.decorator_list):
                marked[node.name] = node.decorator_list[0].lineno
            continue
        args = node.args
        params = args.posonlyargs + args.args + args.kwonlyargs
        if select == "marked" or args.vararg or args.kwarg or not params:
            continue
        if select == "all" or all(annotation(p.annotation) in SCALAR_ANNOTATIONS for p in params):
            eligible[node.name] = node.lineno
    for name in marked:
        eligible.pop(name, None)
    return eligible, marked


def is_vectorize(decorator: ast.expr) -> bool:
    """Is this decorator `@vectorize` or `@<module>.vectorize`, called (with options) or not?"""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(node, ast.Name) and node.id == "vectorize") or (
        isinstance(node, ast.Attribute) and node.attr == "vectorize"
    )


def annotation(node: ast.expr | None) -> str | None:
    """The annotation's name, written `float` or `"float"`; None for any other form."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "float"
        return node.value.strip()
    return None
