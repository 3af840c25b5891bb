"""Which names and tests are bools by their syntax alone (passes/if_to_select.py reads them: a
bool test needs no `bool()`, and a name only ever assigned bools can be a mask itself)."""

from __future__ import annotations

import libcst as cst

from ..core.tree import target_names, walk


def bool_syntax(test: cst.BaseExpression) -> bool:
    """A comparison, `not x` or `bool(x)`: a bool, whatever its operands hold."""
    if isinstance(test, cst.Comparison):
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return True
    return isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "bool"


def bool_assigned(func: cst.FunctionDef) -> dict[str, bool]:
    """For each assigned name: whether every value assigned to it is a bool by its syntax."""
    out: dict[str, bool] = {}
    for node in walk(func):
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    name, value = target.target.value, node.value
                    literal = isinstance(value, cst.Name) and value.value in ("True", "False")
                    out[name] = out.get(name, True) and (literal or bool_syntax(value))
                else:
                    for n in target_names(target.target):
                        out[n] = False
        elif kind is cst.AugAssign:
            for n in target_names(node.target):
                out[n] = False
    return out
