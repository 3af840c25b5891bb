"""The copies of a function specialized on sequence arguments (part of frontend/sequence_args.py):
one per callee, parameters and the sequences' types and values (`Namespace.sequence_specs`:
name -> (the copy's source, parameter -> sequence, key, depth)). A copy is the callee's own
source under a new name of the namespace, so its positions and messages are the callee's;
frontend/sequence_args.py, run on it when it is prepared as a callee, finds its parameters'
sequences there by the source's identity.
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bindings
from .namespace import ABSENT, Global, Namespace, function_source
from .parse import parse_function
from .source import FunctionSource


def specialize(ns: Namespace, name: str, args: dict, depth: int, taken: set[str]) -> str:
    """The name of `name`'s copy specialized on `args` (parameter -> sequence), made once per
    namespace for the same types and values."""
    key = (name, tuple(sorted((p, type(v).__name__, tuple((type(x).__name__, repr(x)) for x in v))
                              for p, v in args.items())))  # repr: 0.0 and -0.0 differ
    for qualname, entry in ns.sequence_specs.items():
        if entry[2] == key:
            return qualname
    src = function_source(ns.resolve(name))
    base, k = f"{name}__{'_'.join(sorted(args))}", 0
    while True:
        k += 1
        new = f"{base}_{k}"
        found = ns.resolve(new)
        if new not in taken and ns.value_of(new) is ABSENT and found.kind == "unknown" and found.name == new:
            break
    copy = FunctionSource(src.qualname, src.filename, src.text, src.first_line, src.indent)  # its messages: the callee's
    ns.sequence_specs[new] = (copy, dict(args), key, depth + 1)
    ns.define(new, Global("function", new, copy))
    linker = ns.linker
    if linker is not None and name in linker.homes:  # type: ignore[attr-defined]
        linker.homes[new] = linker.homes[name]  # type: ignore[attr-defined] # another module's function: its names
    return new


def callee_params(ns: Namespace, name: str) -> tuple[list[str], cst.FunctionDef]:
    src = function_source(ns.resolve(name))
    func = parse_function(src).func
    p = func.params
    return [x.name.value for x in (*p.posonly_params, *p.params)], func


def reads_only(func: cst.FunctionDef, name: str) -> bool:
    """Every mention of `name` in `func` is a use sequence_args.py keeps (a quick look, before the
    callee is prepared: a tuple passed to a callee that does more is left to the other rules)."""
    def ok(node: cst.CSTNode, parent: cst.CSTNode | None) -> bool:
        if isinstance(node, cst.Name) and node.value == name:
            return isinstance(parent, cst.For | cst.CompFor | cst.Subscript | cst.ComparisonTarget | cst.Arg
                              | cst.BinaryOperation)
        return all(ok(child, node) for child in node.children)
    return ok(func.body, None) and name not in bindings(func.body, comprehensions=True)
