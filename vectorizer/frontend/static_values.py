"""The values a specialization decides (passes/specialize.py): what an expression is when it
reads only values that are the same for every lane and known when the code is generated (None,
strings, enum members, bools, ints, tuples, a zero-argument helper's value this call, module
constants), computed as the scalar function computes them; UNKNOWN for anything else (never
arithmetic: that is the analysis's, with its int64 checks)."""

from __future__ import annotations

import enum
import math
import types

import libcst as cst

from . import static_calls, static_methods
from .kind_points import reassigned_at
from .kind_values import kind_decided_call
from .lane_stand_ins import NUMBER
from .namespace import Namespace
from .parse import ParsedFunction
from .pure_builtins import SNAPSHOT, items
from .refusals import local_names
from .static_calls import UNDECIDED as UNKNOWN
from .static_checks import (
    StaticCheck,
    assigned_names,
    class_spec,
    decide,
    defaulted,
    recognize,
)
from .static_objects import is_static_object, passed_function

_COMPARE = {cst.Equal: lambda a, b: a == b, cst.NotEqual: lambda a, b: a != b, cst.LessThan: lambda a, b: a < b,
            cst.LessThanEqual: lambda a, b: a <= b, cst.GreaterThan: lambda a, b: a > b,
            cst.GreaterThanEqual: lambda a, b: a >= b}
_TYPES = {"int": int, "float": float, "bool": bool, "str": str, "bytes": bytes, "tuple": tuple, "complex": complex}


def opaque(v: object) -> bool:
    return v is None or isinstance(v, str | bytes | enum.Enum | type)


def held(v: object) -> bool:
    """A value a local may hold through the specialization: opaque, a static object, or a function
    its calls are decided to (`func = self.func`, then `func(a, b)`: passes/specialize_calls.py)."""
    return opaque(v) or is_static_object(v) or passed_function(v)


class Values:
    """Evaluates expressions of one function given `env` (name -> known value)."""

    def __init__(self, parsed: ParsedFunction, ns: Namespace, helpers: dict[str, object],
                 home: dict | None = None) -> None:
        self.parsed, self.ns, self.helpers = parsed, ns, helpers
        self.locals = local_names(parsed.func)  # never module globals, whatever the module binds
        self.home = home  # a callee's own module globals (names the vectorized function's module lacks)
        self.memo: dict[tuple, tuple] = {}  # calls evaluated now (frontend/static_calls.py)
        self.why: dict[cst.CSTNode, str] = {}  # why an attribute or a call is not decided: for the refusal
        self.raised: dict[cst.CSTNode, BaseException] = {}  # calls whose evaluation raised this
        # parameter -> the kind of its lanes ("int", "float", "bool"): kind checks of a parameter
        # that still holds the argument are decided from it (kind_check), their dead branches dropped
        self.kinds: dict[str, str] = {}
        self._points: tuple | None = None

    def value(self, node: cst.BaseExpression, env: dict[str, object]) -> object:
        """The value of `node` when it is decided here, else UNKNOWN (never arithmetic: that is
        the analysis's, with its int64 checks)."""
        try:
            return self.evaluate(node, env)
        except Exception:  # noqa: BLE001 - a comparison the values do not support stays to the lanes
            return UNKNOWN

    def evaluate(self, node: cst.BaseExpression, env: dict[str, object]) -> object:
        """As `value`, but what evaluating a part raises (a comparison its values do not support)
        propagates: for the parts of an expression (frontend/static_calls.py's attributes and
        arguments too), whose whole is then UNKNOWN."""
        if isinstance(node, cst.Name):
            if node.value in env:
                return env[node.value]
            if node.value in ("None", "True", "False"):
                return {"None": None, "True": True, "False": False}[node.value]
            return UNKNOWN if node.value in self.locals else self.glob(node.value)
        if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
            return node.evaluated_value
        if isinstance(node, cst.Integer | cst.Float):
            return node.evaluated_value
        if isinstance(node, cst.UnaryOperation):
            inner = self.evaluate(node.expression, env)
            if inner is UNKNOWN:
                return UNKNOWN
            if isinstance(node.operator, cst.Not):
                return not inner
            if isinstance(node.operator, cst.Minus) and type(inner) in (int, float):
                return -inner  # type: ignore[operator]
            return UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            left = self.evaluate(node.left, env)
            if left is UNKNOWN:
                return UNKNOWN
            if bool(left) == isinstance(node.operator, cst.Or):
                return left
            return self.evaluate(node.right, env)
        if isinstance(node, cst.IfExp):  # `f if kwargs else self.func`: the side taken (the other is not read)
            test = self.evaluate(node.test, env)
            return UNKNOWN if test is UNKNOWN else self.evaluate(node.body if test else node.orelse, env)
        if isinstance(node, cst.Tuple):
            items = [self.evaluate(e.value, env) for e in node.elements]
            return UNKNOWN if any(i is UNKNOWN for i in items) or any(
                isinstance(e, cst.StarredElement) for e in node.elements) else tuple(items)
        if isinstance(node, cst.Call | cst.Comparison):
            decided = self.kind_check(node, env)
            if decided is not UNKNOWN:
                return decided
        if isinstance(node, cst.Attribute | cst.Call) and self.one_element(node, env):
            return 1
        if isinstance(node, cst.Comparison):
            return self.compare(node, env)
        if isinstance(node, cst.Subscript):
            held_tuple = self._held_tuple_item(node, env)
            return self.item(node, env) if held_tuple is UNKNOWN else held_tuple
        if isinstance(node, cst.Call):
            return self.call(node, env)
        if isinstance(node, cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value not in env and self.ns.globals is not None:
                self.ns.resolve(node.value.value)  # watched: the kernel holds while the name does
                cls = self.ns.globals.get(node.value.value)
                if isinstance(cls, enum.EnumMeta):
                    member = cls.__members__.get(node.attr.value, UNKNOWN)
                    return member
            base = self.evaluate(node.value, env)
            if isinstance(base, enum.Enum) and node.attr.value in ("name", "value"):
                return getattr(base, node.attr.value)
            return static_calls.attribute_value(self, node, env)  # objects, classes, modules (issue 30)
        return UNKNOWN

    def compare(self, node: cst.Comparison, env: dict[str, object]) -> object:
        left = self.evaluate(node.left, env)
        if left is UNKNOWN and len(node.comparisons) == 1:
            return self._never_equal(node.left, node.comparisons[0], env)
        if left is UNKNOWN:
            return UNKNOWN
        for comp in node.comparisons:
            right = self.evaluate(comp.comparator, env)
            if right is UNKNOWN:
                return UNKNOWN
            op = comp.operator
            if isinstance(op, cst.Is | cst.IsNot):
                if not (_identity_ok(left) or _identity_ok(right)):
                    return UNKNOWN  # `is` on strings or numbers: an accident of interning
                result = (left is right) == isinstance(op, cst.Is)
            elif isinstance(op, cst.In | cst.NotIn):
                if not isinstance(right, tuple | str):
                    return UNKNOWN
                result = (left in right) == isinstance(op, cst.In)
            else:
                    result = _COMPARE[type(op)](left, right)  # known values: compared as the scalar function does
            if not result:
                return False
            left = right
        return True

    def assigned_before(self, node: cst.CSTNode) -> frozenset[str]:
        """The names an assignment to which may have run when `node` runs (kind_points.py)."""
        self._load_points()
        _, assigned, points = self._points  # type: ignore[misc]
        return points.get(node, assigned)

    def _load_points(self) -> None:
        if self._points is None:
            p = self.parsed.func.params
            names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
            self._points = (names, assigned_names(self.parsed.func), reassigned_at(self.parsed.func))

    def kind_check(self, node: cst.Call | cst.Comparison, env: dict[str, object]) -> object:
        """`isinstance(n, int)`, `type(n) is float`, `n is None` of a parameter `n` no assignment
        of which may have run here (frontend/static_checks.py, kind_points.py): decided from the
        kind of its lanes, so the branch it rules out is gone before the strict fence. `n is None`
        needs no kind: in a callee too (an argument that is None specializes a copy on it)."""
        self._load_points()
        names, assigned, points = self._points  # type: ignore[misc]
        found = recognize(node, self.ns, names, points.get(node, assigned))
        if not isinstance(found, StaticCheck) or found.subject in env:
            return UNKNOWN
        if isinstance(node, cst.Comparison) and isinstance(node.comparisons[0].comparator, cst.Name) \
                and node.comparisons[0].comparator.value == "None":
            return bool(found.holds)  # `p is None`: no value vectorized code holds is None (a callee's too)
        kind = self.kinds.get(found.subject)
        if kind == NUMBER:  # before the kinds are known: decided where bool, int and float agree
            answers = {decide(found, k) for k in ("bool", "int", "float")} if found.fresh is None \
                and found.identity is None else {None}
            return answers.pop() if len(answers) == 1 and None not in answers else UNKNOWN
        if found.fresh is not None:  # `x is NAN`: a float lane is never an object made before the call
            return found.fresh if kind == "float" and found.against not in self.locals \
                and found.subject not in defaulted(self.parsed.func) else UNKNOWN
        if found.identity is not None:  # (`flag is True` of a bool lane: the lane's value, passes/static_checks.py)
            return UNKNOWN if kind is None or kind == "bool" else found.identity[1]
        decided = decide(found, kind)
        return UNKNOWN if decided is None else decided

    def one_element(self, node: cst.Attribute | cst.Call, env: dict[str, object]) -> bool:
        """`p.size`, `p.ndim` or `len(p)` of a parameter that holds a one-element array (kind
        "array1": np.atleast_1d of a number, passed on) and that the function never assigns: 1."""
        if isinstance(node, cst.Attribute) and node.attr.value in ("size", "ndim"):
            subject = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" \
                and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
                and self.ns.resolve("len").kind == "builtin":
            subject = node.args[0].value
        else:
            return False
        return isinstance(subject, cst.Name) and subject.value not in env and self.kinds.get(subject.value) == "array1" \
            and subject.value not in assigned_names(self.parsed.func)

    def item(self, node: cst.Subscript, env: dict[str, object]) -> object:
        """`TABLE[key]` with a key decided here (`_WHEN["end"]`, `MODES[mode]`), of a module-level
        dict, tuple or list (exactly those types: no `__getitem__` of the user's runs), or of such
        a container that is an item of one (`RTD_TYPES[kind][0]`): its item, watched (an item
        assigned since, in any container read, makes new code), when it is a number, a str, None,
        or a tuple of them. A key it lacks stays UNKNOWN: the lanes raise, or the handler runs."""
        found = self._item(node, env)
        return found if found is not UNKNOWN and _plain(found) else UNKNOWN

    def _item(self, node: cst.Subscript, env: dict[str, object]) -> object:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return UNKNOWN
        table = self._table(node.value, env)
        key = self.evaluate(node.slice[0].slice.value, env) if table is not UNKNOWN else UNKNOWN
        if key is UNKNOWN or not _plain(key):
            return UNKNOWN
        try:
            return table[key]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return UNKNOWN

    def _table(self, node: cst.BaseExpression, env: dict[str, object]) -> object:
        """The module-level dict, tuple or list `node` names, or an item of one that is one."""
        if isinstance(node, cst.Name):
            if node.value in env or node.value in self.locals:
                return UNKNOWN
            table = (self.ns.globals or {}).get(node.value)
            if type(table) not in (dict, tuple, list):
                return UNKNOWN
            self.ns.resolve(node.value)  # recorded in `seen`: the kernel holds while the name does
        elif isinstance(node, cst.Subscript):
            table = self._item(node, env)
            if type(table) not in (dict, tuple, list):
                return UNKNOWN
        else:
            return UNKNOWN
        if isinstance(table, dict | list) or any(type(i) in (dict, list) for i in table):  # type: ignore[union-attr]
            reads = self.ns.linker.reads if self.ns.linker is not None else self.ns.watched
            reads.append((table, SNAPSHOT, items(table)))  # an item assigned since: a new kernel
        return table

    def call(self, node: cst.Call, env: dict[str, object]) -> object:
        if not isinstance(node.func, cst.Name) or node.func.value in env:
            return static_calls.call_value(self, node, env)  # Ellipsoid.from_name("wgs84") (issue 30)
        name = node.func.value
        if not node.args and name in self.helpers and self.ns.resolve(name).kind == "function":
            return self.helpers[name]
        args = [a for a in node.args if not a.keyword and not a.star]
        if len(args) != len(node.args):
            return static_calls.call_value(self, node, env)
        if name == "isinstance" and len(args) == 2 and self._builtin(name):
            subject = self.evaluate(args[0].value, env)
            if subject is UNKNOWN or not _is_static_subject(args[0].value, env):
                return UNKNOWN
            classes = self.evaluate(args[1].value, env)
            if classes is UNKNOWN:  # np.ndarray, numbers.Real: classes read from modules, never held
                classes = class_spec(args[1].value, self.ns)
            return UNKNOWN if classes is None or classes is UNKNOWN else isinstance(subject, classes)  # type: ignore[arg-type]
        if name == "type" and len(args) == 1 and self._builtin(name) and _is_static_subject(args[0].value, env):
            subject = self.evaluate(args[0].value, env)
            return UNKNOWN if subject is UNKNOWN else type(subject)
        if name == "len" and len(args) == 1 and self._builtin(name):
            subject = self.evaluate(args[0].value, env)
            return len(subject) if isinstance(subject, tuple | str) else UNKNOWN
        glob = self.ns.resolve(name)
        if glob.kind == "function" and isinstance(glob.value, types.FunctionType) and self.kinds:
            decided = kind_decided_call(self, node, env, glob.value)  # `shape(a)` of a number: ()
            if decided is not UNKNOWN:
                return decided
        if glob.kind == "function" and isinstance(glob.value, types.FunctionType):  # `env = global_env()`
            return static_methods.code_call(self, node, env, glob.value, UNKNOWN)
        return static_calls.call_value(self, node, env)  # a class or foreign function (issue 30)

    def _held_tuple_item(self, node: cst.Subscript, env: dict[str, object]) -> object:
        """`s[::-1]`, `s[0]` of a local holding a tuple decided here, with a decided index."""
        if not isinstance(node.value, cst.Name) or not isinstance(env.get(node.value.value), tuple) \
                or len(node.slice) != 1:
            return UNKNOWN
        part = node.slice[0].slice
        if isinstance(part, cst.Index):
            key = self.evaluate(part.value, env)
        else:
            bounds = [None if p is None else self.evaluate(p, env) for p in (part.lower, part.upper, part.step)]
            key = UNKNOWN if any(b is UNKNOWN or not (b is None or type(b) is int) for b in bounds) else slice(*bounds)
        if key is UNKNOWN or not (type(key) is int or isinstance(key, slice)):
            return UNKNOWN
        return env[node.value.value][key]  # type: ignore[index]  # an IndexError: UNKNOWN (value())

    def _never_equal(self, left: cst.BaseExpression, comp: cst.ComparisonTarget, env: dict[str, object]) -> object:
        """`direction == SunDirection.SETTING` where `direction` is a number (every value that is
        not decided here is one): a plain Enum member (no int/str mixin, identity equality)
        never equals it, so `==`/`is` are False and `!=`/`is not` True. Only a name is compared
        so: dropping any other operand could drop a call that raises."""
        if not isinstance(left, cst.Name) or left.value in env or left.value not in self.locals:
            return UNKNOWN
        right = self.evaluate(comp.comparator, env)
        if not isinstance(right, enum.Enum) or isinstance(right, int | float | complex | str | bytes) \
                or type(right).__eq__ is not object.__eq__:
            return UNKNOWN
        if isinstance(comp.operator, cst.Equal | cst.Is):
            return False
        return True if isinstance(comp.operator, cst.NotEqual | cst.IsNot) else UNKNOWN

    def _builtin(self, name: str) -> bool:
        glob = self.ns.resolve(name)
        return glob.kind in ("builtin", "unknown") and glob.name == name and (
            self.ns.globals is None or name not in self.ns.globals)

    def glob(self, name: str) -> object:
        glob = self.ns.resolve(name)  # recorded in `seen`: the kernel is valid while it holds
        if glob.kind == "constant":
            return glob.value
        if glob.kind == "value":  # a module-level instance, another module's or a cell's str, class...
            return glob.value
        if glob.kind == "function" and isinstance(glob.value, types.FunctionType):
            return glob.value  # a function of the code: only a call specialized on it reads it (static_calls.py)
        if glob.kind == "math_func":
            return getattr(math, glob.name.partition(".")[2], UNKNOWN)
        if name in _TYPES and self._builtin(name):
            return _TYPES[name]
        if self.ns.globals is not None and name in self.ns.globals:
            value = self.ns.globals[name]
            if opaque(value) and not isinstance(value, type):
                return value
        return UNKNOWN


def _identity_ok(v: object) -> bool:
    return v is None or isinstance(v, bool | enum.Enum | type)


def _plain(v: object) -> bool:
    """A number, str, None, bool, enum member, or a tuple of them: held as itself."""
    if isinstance(v, tuple):
        return all(_plain(i) for i in v)
    return v is None or type(v) in (int, float, bool, str, bytes) or isinstance(v, enum.Enum)


def _is_static_subject(node: cst.BaseExpression, env: dict[str, object]) -> bool:
    return isinstance(node, cst.Name) and node.value in env
