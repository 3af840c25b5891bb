"""Checks of a parameter's kind that are decided when the code is generated (issue 30 item 2).

A lane of a batched argument reaches the scalar function as a Python `bool`, `int` or `float`
(the oracle is the function run on `.tolist()` values), the same kind for every lane. So
`isinstance(n, int)`, `type(n) is float` and `n is None` have one answer per specialization, known
from the parameter's type alone, as long as the name still holds the parameter: the subject must
be a parameter no assignment of which may have run at the check (frontend/kind_points.py: before
the first assignment, or in a branch or loop that does not assign it). This module recognizes those checks (the fence lets
them through, passes/static_checks.py folds them to `True`/`False`); any other `isinstance`,
`type(...)` or `is` is refused with the reason.
"""

from __future__ import annotations

import builtins
import inspect
import types

import libcst as cst

from ..core.binding import bound_names
from .namespace import ABSENT, Namespace

KINDS = frozenset({"bool", "int", "float"})  # what a lane of a number argument can be
# isinstance(lane, T): the lane kinds for which it is True (bool is an int, and Integral).
_ISINSTANCE = {"int": {"bool", "int"}, "bool": {"bool"}, "float": {"float"},
               "complex": set(), "str": set(), "bytes": set(), "tuple": set(), "list": set()}
# type(lane) is T: the exact class, so a bool lane is not `int` here.
_EXACT = {"int": {"int"}, "bool": {"bool"}, "float": {"float"}}


# What a callee's parameter holds, from its call's argument (passes/specialize.py decides a
# callee's checks per call, analysis/one_d.py's kind_of): a number (Python's or a NumPy scalar),
# a one-element 1-d array (np.atleast_1d of a number), another array. Only np.isscalar is
# decided from these.
OTHER_KINDS = frozenset({"number", "array1", "array"})
# "real": a float, Python's or NumPy's (np.float64 subclasses float): isinstance is decided for it
# as for a float lane (`isinstance(x, int)` is False of both), type() and `is` are not.
REAL = "real"
_SCALARS = KINDS | {"number", REAL}  # np.isscalar: True of numbers and NumPy scalars, False of arrays


class StaticCheck:
    """A recognized check: True exactly for the lane kinds in `holds`, of parameter `subject`.
    `scalar`: np.isscalar, which is also decided for the OTHER_KINDS."""

    __slots__ = ("against", "classes", "fresh", "holds", "identity", "scalar", "subject")

    def __init__(self, subject: str, holds: frozenset[str], scalar: bool = False) -> None:
        self.subject = subject
        self.holds = holds
        self.scalar = scalar
        # `x is True` / `x is not False`...: (the literal, negated). Only a bool lane can be True or
        # False itself (a lane of an int or float array is an int or a float): for one, the check
        # is the lane's own value (`x`, or `not x`), for any other kind `is` is False, `is not` True.
        self.identity: tuple[bool, bool] | None = None
        # `x is NAN` (a module global): a float lane is a float object made for the call (the
        # oracle's `.item()`), never one that existed before it, so `is` is False and `is not`
        # True (the value here) for a float lane; an int or bool lane may be a cached object.
        self.fresh: bool | None = None
        self.against = ""
        self.classes = False  # isinstance(): of classes, which a NumPy float satisfies as a float does


def assigned_names(func: cst.FunctionDef) -> set[str]:
    """Every name the body binds (core/binding.py's rule)."""
    return bound_names(func.body)


def recognize(node: cst.CSTNode, ns: Namespace, params: set[str], assigned: set[str]) -> StaticCheck | str | None:
    """None if `node` is no kind check; the refusal message if it is one that cannot be decided;
    else the `StaticCheck`. `params`: the function's parameters, `assigned`: the names it binds."""
    if isinstance(node, cst.Call) and is_numpy_function(node.func, ns, "isscalar"):
        if len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
            return "np.isscalar() takes one value"
        found = _subject(node.args[0].value, params, assigned, "np.isscalar()", _SCALARS)
        if isinstance(found, StaticCheck):
            found.scalar = True
            return found
        return None  # of a local: the analysis decides it from the value's type (rules/array_one_d.py)
    if isinstance(node, cst.Call) and _is_builtin(node.func, ns, "isinstance"):
        if len(node.args) != 2 or any(a.keyword or a.star for a in node.args):
            return "isinstance() takes a name and a type here"
        holds = _classes(node.args[1].value, ns)
        if holds is None:
            return ("isinstance() is decided from a lane's kind (bool, int or float); the second argument must be "
                    "a class (int, float, bool, complex, str, np.ndarray, numbers.Real...) or a tuple of them")
        found = _subject(node.args[0].value, params, assigned, "isinstance()", holds)
        if isinstance(found, StaticCheck):
            found.classes = True
        return found
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        comp = node.comparisons[0]
        negated = isinstance(comp.operator, cst.IsNot | cst.NotEqual)
        if isinstance(comp.operator, cst.Is | cst.IsNot) and _is_none(comp.comparator):
            # Every value vectorized code holds is a number (the fence refuses None anywhere else,
            # an argument cannot be None), so a parameter is never None, assigned or not.
            return _subject(node.left, params, set(), "'is None'", KINDS if negated else frozenset())
        if isinstance(comp.operator, cst.Is | cst.IsNot) and isinstance(comp.comparator, cst.Name) \
                and comp.comparator.value in ("True", "False"):
            found = _subject(node.left, params, assigned, f"'is {comp.comparator.value}'", {"bool"})
            if isinstance(found, StaticCheck):
                found.identity = (comp.comparator.value == "True", negated)
            return found
        if isinstance(comp.operator, cst.Is | cst.IsNot):
            found = _identity_of_lane(node.left, comp.comparator, ns, params, assigned)
            if found is not None:
                if isinstance(found, StaticCheck):
                    found.fresh = negated
                return found
        if isinstance(comp.operator, cst.Is | cst.IsNot | cst.Equal | cst.NotEqual) and _is_type_call(node.left, ns):
            exact = _EXACT.get(comp.comparator.value) if isinstance(comp.comparator, cst.Name) and \
                _is_builtin(comp.comparator, ns, comp.comparator.value) else None
            if exact is None:
                return "type(x) is compared with int, float or bool here"
            holds = KINDS - exact if negated else frozenset(exact)
            return _subject(node.left.args[0].value, params, assigned, "type()", holds)  # type: ignore[attr-defined]
    if _is_type_call(node, ns):
        return "type(x) is only supported compared with int, float or bool ('type(x) is int')"
    return None


def _identity_of_lane(left: cst.BaseExpression, right: cst.BaseExpression, ns: Namespace, params: set[str],
                      assigned: set[str]) -> StaticCheck | str | None:
    """`p is G` or `G is p`: p a parameter, G a name the module binds (not None, True, False:
    recognized above), else None."""
    for subject, other in ((left, right), (right, left)):
        if isinstance(subject, cst.Name) and subject.value in params and isinstance(other, cst.Name) \
                and other.value not in params and other.value not in ("None", "True", "False") \
                and _module_binds(other.value, ns):
            found = _subject(subject, params, assigned, f"'is {other.value}'", frozenset())
            if isinstance(found, StaticCheck):
                found.against = other.value  # a local of that name is no global: the deciders check
            return found
    return None


def defaulted(func: cst.FunctionDef) -> set[str]:
    """The parameters that have a default: one the call omits holds the default's own object
    (`x=NAN`: `x is NAN` is True), so `x is G` is not decided for them."""
    p = func.params
    return {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params) if x.default is not None}


def _module_binds(name: str, ns: Namespace) -> bool:
    return name in ns.links or name in ns.cells or ns.globals is not None and name in ns.globals


def _subject(arg: cst.BaseExpression, params: set[str], assigned: set[str], what: str,
             holds: frozenset[str] | set[str]) -> StaticCheck | str:
    if not isinstance(arg, cst.Name) or arg.value not in params:
        return f"{what} is decided from a parameter's kind; its subject must be a parameter"
    if arg.value in assigned:
        return (f"{what} is decided from a parameter's kind, but {arg.value!r} may be assigned before this "
                "point, so its kind here is not known")
    return StaticCheck(arg.value, frozenset(holds))


def _classes(node: cst.BaseExpression, ns: Namespace) -> frozenset[str] | None:
    """The lane kinds `isinstance(lane, node)` accepts, or None for a class spec not understood."""
    if isinstance(node, cst.Tuple):
        parts = [_classes(e.value, ns) if not isinstance(e, cst.StarredElement) else None for e in node.elements]
        return None if any(p is None for p in parts) else frozenset().union(*parts)  # type: ignore[arg-type]
    if _union(node):  # `int | float`: isinstance takes a union as it takes a tuple
        left, right = _classes(node.left, ns), _classes(node.right, ns)  # type: ignore[attr-defined]
        return None if left is None or right is None else left | right
    if isinstance(node, cst.Name) and node.value in _ISINSTANCE and _is_builtin(node, ns, node.value):
        return frozenset(_ISINSTANCE[node.value])
    cls = _class_object(node, ns)
    if isinstance(cls, type):  # np.ndarray, numbers.Real, decimal.Decimal, a class of the module...
        try:
            return frozenset(k for k in KINDS if issubclass(getattr(builtins, k), cls))
        except TypeError:  # a TypedDict or a non-runtime Protocol: isinstance itself raises (not decided here)
            return None
    return None


def class_spec(node: cst.BaseExpression, ns: Namespace) -> type | tuple | None:
    """The class (or tuple of classes) a spec such as `np.ndarray`, `(int, numbers.Real)` or a
    class of the module names, read from the live module as `_class_object` reads it; None when
    it is not one. isinstance() of a value the code is specialized on uses it (static_values.py)."""
    if isinstance(node, cst.Tuple):
        parts = [None if isinstance(e, cst.StarredElement) else class_spec(e.value, ns) for e in node.elements]
        return None if any(p is None for p in parts) else tuple(parts)
    if _union(node):
        left, right = class_spec(node.left, ns), class_spec(node.right, ns)  # type: ignore[attr-defined]
        return None if left is None or right is None else (left, right)
    if isinstance(node, cst.Name) and _is_builtin(node, ns, node.value) and isinstance(getattr(builtins, node.value), type):
        return getattr(builtins, node.value)  # type: ignore[no-any-return]
    cls = _class_object(node, ns)
    return cls if isinstance(cls, type) else None


def _class_object(node: cst.BaseExpression, ns: Namespace) -> object:
    """The class a global name or a dotted path through modules and classes names (`ndarray`,
    `np.ndarray`, `numbers.Real`), read from the live module; ABSENT when it is not one. The content
    hash covers the dotted paths a function reads (engine/fingerprint.py `reached`)."""
    if isinstance(node, cst.Name):
        if ns.globals is None or node.value not in ns.globals:
            return ABSENT
        ns.resolve(node.value)  # recorded in `seen`: the cache key follows the binding
        return _unaliased(ns.seen.get(node.value, ABSENT))
    if isinstance(node, cst.Attribute):
        container = _class_object(node.value, ns)
        if not isinstance(container, types.ModuleType | type):
            return ABSENT
        return _unaliased(inspect.getattr_static(container, node.attr.value, ABSENT))  # no property or descriptor runs
    return ABSENT


def _unaliased(obj: object) -> object:
    """`typing.Sequence` (an unsubscripted alias) is collections.abc.Sequence to isinstance()."""
    origin = getattr(obj, "__origin__", None)
    if type(obj).__name__ == "_SpecialGenericAlias" and type(obj).__module__ == "typing" and isinstance(origin, type):
        return origin
    return obj


def decide(check: StaticCheck, kind: str | None) -> bool | None:
    """The check's value for a parameter whose lanes (or argument) are of `kind`; None when it is
    not decided from the kind (an isinstance of an array: its class is not a lane kind's)."""
    if kind == REAL and not check.scalar:
        return "float" in check.holds if check.classes else None
    if kind is None or (kind in OTHER_KINDS and not check.scalar):
        return None
    return kind in check.holds


def is_numpy_function(node: cst.BaseExpression, ns: Namespace, name: str) -> bool:
    """`node` is `np.<name>` (NumPy imported under any name, not shadowed by a local)."""
    return isinstance(node, cst.Attribute) and node.attr.value == name and isinstance(node.value, cst.Name) \
        and ns.resolve(node.value.value).kind == "numpy"


def _union(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _is_type_call(node: cst.CSTNode, ns: Namespace) -> bool:
    return isinstance(node, cst.Call) and _is_builtin(node.func, ns, "type") and len(node.args) == 1 \
        and not node.args[0].keyword and not node.args[0].star


def _is_builtin(node: cst.BaseExpression, ns: Namespace, name: str) -> bool:
    """`node` is the name `name` and reads the builtin of that name (not a module global)."""
    if not isinstance(node, cst.Name) or node.value != name or not hasattr(builtins, name):
        return False
    glob = ns.resolve(name)
    bound = ns.seen.get(name, ABSENT)
    if bound is not ABSENT and bound is not getattr(builtins, name):
        return False
    return glob.kind in ("builtin", "unknown") and glob.name == name
