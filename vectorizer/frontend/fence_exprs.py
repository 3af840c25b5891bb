"""The fence's expression checks (fence.py runs them on every expression a statement holds):
names, operators, comparisons, calls and subscripts; attributes in fence_attributes.py."""

from __future__ import annotations

import builtins
import enum
import sys
from collections.abc import Callable

import libcst as cst

from ..core.tables import is_array, unsupported_array
from ..core.tree import walk
from ..errors import UnsupportedCallError
from . import hints
from .fence_attributes import check_attribute
from .kind_points import reassigned_at
from .namespace import ABSENT, SIDE_EFFECT_BUILTINS, SIDE_EFFECT_MODULES, Namespace
from .parse import ParsedFunction
from .refusals import (
    COMPARISONS,
    OP_WORDS,
    REFUSED,
    RESERVED_GLOBALS,
    RESERVED_PREFIXES,
)
from .static_checks import StaticCheck, assigned_names, recognize

Refuse = Callable[..., None]  # Fence.refuse(node, message, hint, cls=UnsupportedSyntaxError)


class ExpressionFence:
    """Refuses, through the statement fence's `refuse`, every unsupported part of an expression."""

    def __init__(self, parsed: ParsedFunction, namespace: Namespace, local_names: set[str], refuse: Refuse,
                 kind_checks: bool = True, specializable: bool = False) -> None:
        self.parsed = parsed
        self.ns = namespace
        self.locals = local_names
        self.refuse = refuse
        p = parsed.func.params
        self.params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
        self.assigned = assigned_names(parsed.func)
        self.points = reassigned_at(parsed.func)  # what may be assigned where (kind_points.py)
        self.kind_checks = kind_checks  # False for a callee: only the vectorized function folds them
        # True at decoration: strings, None and `is`/`in` may be decided by the values a call
        # specializes on (passes/specialize.py); the fence looks again, strictly, after that.
        self.specializable = specializable

    # -- expressions -----------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, tuple_ok: bool = False) -> None:
        if self.specializable and isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            return
        if type(node) in REFUSED:
            message, hint = REFUSED[type(node)]
            self.refuse(node, message, hint)
        elif isinstance(node, cst.Call | cst.Comparison) and self.static_check(node):
            pass
        elif isinstance(node, cst.Name):
            self.name(node)
        elif isinstance(node, cst.Integer | cst.Float):
            pass
        elif isinstance(node, cst.BinaryOperation):
            # Every binary operator passes, `@` too: it is np.matmul on arrays, and only the typed
            # analysis knows whether the operands are arrays (it refuses `@` on numbers).
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, cst.UnaryOperation):
            self.expr(node.expression)
        elif isinstance(node, cst.BooleanOperation):
            self.expr(node.left)
            self.expr(node.right)
        elif isinstance(node, cst.Comparison):
            # `(3, 8) <= sys.version_info < (3, 10)`: the interpreter's version, decided by the specialization
            version = self.specializable and any(self.version_info(n) for n in (node.left, *(c.comparator for c in node.comparisons)))
            self.expr(node.left, tuple_ok=version)
            for comp in node.comparisons:
                if not isinstance(comp.operator, COMPARISONS) and not self.specializable:
                    op = type(comp.operator).__name__
                    self.refuse(comp.operator, f"the '{OP_WORDS.get(op, op)}' comparison is not supported on numbers",
                                "compare numbers with ==, !=, <, <=, >, >=")
                self.expr(comp.comparator, tuple_ok=version or self.specializable and isinstance(comp.operator, cst.In | cst.NotIn))
        elif isinstance(node, cst.IfExp):
            self.expr(node.test)
            self.expr(node.body)
            self.expr(node.orelse)
        elif isinstance(node, cst.Call):
            self.call(node)
        elif isinstance(node, cst.Attribute):
            check_attribute(self, node)
        elif isinstance(node, cst.Subscript):
            self.subscript(node)
        elif isinstance(node, cst.Tuple):
            if not tuple_ok:
                self.refuse(node, "tuples are only supported in 'a, b = ...' and 'return a, b'",
                            "unpack the values into separate variables")
            for el in node.elements:
                if isinstance(el, cst.StarredElement):
                    self.refuse(el, "star-unpacking is not supported", "list the values explicitly")
                else:
                    self.expr(el.value)
        else:
            self.refuse(node, f"'{type(node).__name__}' expressions are not supported", "see 'Will it work for my code?' in the README")

    def static_check(self, node: cst.Call | cst.Comparison) -> bool:
        """True if `node` is a kind check of a parameter (static_checks.py: decided when the code
        is generated, so nothing in it is batched); a kind check that cannot be decided is refused."""
        found = recognize(node, self.ns, self.params, self.points.get(node, self.assigned))
        hint = hints.kind_check(node) if isinstance(found, str) else ""
        if isinstance(found, StaticCheck) and not self.kind_checks and found.fresh is not None:
            found, hint = (f"'is {found.against}' in {self.parsed.name!r} is decided only where {found.subject!r} "
                           "holds a float argument of the vectorized function itself (passed on by name, never "
                           "assigned): a float made for the call is never a module's object; here it may be another "
                           "value"), "compare numbers with ==, or test math.isnan(x) for NaN"
        elif found is not None and not isinstance(found, str) and not self.kind_checks:
            found = (f"a kind check in {self.parsed.name!r}, a function called by the one vectorized, is not "
                     "decided yet (only the vectorized function's own checks are)")
            hint = "make the check in the vectorized function itself, on its own parameter"
        if isinstance(found, str) and self.specializable and isinstance(node, cst.Comparison):
            return True  # `x is None` on a local: decided by the specialization, or refused after it
        if isinstance(found, str):
            self.refuse(node, found, hint, UnsupportedCallError)
        return found is not None

    def kind_guarded(self, test: cst.BaseExpression) -> bool:
        """`test` holds a kind check of a parameter that a specialization decides (static_checks.py)."""
        return any(isinstance(n, cst.Call | cst.Comparison) and isinstance(
            recognize(n, self.ns, self.params, self.points.get(n, self.assigned)), StaticCheck) for n in walk(test))

    def name(self, node: cst.Name) -> None:
        name = node.value
        if name in self.locals or name in ("True", "False") or (name == "None" and self.specializable):
            return
        if name == "None":
            self.refuse(node, "'None' is not a number", hints.none_name())
            return
        glob = self.ns.resolve(name)
        if glob.kind == "constant" and (name in RESERVED_GLOBALS or name.startswith(RESERVED_PREFIXES)):
            self.refuse(node, f"the module constant {name!r} has a name the generated module defines itself",
                        f"rename the constant {name!r}")
            return
        if glob.kind == "constant":
            return
        if self.specializable and glob.kind == "unknown" and isinstance(
                (self.ns.globals or {}).get(name, 0), str | bytes | enum.Enum | type(None)):
            return  # a module-level str, None or enum member: compared by the specialization, or refused after
        if self.specializable and glob.kind == "value":
            return  # a module-level instance, another module's or a cell's value: the specialization's
        if glob.kind in ("function", "builtin", "math_func"):
            self.refuse(node, f"the function {name!r} can only be called here", f"call it: {name}(...)")
        elif glob.kind == "math":
            self.refuse(node, "the 'math' module can only be used as math.<name>", "call math.<function>(...) or read math.pi etc.")
        elif is_array(array := (self.ns.globals or {}).get(name)):  # core/tables.py says which arrays are tables
            self.refuse(node, f"the module-level array {name!r} cannot be read here: {unsupported_array(array)}",
                        "module-level arrays are read as uniform tables when 1-D float64, int64 or bool "
                        "(np.asarray(a, dtype=np.float64))", UnsupportedCallError)
        else:
            self.refuse(node, f"the name {name!r} is not a local variable, a module-level number or tuple, "
                        "a math function or a function of this module",
                        "pass it in as a parameter, or define it at module level as a number", UnsupportedCallError)

    def subscript(self, node: cst.Subscript) -> None:
        base = node.value
        if isinstance(base, cst.Name) and base.value in self.locals or isinstance(base, cst.Attribute | cst.Subscript):
            self.expr(base)  # an array (the analysis checks): x[i], x[i, j], x[a:b], x.shape[0]
            for element in node.slice:
                part = element.slice
                if isinstance(part, cst.Slice):
                    for bound in (part.lower, part.upper, part.step):
                        if bound is not None:
                            self.expr(bound)
                else:
                    self.expr(part.value)
            return
        ok_base = isinstance(base, cst.Name) and base.value not in self.locals \
            and self.ns.resolve(base.value).kind == "constant" and isinstance(self.ns.resolve(base.value).value, tuple)
        if tuple_call_item(node) is not None:  # math.modf(x)[1], divmod(a, b)[0]: the analysis types it
            self.expr(base)
            return
        if self.specializable and not ok_base and isinstance(base, cst.Name) and base.value not in self.locals \
                and type((self.ns.globals or {}).get(base.value)) in (dict, tuple, list):
            return  # `SCALE[unit]` with an option for key: decided by the specialization, or refused after it
        if not ok_base:
            self.refuse(node, "indexing is only supported on module-level tuples of numbers",
                        "define the table at module level as a tuple: COEFFS = (1.0, 2.0)")
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            self.refuse(node, "only single-integer indexing is supported", "write TABLE[i]")
            return
        self.expr(node.slice[0].slice.value)

    def version_info(self, node: cst.BaseExpression) -> bool:
        """`node` is `sys.version_info` (the live module sys, not a local)."""
        return isinstance(node, cst.Attribute) and node.attr.value == "version_info" \
            and isinstance(node.value, cst.Name) and node.value.value not in self.locals \
            and (self.ns.globals or {}).get(node.value.value) is sys

    def function_name(self, node: cst.BaseExpression) -> bool:
        """`node` names a function of the code or a math function (not a local)."""
        return isinstance(node, cst.Name) and node.value not in self.locals \
            and self.ns.resolve(node.value).kind in ("function", "math_func")

    def decided_callee(self, func: cst.BaseExpression) -> bool:
        """A callable object, or one given as an argument, at decoration: its call is decided by
        the specialization (a tuple of values given to it is a static argument there), or refused
        after it by the strict fence."""
        if not self.specializable or not isinstance(func, cst.Name) or func.value in self.assigned:
            return False
        return func.value in self.params or self.ns.resolve(func.value).kind == "value"

    def call(self, node: cst.Call) -> None:
        func = node.func
        for arg in node.args:
            if arg.star:
                self.refuse(arg, "star-arguments in calls are not supported", "pass the arguments explicitly")
            elif arg.keyword is not None and arg.keyword.value == "dtype":
                if cst.Module([]).code_for_node(arg.value) not in ("float", "int", "bool", "np.float64", "np.int64", "np.bool_"):
                    self.refuse(arg.value, "dtype must be float, int or bool here", "write dtype=float")
            elif not (self.specializable and self.function_name(arg.value)):
                # (a function given as an argument: the copy called is specialized on it)
                self.expr(arg.value, tuple_ok=self.decided_callee(func))
        if isinstance(func, cst.Attribute):
            check_attribute(self, func, called=True)
            return
        if self.specializable and isinstance(func, cst.Name) and func.value in self.params:
            return  # a function or callable object given as an argument: decided by the specialization, or refused after
        if not isinstance(func, cst.Name) or func.value in self.locals:
            self.refuse(func, "only calls to math functions, supported builtins and functions of this module are supported",
                        "call the function by its module-level name", UnsupportedCallError)
            return
        name = func.value
        if name in SIDE_EFFECT_BUILTINS:
            self.refuse(node, f"{SIDE_EFFECT_BUILTINS[name]}; it cannot be vectorized", "remove it, or run the scalar function for debugging", UnsupportedCallError)
            return
        glob = self.ns.resolve(name)
        if glob.kind == "builtin":
            if name == "range":
                self.refuse(node, "range() is only supported as the iterable of a 'for' loop", "write 'for i in range(...)'")
            elif any(a.keyword for a in node.args) and name != "round":
                self.refuse(node, f"keyword arguments to {name}() are not supported", f"call {name}() with positional arguments")
        elif glob.kind in ("function", "math_func"):
            pass
        elif self.specializable and glob.kind == "unknown" and isinstance((self.ns.globals or {}).get(name), type):
            pass  # a class called with static arguments: evaluated by the specialization, or refused after it
        elif self.specializable and glob.kind == "value":
            pass  # a callable object or another module's class: decided by the specialization, or refused after it
        elif glob.kind == "unknown" and glob.name.split(".")[0] in SIDE_EFFECT_MODULES:
            self.refuse(node, f"{glob.name}: {SIDE_EFFECT_MODULES[glob.name.split('.')[0]]}; it cannot be vectorized",
                        "compute it outside and pass it in as an argument", UnsupportedCallError)
        else:
            builtin = glob.name == name and hasattr(builtins, name) and self.ns.seen.get(name, ABSENT) is ABSENT
            self.refuse(node, f"call to {name!r}, which is not a math function, a supported builtin or a function of this module",
                        hints.unsupported_call(name, glob.name, builtin), UnsupportedCallError)


def tuple_call_item(node: cst.Subscript) -> int | None:
    """k for `f(...)[k]` with an int literal k (a tuple-valued call such as math.modf(x)[1]), else None."""
    if not isinstance(node.value, cst.Call) or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    value = node.slice[0].slice.value
    negative = isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus)
    if negative:
        value = value.expression  # type: ignore[attr-defined]
    if not isinstance(value, cst.Integer):
        return None
    return -int(value.value) if negative else int(value.value)
