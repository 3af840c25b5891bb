"""The pieces of a standalone module that each selected function gets (standalone.py).

Its export under the original name (`export`: the call of the batched kernel through `_vz_call`;
`export_loop`: the exact per-element loop of a function the engine cannot batch), the typed
parameters its annotations give (`annotated_params`) and the undecorated scalar copies that
flag-and-patch and the loops re-run (`scalar_copies`, with the module constants they read). They
are apart from standalone.py, which assembles the module (header, runtime import or carried
helpers, checksum), because they are text for one function at a time, built from its libcst tree.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...core.types import ResultKind, Val, type_of_dtype
from ...frontend.namespace import Namespace

KIND = {"int": "i", "float": "f", "bool": "b"}  # a parameter's annotation -> its letter in `_vz_call`'s kinds


def annotated_params(func: cst.FunctionDef) -> dict[str, Val]:
    out = {}
    for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params):
        ann = p.annotation.annotation if p.annotation else None
        kind = KIND.get(ann.value, "f") if isinstance(ann, cst.Name) else "f"
        out[p.name.value] = Val(type_of_dtype(kind), True)
    return out


def _params_text(func: cst.FunctionDef) -> str:
    """The parameter list without annotations (they may name things the module does not import)."""
    stripped = func.params.visit(_StripAnnotations())
    return cst.Module(body=[]).code_for_node(stripped)


def _names(func: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)]


def _docstring(func: cst.FunctionDef) -> str:
    doc = func.get_docstring()
    return f'    """{doc} (batched)"""\n' if doc and '"""' not in doc else ""


def export(func: cst.FunctionDef, kinds: str, result: tuple[ResultKind, ...], returns_tuple: bool, backend: str) -> str:
    name, names = func.name.value, _names(func)
    types = tuple(k.text for k in result)  # as the carried runtime reads them (engine/patch.py Result)
    args = ", ".join(names) + ("," if len(names) == 1 else "")
    unchunked = ", chunked=False" if backend == "numba" else ""  # Numba's prange splits the batch itself
    return (f"def {name}({_params_text(func)}):\n{_docstring(func)}"
            f"    return _vz_call(_kernel_{name}, _scalar_{name}, {tuple(names)!r}, ({args}), {kinds!r}, {types!r}, "
            f"{returns_tuple}{unchunked})\n")


def export_loop(func: cst.FunctionDef) -> str:
    name, names = func.name.value, _names(func)
    args = ", ".join(names) + ("," if len(names) == 1 else "")
    return (f"def {name}({_params_text(func)}):\n{_docstring(func)}"
            f"    # not batched: an exact loop over the scalar function, one lane at a time\n"
            f"    arrays = [_vz_canonical(n, v) for n, v in zip({tuple(names)!r}, ({args}))]\n"
            f"    return _vz_per_element(_scalar_{name}, _vz_Batch({tuple(names)!r}, arrays))\n")


class _StripAnnotations(cst.CSTTransformer):
    def leave_Param(self, original, updated):
        return updated.with_changes(annotation=None)

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(returns=None, decorators=())


class _RenameCalls(cst.CSTTransformer):
    """Calls between copied functions go to the copies (`_scalar_f`), never to the exports."""

    def __init__(self, functions: set[str]) -> None:
        self.functions = functions

    def leave_Call(self, original, updated):
        if isinstance(updated.func, cst.Name) and updated.func.value in self.functions:
            return updated.with_changes(func=cst.Name(f"_scalar_{updated.func.value}"))
        return updated

    def leave_FunctionDef(self, original, updated):
        return updated.with_changes(name=cst.Name(f"_scalar_{updated.name.value}"))


def scalar_copies(selected: list[str], namespace: Namespace) -> tuple[list[str], dict[str, object], list[str]]:
    """Undecorated copies of the selected functions and every same-module function they call; the
    constants they read; the names of the functions copied."""
    todo, seen, order = list(selected), set(), []
    constants: dict[str, object] = {}
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        tree = ast.parse(namespace.resolve(name).value.text)  # type: ignore[union-attr]
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                glob = namespace.resolve(node.id)
                if glob.kind == "function":
                    todo.append(node.id)
                elif glob.kind == "constant":
                    constants[node.id] = glob.value
    copies = []
    for name in sorted(order):
        source = namespace.resolve(name).value
        func = cst.parse_module(source.text).body[0]  # type: ignore[union-attr]
        func = func.visit(_StripAnnotations()).visit(_RenameCalls(seen))
        copies.append(cst.Module(body=[func]).code.strip("\n"))
    return copies, constants, order
