"""The expression half of the generation-time interpreter (frontend/pure_eval.py adds statements
and function calls): names, operators, containers, comprehensions, f-strings, attribute reads and
calls (frontend/pure_reach.py), each on values of built-in types only unless the object's code is
itself interpreted. It keeps the evaluation's state: what it read from outside (`reads`), what it
made (`made`: the only objects it may write), and its step budget."""

from __future__ import annotations

import ast
import operator
import types
from typing import Any

from . import pure_builtins as pb
from . import pure_reach
from .lane_stand_ins import LaneStandIn
from .pure_builtins import Impure, Thrown


class Closure:
    """A lambda or nested `def` made by evaluated code, with the frame it reads."""

    __slots__ = ("node", "frame", "name")

    def __init__(self, node: ast.Lambda | ast.FunctionDef, frame: Frame) -> None:
        self.node, self.frame = node, frame
        self.name = getattr(node, "name", "<lambda>")


class Frame:
    __slots__ = ("locals", "local_names", "globals", "outer", "where")

    def __init__(self, local_names: frozenset[str], globals_: dict, outer: Frame | None, where: str) -> None:
        self.locals: dict[str, object] = {}
        self.local_names, self.globals, self.outer, self.where = local_names, globals_, outer, where


class ExpressionInterpreter:
    """Evaluates expressions in `Frame`s; the statements and calls of functions are a subclass's."""

    def __init__(self, covered: Any, budget: int) -> None:
        self.covered = covered
        self.reads: list[tuple[object, object, object]] = []
        self.made: dict[int, object] = {}  # id -> object made by this evaluation (kept alive: ids stay theirs)
        self.external: dict[int, object] = {}  # id -> a container or object read from outside the call
        self.steps, self.budget, self.depth = 0, budget, 0

    def call_closure(self, closure: Closure, args: list, kwargs: dict) -> object:  # pragma: no cover
        raise NotImplementedError  # the subclass's: it runs a body of statements

    def tick(self, node: ast.AST, frame: Frame) -> None:
        self.steps += 1
        if self.steps > self.budget:
            raise Impure(f"it did not finish within {self.budget:,} steps when the code was generated "
                         f"({pb.where(frame, node)})")

    def truth(self, value: object) -> bool:
        return pb.truth(value)

    def iterate(self, value: object) -> Any:
        if isinstance(value, dict | list | set) and id(value) in self.external:
            self.read(value, SNAPSHOT, pb.items(value))  # its items as they are now: the Watch compares them
        if not pb.plain(value):
            raise Impure(f"it iterates over a {type(value).__qualname__}, which runs its __iter__")
        return iter(value)  # type: ignore[call-overload]

    def made_here(self, value: object) -> object:
        if isinstance(value, list | dict | set):
            self.made[id(value)] = value
        return value

    def read(self, container: object, key: object, value: object, root: bool = False) -> None:
        """Record a read of state outside the call (`root`: a module global or class attribute,
        which the cache key must cover)."""
        if root and self.covered is not None and not self.covered(container, key):
            raise Impure(f"it reads {pb.describe(container)}.{key}, which the disk cache's key does not cover")
        self.reads.append((container, key, value))
        if not isinstance(value, pb.SCALARS) and not isinstance(value, types.FunctionType | type | types.ModuleType):
            self.external[id(value)] = value

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, node: ast.expr, frame: Frame) -> object:  # noqa: C901 - one case per node type
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.load(node.id, frame)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, frame), self.expr(node.right, frame), node)
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand, frame)
            if isinstance(node.op, ast.Not):
                return not self.truth(operand)
            return self.apply(_UNARY[type(node.op)], (operand,), node)
        if isinstance(node, ast.BoolOp):
            value: object = None
            for operand in node.values:
                value = self.expr(operand, frame)
                if self.truth(value) == isinstance(node.op, ast.Or):
                    return value
            return value
        if isinstance(node, ast.Compare):
            left = self.expr(node.left, frame)
            for op, right_node in zip(node.ops, node.comparators):
                right = self.expr(right_node, frame)
                if not self.truth(self.compare(op, left, right, node)):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self.expr(node.body if self.truth(self.expr(node.test, frame)) else node.orelse, frame)
        if isinstance(node, ast.Call):
            return self._call_node(node, frame)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value, frame), node.attr, node, frame)
        if isinstance(node, ast.Subscript):
            return self.item(self.expr(node.value, frame), self.expr(node.slice, frame), node)
        if isinstance(node, ast.Slice):
            parts = [None if p is None else self.expr(p, frame) for p in (node.lower, node.upper, node.step)]
            return slice(*parts)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = self._elements(node.elts, frame)
            kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
            return self.made_here(self.apply(kind, (items,), node))
        if isinstance(node, ast.Dict):
            built: dict = {}
            for k, v in zip(node.keys, node.values):
                value = self.expr(v, frame)
                if k is None:
                    self.apply(built.update, (value,), node)
                else:
                    self.apply(built.__setitem__, (self.expr(k, frame), value), node)
            return self.made_here(built)
        if isinstance(node, ast.JoinedStr):
            return "".join(self._formatted(v, frame) for v in node.values)
        if isinstance(node, ast.Lambda):
            return Closure(node, frame)
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            return self._comprehension(node, frame)
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, frame)
            target = frame
            while target.outer is not None and node.target.id not in target.local_names:
                target = target.outer
            target.locals[node.target.id] = value
            return value
        raise Impure(f"'{type(node).__name__}' expression ({pb.where(frame, node)})")

    def load(self, name: str, frame: Frame) -> object:
        f: Frame | None = frame
        while f is not None:
            if name in f.local_names:
                if name in f.locals:
                    return f.locals[name]
                raise Thrown(UnboundLocalError(f"cannot access local variable {name!r} where it is not associated "
                                               "with a value"))
            f = f.outer
        if name in frame.globals:
            value = frame.globals[name]
            self.read(frame.globals, name, value, root=True)
            return value
        return pb.builtin(name)

    def store(self, target: ast.expr, value: object, frame: Frame) -> None:
        if isinstance(target, ast.Name):
            frame.locals[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            items = list(self.iterate(value))
            star = next((i for i, t in enumerate(target.elts) if isinstance(t, ast.Starred)), None)
            if star is None and len(items) != len(target.elts) or star is not None and len(items) < len(target.elts) - 1:
                raise Thrown(ValueError(f"cannot unpack {len(items)} values into {len(target.elts)} targets"))
            if star is not None:
                tail = len(target.elts) - star - 1
                items = [*items[:star], items[star:len(items) - tail], *items[len(items) - tail:]]
                self.made_here(items[star])
            for t, item in zip(target.elts, items):
                self.store(t.value if isinstance(t, ast.Starred) else t, item, frame)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, frame)
            if id(container) not in self.made:
                raise Impure(f"it writes into a {type(container).__qualname__} it did not make ({pb.where(frame, target)})")
            self.apply(container.__setitem__, (self.expr(target.slice, frame), value), target)  # type: ignore[attr-defined]
        elif isinstance(target, ast.Attribute):
            owner = self.expr(target.value, frame)
            t = type(owner)
            if id(owner) not in self.made or t.__setattr__ is not object.__setattr__ or \
                    hasattr(inspect_static(t, target.attr), "__set__"):
                raise Impure(f"it sets an attribute of a {t.__qualname__} it did not make, or through its "
                             f"__setattr__ or a descriptor ({pb.where(frame, target)})")
            object.__setattr__(owner, target.attr, value)
        else:
            raise Impure(f"assignment to a {type(target).__name__} ({pb.where(frame, target)})")

    def delete(self, target: ast.expr, frame: Frame) -> None:
        if isinstance(target, ast.Name) and target.id in frame.locals:
            del frame.locals[target.id]
        elif isinstance(target, ast.Subscript) and id(container := self.expr(target.value, frame)) in self.made:
            self.apply(container.__delitem__, (self.expr(target.slice, frame),), target)  # type: ignore[attr-defined]
        else:
            raise Impure(f"'del' of something the call did not make ({pb.where(frame, target)})")

    def binop(self, op: ast.operator, left: object, right: object, node: ast.AST) -> object:
        if not (pb.plain(left) and pb.plain(right)):
            raise Impure(f"'{type(op).__name__}' of a {type(left).__qualname__} and a {type(right).__qualname__} "
                         "runs their methods")
        if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int) and abs(left) > 1 \
                and right > 100_000 or isinstance(op, ast.LShift) and isinstance(right, int) and right > 100_000:
            raise Impure("an integer power or shift too large to evaluate when the code is generated")
        if isinstance(op, ast.Mult) and isinstance(left, str | bytes | tuple | list) and isinstance(right, int) \
                and len(left) * right > 1_000_000:
            raise Impure("a sequence repeated more than a million items when the code is generated")
        return self.made_here(self.apply(_BINARY[type(op)], (left, right), node))

    def compare(self, op: ast.cmpop, left: object, right: object, node: ast.AST) -> object:
        if isinstance(op, ast.Is | ast.IsNot):
            for lane, other in ((left, right), (right, left)):
                if isinstance(lane, LaneStandIn) and (isinstance(other, LaneStandIn | bool | int | float)):
                    lane.read()  # a lane may be the very object another lane or a small int is
            return (left is right) == isinstance(op, ast.Is)
        if isinstance(op, ast.In | ast.NotIn):
            if isinstance(right, dict | list | set) and id(right) in self.external:
                self.read(right, SNAPSHOT, pb.items(right))
            ok = pb.plain(right) and (pb.plain(left) or pb.identity_equality(left))
        else:
            ok = pb.plain(left) and pb.plain(right) or isinstance(op, ast.Eq | ast.NotEq) and (
                pb.identity_equality(left) or pb.identity_equality(right)) and not (pb.plain(left) and pb.plain(right))
        if not ok:
            raise Impure(f"comparing a {type(left).__qualname__} with a {type(right).__qualname__} runs their methods")
        return self.apply(_COMPARE[type(op)], (left, right), node)

    def apply(self, fn: Any, args: tuple, node: ast.AST) -> object:
        """A built-in operation; what it raises is the evaluated code's exception."""
        try:
            return fn(*args)
        except (Impure, Thrown):
            raise
        except Exception as exc:  # noqa: BLE001 - the operation's own exception, as the code would raise it
            raise Thrown(exc) from None

    def item(self, container: object, key: object, node: ast.AST) -> object:
        if not (pb.plain(container) and pb.plain(key)):
            raise Impure(f"indexing a {type(container).__qualname__} runs its __getitem__")
        value = self.apply(_getitem, (container, key), node)
        if isinstance(container, dict | list) and id(container) in self.external:
            if isinstance(key, slice):
                self.read(container, SNAPSHOT, pb.items(container))
            else:
                self.read(container, key, value)
        elif id(container) in self.external and not isinstance(value, pb.SCALARS):
            self.external[id(value)] = value  # an item of a tuple read from outside
        return value

    def _elements(self, nodes: list[ast.expr], frame: Frame) -> list:
        items: list = []
        for n in nodes:
            if isinstance(n, ast.Starred):
                items.extend(self.iterate(self.expr(n.value, frame)))
            else:
                items.append(self.expr(n, frame))
        return items

    def _formatted(self, node: ast.expr, frame: Frame) -> str:
        if isinstance(node, ast.Constant):
            return str(node.value)
        assert isinstance(node, ast.FormattedValue)
        value = self.expr(node.value, frame)
        if not pb.plain(value):
            raise Impure(f"formatting a {type(value).__qualname__} runs its __format__")
        conversion = {-1: None, 115: str, 114: repr, 97: ascii}[node.conversion]
        if conversion is not None:
            value = conversion(value)
        spec = "" if node.format_spec is None else self.expr(node.format_spec, frame)
        return self.apply(format, (value, spec), node)  # type: ignore[return-value]

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp,
                       frame: Frame) -> object:
        names = frozenset(n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name))
        inner = Frame(names, frame.globals, frame, frame.where)
        first = self.iterate(self.expr(node.generators[0].iter, frame))  # evaluated at once, as Python does

        def produce(level: int, source: Any) -> Any:
            generator = node.generators[level]
            for item in source:
                self.tick(node, frame)
                self.store(generator.target, item, inner)
                if all(self.truth(self.expr(test, inner)) for test in generator.ifs):
                    if level + 1 < len(node.generators):
                        yield from produce(level + 1, self.iterate(self.expr(node.generators[level + 1].iter, inner)))
                    elif isinstance(node, ast.DictComp):
                        yield self.expr(node.key, inner), self.expr(node.value, inner)
                    else:
                        yield self.expr(node.elt, inner)

        if isinstance(node, ast.GeneratorExp):
            return produce(0, first)
        kind = {ast.ListComp: list, ast.SetComp: set, ast.DictComp: dict}[type(node)]
        return self.made_here(self.apply(kind, (produce(0, first),), node))

    def _call_node(self, node: ast.Call, frame: Frame) -> object:
        callee = self.expr(node.func, frame)
        args = self._elements(node.args, frame)
        kwargs: dict[str, object] = {}
        for keyword in node.keywords:
            value = self.expr(keyword.value, frame)
            if keyword.arg is None:
                if not (isinstance(value, dict) and pb.plain(value)):
                    raise Impure(f"'**' of a {type(value).__qualname__} ({pb.where(frame, node)})")
                kwargs.update(value)
            else:
                kwargs[keyword.arg] = value
        self.tick(node, frame)
        return self.call(callee, args, kwargs)

    # -- calls and attributes: pure_reach.py -------------------------------------------------------
    def call(self, callee: object, args: list, kwargs: dict) -> object:
        return pure_reach.call(self, callee, args, kwargs)

    def attribute(self, owner: object, name: str, node: ast.AST, frame: Frame) -> object:
        return pure_reach.attribute(self, owner, name, node, frame)



SNAPSHOT = pb.SNAPSHOT
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.MatMult: operator.matmul}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}
_getitem = operator.getitem


def inspect_static(owner: type, name: str) -> object:
    import inspect

    return inspect.getattr_static(owner, name, None)


