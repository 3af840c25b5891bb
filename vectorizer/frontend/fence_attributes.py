"""The fence's attribute checks (fence_exprs.py calls them for every `a.b` and `a.b(...)`): what
an attribute may be read or called on (math, NumPy, module-level names and classes, the methods of
local arrays and ints), and which ones a specialization may still decide (`maybe_static_attribute`).
`int_method` names the int methods the op table has, for the passes that lower them."""

from __future__ import annotations

import enum
import math
from typing import TYPE_CHECKING

import libcst as cst

from ..core.tree import walk
from ..errors import UnsupportedCallError
from ..rules.arrays import ARRAY_CALLS, METHOD_ONLY, METHODS, NUMPY_CONSTANTS
from . import hints
from .namespace import SIDE_EFFECT_MODULES, Namespace
from .reach import namespace_like

if TYPE_CHECKING:
    from .fence_exprs import ExpressionFence


def check_attribute(fence: ExpressionFence, node: cst.Attribute, called: bool = False) -> None:
    """Refuses, through the fence's `refuse`, an attribute read or method call it cannot vectorize."""
    base = node.value
    attr = node.attr.value
    if called and attr in INT_METHODS and not (isinstance(base, cst.Name) and base.value not in fence.locals):
        fence.expr(base)  # n.bit_length(), (a * b).bit_length(): the analysis checks it is an int
        return
    if fence.specializable and not called and isinstance(base, cst.Name) and base.value not in fence.locals \
            and isinstance((fence.ns.globals or {}).get(base.value), enum.EnumMeta):
        return  # an enum member (Mode.FAST): compared by the specialization, or refused after it
    if fence.specializable and maybe_static_attribute(fence, base, called):
        return  # ell.semimajor_axis, Ellipsoid.from_name(...): decided by the specialization, or refused after it
    if isinstance(base, cst.Name) and base.value in fence.locals:  # x.shape, x.sum()
        if (called and attr in METHODS) or (not called and attr in ("shape", "ndim", "size", "T")):
            return
        fence.refuse(node, f"'.{attr}' is not supported on a local value", "supported: .shape .ndim .size .T and "
                     + ", ".join(f".{m}()" for m in sorted(METHODS)), UnsupportedCallError)
        return
    if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and base.attr.value == "linalg" \
            and fence.ns.resolve(base.value.value).kind == "numpy":
        if not (called and f"np.linalg.{attr}" in ARRAY_CALLS):
            fence.refuse(node, f"np.linalg.{attr} is not supported", "supported: np.linalg.norm", UnsupportedCallError)
        return
    if isinstance(base, cst.Name) and base.value not in fence.locals and fence.ns.resolve(base.value).kind == "numpy":
        if (called and f"np.{attr}" in ARRAY_CALLS and f"np.{attr}" not in METHOD_ONLY) or (not called and attr in NUMPY_CONSTANTS):
            return
        fence.refuse(node, f"np.{attr} has no batching rule", "supported NumPy functions: "
                     + ", ".join(sorted(k[3:] for k in ARRAY_CALLS)), UnsupportedCallError)
        return
    if isinstance(base, cst.Name) and base.value not in fence.locals:
        glob = fence.ns.resolve(base.value)
        if glob.kind == "math":
            attr = node.attr.value
            value = getattr(math, attr, None)
            if value is None:
                fence.refuse(node, f"math has no attribute {attr!r}", "check the spelling")
            elif called != callable(value):
                what = "called" if called else "read"
                fence.refuse(node, f"math.{attr} cannot be {what} here", "call math functions, read math constants")
            return
        if fence.specializable and not called and fence.version_info(node):
            return  # a constant of the running interpreter: decided by the specialization, or refused after it
        if base.value in SIDE_EFFECT_MODULES or glob.name in SIDE_EFFECT_MODULES:
            fence.refuse(node, f"'{base.value}.{node.attr.value}': {SIDE_EFFECT_MODULES.get(base.value, SIDE_EFFECT_MODULES.get(glob.name))}; it cannot be vectorized",
                         "compute it outside and pass it in as an argument", UnsupportedCallError)
            return
    if isinstance(base, cst.Call) and _made_by_other_module(fence.ns, fence.locals, base.func):
        maker = cst.Module([]).code_for_node(base)
        fence.refuse(node, f"'.{attr}' of {maker}: an object made on each lane from values that differ per lane "
                     "is not vectorized (another module's class or function runs once, when the code is "
                     "generated, only when all its arguments are the same for every lane)",
                     hints.attribute(node, called), UnsupportedCallError)
        return
    if called and attr in METHODS and isinstance(base, cst.Call | cst.BinaryOperation | cst.Subscript | cst.Attribute
                                                 | cst.Comparison | cst.UnaryOperation):
        fence.expr(base)  # np.atleast_1d(x).astype(np.int64), (a * b).sum(): the analysis types the value
        return
    fence.refuse(node, "attribute access is only supported for math.<name>, np.<name> and the numbers, tuples "
                 "of numbers and functions of modules and classes (static methods)",
                 hints.attribute(node, called), UnsupportedCallError)


# Methods of ints that the op table has (rules/mathcalls.py: "int.<name>"), called without arguments.
INT_METHODS = frozenset({"bit_length"})


def int_method(node: cst.Call) -> str | None:
    """"int.bit_length" for `<expr>.bit_length()` (the receiver not a module name), else None."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in INT_METHODS and not node.args:
        return f"int.{func.attr.value}"
    return None


def maybe_static_attribute(fence: ExpressionFence, base: cst.BaseExpression, called: bool) -> bool:
    """An attribute the specialization may decide (issue 30, frontend/static_calls.py): read on a
    parameter or on a local assigned from a global class or module's attribute or call (a static
    object, when it is one), or on a global class or module."""
    if not isinstance(base, cst.Name):
        return False
    if base.value in fence.locals:
        if "static_locals" not in fence.__dict__:
            fence.__dict__["static_locals"] = _static_locals(fence)
        return base.value in fence.__dict__["static_locals"]  # called: a method of an object (static_methods.py)
    if fence.ns.resolve(base.value).kind == "value":
        return True  # a module-level instance (or another module's class, linked): its attributes and methods
    owner = (fence.ns.globals or {}).get(base.value)
    return owner is not None and namespace_like(owner)


def _static_locals(fence: ExpressionFence) -> set[str]:
    found = set(fence.params)
    for node in walk(fence.parsed.func.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            value = node.value.func if isinstance(node.value, cst.Call) else node.value
            while isinstance(value, cst.Attribute):
                value = value.value
            if isinstance(value, cst.Name) and value.value not in fence.locals \
                    and namespace_like((fence.ns.globals or {}).get(value.value)):
                found.add(node.targets[0].target.value)
    return found


def _made_by_other_module(ns: Namespace, locals_: set[str], func: cst.BaseExpression) -> bool:
    """`datetime.date` in `datetime.date(y, m, d).weekday()`: a class or function reached through a
    global module or class (not math or NumPy), or a global class."""
    if isinstance(func, cst.Attribute):
        func = func.value
        return isinstance(func, cst.Name) and func.value not in locals_ and namespace_like((ns.globals or {}).get(func.value))
    return isinstance(func, cst.Name) and func.value not in locals_ and isinstance((ns.globals or {}).get(func.value), type)
