"""What a live module or class gives by name, read without running code: the linker's view of
other modules' attributes (frontend/linking.py), shared with the cache key and the Watch
(engine/fingerprint.py), which must cover everything linking may read: names, and attributes
at most two deep (`units.SCALE`, `pkg.units.to_radians`; linking reads no deeper)."""

from __future__ import annotations

import math
import numbers
import types

from ..core.probe import scalar_of
from ..core.tables import is_table
from .namespace import ABSENT, SIDE_EFFECT_MODULES, Namespace
from .operator_functions import operator_function
from .static_objects import embeddable, math_function

CELL = "<cell>"  # the name of a read of a closure's cell: (cell, CELL, object), as linking records it


def cell_value(cell: object) -> object:
    """What a closure's cell holds now, ABSENT when it is empty."""
    try:
        return cell.cell_contents  # type: ignore[attr-defined]
    except ValueError:
        return ABSENT


def attribute(obj: object, name: str) -> object:
    """`obj.name` for a module or class, read without running code (no module `__getattr__`, no
    descriptors but staticmethod): ABSENT where that is not a plain value (a classmethod, say)."""
    import inspect

    if isinstance(obj, types.ModuleType):
        return vars(obj).get(name, ABSENT)
    try:
        value = inspect.getattr_static(obj, name)
    except AttributeError:
        return ABSENT
    if isinstance(value, staticmethod):
        return value.__func__
    if isinstance(value, (classmethod, property)) or hasattr(type(value), "__get__") \
            and not isinstance(value, types.FunctionType):
        return ABSENT
    return value
def namespace_like(obj: object) -> bool:
    """Modules and classes, whose attributes a function may read (not math, numpy or side-effect
    modules: the rules know math.* and np.*, and random/time/os/sys are refused by name)."""
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        return obj is not math and name.split(".")[0] not in ("numpy", *SIDE_EFFECT_MODULES)
    return isinstance(obj, type) and obj.__module__ != "builtins"
def plain_constant(value: object) -> bool:
    """A number of an exact built-in or NumPy type (not an IntEnum or a float subclass, whose
    arithmetic may differ), or a flat tuple of them."""
    if type(value) is tuple:
        return all(plain_constant(v) and type(v) is not tuple and not is_table(v) for v in value)  # type: ignore[union-attr]
    if type(value) in (bool, int, float) or is_table(value):  # a 1-D table (core/tables.py)
        return True
    return isinstance(value, numbers.Real) and type(value).__module__ == "numpy"
def decided_on(value: object) -> bool:
    """A value the specialization reads from a module's or class's attribute and decides on: a str,
    None, an enum member, a static object, a tuple of those, a function of the operator or math
    module."""
    return embeddable(value) is not None or operator_function(value) is not None or math_function(value) is not None


def reached(namespace: Namespace, name: str, attrs: list[str]) -> list[tuple[str, object, object, str]]:
    """What the linker could make of `name` in a live module: the object it is bound to (another
    module's function) and, for a module or class, its attributes among `attrs` (the names a code
    object reads: a superset of the attributes it reads), as (path, object, container, attribute)
    for functions, plain constants and the values a specialization decides on (`m.MODE == "fast"`,
    `operator.mul`: frontend/static_calls.py reads them when the code is generated). The cache key covers them and Watch checks that each
    container still gives that object (engine/fingerprint.py)."""
    if namespace.globals is None:
        return []
    obj = namespace.globals.get(name, ABSENT)
    if obj is ABSENT:
        return []
    candidates: list[tuple[str, object, object, str]] = [(name, obj, namespace.globals, name)]
    if namespace_like(obj):
        candidates += [(f"{name}.{a}", attribute(obj, a), obj, a) for a in attrs]
        for path, sub, _, _ in list(candidates[1:]):  # pkg.mod.f: a module reached through a package
            if namespace_like(sub) and sub is not obj:
                candidates += [(f"{path}.{a}", attribute(sub, a), sub, a) for a in attrs]
    found = []
    for path, value, container, attr in candidates:
        value = scalar_of(value, value) if not isinstance(value, types.ModuleType) else value
        if isinstance(value, types.FunctionType) or plain_constant(value) or namespace_like(value) \
                or decided_on(value):
            found.append((path, value, container, attr))
    return found
