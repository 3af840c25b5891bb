"""Whether a function returns one value or an n-tuple, read from its source (no libcst).

An empty batch that runs element by element has no result to look at; the source can still say
whether every `return` gives one value or an n-tuple. Flow-insensitive and conservative: a local
name can hold whatever any of its bindings gives (a least fixpoint over the bindings); anything
not certain is unknown, and per_element then raises rather than guess. Imported only on that path.
"""

from __future__ import annotations

import ast
import types
from collections.abc import Iterator

from ..errors import VectorizeError
from .namespace import Namespace
from .source import source_of

_ONE, _UNKNOWN = -1, -2  # arities: one value, not known; n >= 0 is an n-tuple
_NUMBER_BUILTINS = frozenset({"abs", "float", "int", "bool", "round", "len", "pow"})
_TUPLE_MATH = frozenset({"frexp", "modf"})  # the math functions that return tuples
_GIVE_UP = (ast.Yield, ast.YieldFrom, ast.Await, ast.Match, ast.Global, ast.Nonlocal)  # not followed


def static_structure(func: types.FunctionType, namespace: Namespace) -> tuple[bool, tuple[str, ...]] | None:
    """(returns a tuple?, result types) when the source of `func` says how many values every
    `return` gives (types are "float": the dtypes are unknown), None when it does not."""
    try:
        tree = ast.parse(source_of(func).text)
    except (VectorizeError, SyntaxError):
        return None
    fn = tree.body[0] if tree.body else None
    if not isinstance(fn, ast.FunctionDef):
        return None
    arity = _Returns(fn, namespace).arity()
    if arity is None:
        return None
    return (True, ("float",) * arity) if arity >= 0 else (False, ("float",))


class _Returns:
    def __init__(self, fn: ast.FunctionDef, namespace: Namespace) -> None:
        self.namespace = namespace
        self.nodes = list(_own_nodes(fn))
        args = fn.args
        self.bindings: dict[str, list[ast.expr | int]] = {
            a.arg: [_ONE] for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}  # lanes hold numbers or arrays
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self.bindings[a.arg] = [_UNKNOWN]
        self.env: dict[str, frozenset[int]] = {}

    def arity(self) -> int | None:
        if any(isinstance(n, _GIVE_UP) for n in self.nodes):
            return None
        self._collect_bindings()
        for _ in range(8):  # tuple concatenation in a loop grows without end: give up
            env = {name: frozenset().union(*map(self.of, values)) for name, values in self.bindings.items()}
            if env == self.env:
                found = frozenset().union(*(self.of(n.value) for n in self.nodes if isinstance(n, ast.Return)))
                return next(iter(found)) if len(found) == 1 and _UNKNOWN not in found else None
            self.env = env
        return None

    def _collect_bindings(self) -> None:
        bound: set[int] = set()  # ids of the Name targets handled here; any other store is unknown
        for node in self.nodes:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value, bound)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self._bind(node.target, ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value), bound)
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                self._bind(node.target, node.value, bound)
            elif isinstance(node, ast.For):
                iterates_range = isinstance(node.iter, ast.Call) and self._builtin(node.iter.func) == "range"
                self._bind(node.target, _ONE if iterates_range else _UNKNOWN, bound)
        for node in self.nodes:
            for name in _other_stores(node, bound):
                self.bindings.setdefault(name, []).append(_UNKNOWN)

    def _bind(self, target: ast.expr, value: ast.expr | int, bound: set[int]) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append(value)
            bound.add(id(target))
        elif isinstance(target, ast.Tuple | ast.List):
            pairs = isinstance(value, ast.Tuple) and len(value.elts) == len(target.elts) and not any(
                isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
            for k, element in enumerate(target.elts):
                self._bind(element, value.elts[k] if pairs else _UNKNOWN, bound)  # type: ignore[union-attr]

    def of(self, node: ast.expr | int | None) -> frozenset[int]:
        """The arities `node` may have (empty: none yet, in the fixpoint)."""
        if isinstance(node, int):
            return frozenset({node})
        if isinstance(node, ast.Tuple):
            return frozenset({_UNKNOWN if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)})
        if isinstance(node, ast.Constant):
            return frozenset({_ONE if isinstance(node.value, int | float) else _UNKNOWN})
        if isinstance(node, ast.Compare | ast.UnaryOp):
            return frozenset({_ONE})  # a bool, or a number (a tuple has no unary operators)
        if isinstance(node, ast.IfExp):
            return self.of(node.body) | self.of(node.orelse)
        if isinstance(node, ast.BoolOp):
            return frozenset().union(*map(self.of, node.values))  # `a or b` gives an operand
        if isinstance(node, ast.BinOp):
            return frozenset(_binop(node.op, a, b) for a in self.of(node.left) for b in self.of(node.right))
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Call):
            return self._call(node)
        return frozenset({_UNKNOWN})

    def _name(self, name: str) -> frozenset[int]:
        if name in self.bindings:
            return self.env.get(name, frozenset())
        found = self.namespace.resolve(name)
        if found.kind == "constant":
            return frozenset({len(found.value) if isinstance(found.value, tuple) else _ONE})
        return frozenset({_UNKNOWN})

    def _call(self, node: ast.Call) -> frozenset[int]:
        builtin = self._builtin(node.func)
        if builtin in _NUMBER_BUILTINS:
            return frozenset({_ONE})
        if builtin in ("min", "max") and len(node.args) >= 2 and not node.keywords:
            return frozenset().union(*map(self.of, node.args))  # gives one of its arguments
        func = node.func
        if isinstance(func, ast.Name) and func.id not in self.bindings:  # from math import sqrt
            found = self.namespace.resolve(func.id)
            if found.kind == "math_func" and found.name.removeprefix("math.") not in _TUPLE_MATH:
                return frozenset({_ONE})
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in self.bindings:
            module = self.namespace.resolve(func.value.id).kind
            if module == "math" and func.attr not in _TUPLE_MATH:
                return frozenset({_ONE})
            if module == "numpy" and self._numpy_array_call(func.attr, node):
                return frozenset({_ONE})
        return frozenset({_UNKNOWN})

    def _numpy_array_call(self, attr: str, node: ast.Call) -> bool:
        """np.<f> of the batching-rule table: each returns one array (np.where: with 3 arguments)."""
        from ..rules.arrays import ARRAY_CALLS, TUPLE_CALLS

        name = f"np.{attr}"
        return name in ARRAY_CALLS and name not in TUPLE_CALLS and (attr != "where" or len(node.args) == 3)

    def _builtin(self, func: ast.expr) -> str | None:
        if isinstance(func, ast.Name) and func.id not in self.bindings and self.namespace.resolve(func.id).kind == "builtin":
            return func.id
        return None


def _binop(op: ast.operator, a: int, b: int) -> int:
    """The arity of `a op b`: tuples concatenate with +; a number on either side of + gives a
    number (or raises); only * can repeat a tuple; no other operator takes one."""
    if isinstance(op, ast.Add):
        return _ONE if _ONE in (a, b) else _UNKNOWN if _UNKNOWN in (a, b) else a + b
    if isinstance(op, ast.Mult):
        return _ONE if a == b == _ONE else _UNKNOWN
    return _ONE


def _other_stores(node: ast.AST, bound: set[int]) -> list[str]:
    """Names `node` binds in a way `_collect_bindings` does not follow (with, except, import, ...)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in bound:
        return [node.id]
    if isinstance(node, ast.ExceptHandler | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name:
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []


def _own_nodes(fn: ast.FunctionDef) -> Iterator[ast.AST]:
    """The nodes of the function's own scope (not of functions, classes or lambdas inside it)."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
