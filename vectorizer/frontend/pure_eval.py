"""Evaluate a call when the code is generated, by interpreting it: only what is provably pure runs.

`Ellipsoid.from_name("wgs84")` in a function gives the same object on every lane, so the code can
be specialized on it (frontend/static_calls.py). Running the real call to find out would run
whatever the callee does, on lanes that may not exist: a `print`, an `os.system`, a `sleep`, a
`random()` drawn once for every lane, a `SystemExit`. So the call is not run: its Python source
(checked to be the running code, frontend/source.py) is interpreted here, and the interpreter
only knows pure operations:

* it reads the callee's arguments and locals, literals, module globals and class attributes
  (each read is recorded in `reads` as (container, key, object): the cache key covers their
  values (engine/fingerprint.py) and a `Watch` checks on every call that each is still bound to
  the same object), and items of containers read so;
* it writes only locals and objects made during this evaluation (`self` in a constructor);
* it calls interpreted Python functions, methods, classmethods and constructors, `math`, and the
  built-ins and methods of built-in values in `pure_builtins.py`; anything else (I/O, the
  environment, time, randomness, printing, warnings, imports, `with`, `global`...) is `Impure`,
  with the construct and its place as the reason;
* operators and built-ins apply only to values of built-in types, so no user `__dunder__` runs;
* at most `BUDGET` steps: a call that does not finish is `Impure`, never a hang;
* an exception the evaluated code raises is its result (`Raised`): that branch's exception for
  the lanes that reach it. `BaseException`s that are not `Exception`s are never raised here.
"""

from __future__ import annotations

import ast
import sys
import types
from typing import Any

from . import pure_builtins as pb
from .pure_builtins import Impure, Thrown
from .pure_exprs import Closure, ExpressionInterpreter, Frame

BUDGET = 200_000  # interpreted steps (a ~0.1-1 s evaluation at most)
MAX_DEPTH = 60  # interpreted calls deep (each costs several Python frames of this interpreter)
_CONTROL = ("break", "continue")


class Raised:
    """The result of a call that raised: `exception` is what the evaluated code raised."""

    __slots__ = ("exception",)

    def __init__(self, exception: BaseException) -> None:
        self.exception = exception


class Evaluation(ExpressionInterpreter):
    """One evaluation: `run(callee, args, kwargs)` gives the value or a `Raised`; `reads` holds
    what it read of state outside it, `covered(container, key)` says whether the cache key covers
    a module global or class attribute (None: everything is)."""

    def __init__(self, covered: Any = None, budget: int = BUDGET) -> None:
        super().__init__(covered, budget)

    def run(self, callee: object, args: tuple, kwargs: dict) -> object:
        try:
            return self.call(callee, list(args), dict(kwargs))
        except Thrown as thrown:
            return Raised(thrown.exception)
        except RecursionError:
            raise Impure("its calls nest too deep to evaluate when the code is generated") from None

    # -- functions ------------------------------------------------------------------------------
    def interpret(self, func: types.FunctionType, args: list, kwargs: dict) -> object:
        node = pb.function_node(func)
        frame = Frame(pb.local_names(node), func.__globals__, None, func.__code__.co_filename)
        self._bind(node.args, func, args, kwargs, frame)
        return self._body(node, frame)

    def call_closure(self, closure: Closure, args: list, kwargs: dict) -> object:
        node = closure.node
        names = pb.local_names(node) if isinstance(node, ast.FunctionDef) else frozenset(
            a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
        frame = Frame(names, closure.frame.globals, closure.frame, closure.frame.where)
        self._bind(node.args, None, args, kwargs, frame)
        if isinstance(node, ast.Lambda):
            return self.expr(node.body, frame)
        return self._body(node, frame)

    def _body(self, node: ast.FunctionDef, frame: Frame) -> object:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Impure(f"calls nest more than {MAX_DEPTH} deep when the code is generated")
        try:
            outcome = self.block(node.body, frame)
        finally:
            self.depth -= 1
        return outcome[1] if isinstance(outcome, tuple) else None

    def _bind(self, spec: ast.arguments, func: types.FunctionType | None, args: list, kwargs: dict,
              frame: Frame) -> None:
        if func is not None:
            import inspect

            try:
                bound = inspect.signature(func).bind(*args, **kwargs)
            except TypeError as exc:
                raise Thrown(exc) from None
            bound.apply_defaults()
            frame.locals.update(bound.arguments)
            return
        if spec.vararg or spec.kwarg or spec.kw_defaults and any(spec.kw_defaults):
            raise Impure("a lambda or nested function with *args, **kwargs or keyword defaults")
        names = [a.arg for a in (*spec.posonlyargs, *spec.args)]
        defaults = [self.expr(d, frame.outer or frame) for d in spec.defaults]
        values = dict(zip(names, args))
        values.update(kwargs)
        for name, default in zip(names[len(names) - len(defaults):], defaults):
            values.setdefault(name, default)
        if len(args) > len(names) or set(values) != set(names) | {a.arg for a in spec.kwonlyargs}:
            raise Thrown(TypeError(f"wrong arguments for a lambda: {len(args)} positional, {sorted(kwargs)}"))
        frame.locals.update(values)

    # -- statements -----------------------------------------------------------------------------
    def block(self, body: list[ast.stmt], frame: Frame) -> object:
        """None when the block ends normally, "break"/"continue", or ("return", value)."""
        for stmt in body:
            outcome = self.stmt(stmt, frame)
            if outcome is not None:
                return outcome
        return None

    def stmt(self, node: ast.stmt, frame: Frame) -> object:
        self.tick(node, frame)
        if isinstance(node, ast.Expr):
            if not isinstance(node.value, ast.Constant):  # a docstring is no step of the code
                self.expr(node.value, frame)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value, frame)
            for target in node.targets:
                self.store(target, value, frame)
        elif isinstance(node, ast.AugAssign):
            current = self.expr(pb.as_load(node.target), frame)
            self.store(node.target, self.binop(node.op, current, self.expr(node.value, frame), node), frame)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.store(node.target, self.expr(node.value, frame), frame)
        elif isinstance(node, ast.Return):
            return ("return", None if node.value is None else self.expr(node.value, frame))
        elif isinstance(node, ast.If):
            return self.block(node.body if self.truth(self.expr(node.test, frame)) else node.orelse, frame)
        elif isinstance(node, ast.While):
            return self._while(node, frame)
        elif isinstance(node, ast.For):
            return self._for(node, frame)
        elif isinstance(node, ast.Break | ast.Continue):
            return "break" if isinstance(node, ast.Break) else "continue"
        elif isinstance(node, ast.Pass):
            pass
        elif isinstance(node, ast.Raise):
            self._raise(node, frame)
        elif isinstance(node, ast.Assert):
            if not sys.flags.optimize and not self.truth(self.expr(node.test, frame)):
                message = () if node.msg is None else (self.expr(node.msg, frame),)
                raise Thrown(AssertionError(*message))
        elif isinstance(node, ast.Try):
            return self._try(node, frame)
        elif isinstance(node, ast.FunctionDef) and not node.decorator_list:
            frame.locals[node.name] = Closure(node, frame)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.delete(target, frame)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.imports(node, frame)
        else:
            raise Impure(f"'{type(node).__name__.lower()}' statement ({pb.where(frame, node)})")
        return None

    def _while(self, node: ast.While, frame: Frame) -> object:
        while self.truth(self.expr(node.test, frame)):
            self.tick(node, frame)
            outcome = self.block(node.body, frame)
            if outcome == "break":
                return None
            if isinstance(outcome, tuple):
                return outcome
        return self.block(node.orelse, frame)

    def _for(self, node: ast.For, frame: Frame) -> object:
        for item in self.iterate(self.expr(node.iter, frame)):
            self.tick(node, frame)
            self.store(node.target, item, frame)
            outcome = self.block(node.body, frame)
            if outcome == "break":
                return None
            if isinstance(outcome, tuple):
                return outcome
        return self.block(node.orelse, frame)

    def _raise(self, node: ast.Raise, frame: Frame) -> None:
        if node.exc is None:
            raise Impure(f"a bare 'raise' ({pb.where(frame, node)})")
        exc = self.expr(node.exc, frame)
        if isinstance(exc, type) and issubclass(exc, BaseException):
            exc = self.call(exc, [], {})
        if not isinstance(exc, Exception):
            raise Impure(f"it raises {type(exc).__name__}, which is not an Exception ({pb.where(frame, node)})")
        raise Thrown(exc)

    def _try(self, node: ast.Try, frame: Frame) -> object:
        try:
            try:
                outcome = self.block(node.body, frame)
            except Thrown as thrown:
                for handler in node.handlers:
                    kinds = Exception if handler.type is None else self.expr(handler.type, frame)
                    if isinstance(thrown.exception, kinds):  # type: ignore[arg-type]
                        if handler.name:
                            frame.locals[handler.name] = thrown.exception
                        return self.block(handler.body, frame)
                raise
            if outcome is None:
                return self.block(node.orelse, frame)
            return outcome
        finally:
            if node.finalbody:
                final = self.block(node.finalbody, frame)
                if final is not None:
                    return final  # noqa: B012 - Python's own rule: the finally block's jump wins

    def imports(self, node: ast.Import | ast.ImportFrom, frame: Frame) -> None:
        modules = {m.__name__: m for m in pb.PURE_MODULES}
        if isinstance(node, ast.Import) and all(a.name in modules for a in node.names):
            for a in node.names:
                frame.locals[a.asname or a.name] = modules[a.name]
        elif isinstance(node, ast.ImportFrom) and node.module in modules and not node.level:
            for a in node.names:
                frame.locals[a.asname or a.name] = self.apply(getattr, (modules[node.module], a.name), node)
        else:
            raise Impure(f"it imports a module other than math ({pb.where(frame, node)})")


def evaluate(callee: object, args: tuple, kwargs: dict, covered: Any = None,
             budget: int = BUDGET) -> tuple[object, list[tuple[object, object, object]]]:
    """(the value of `callee(*args, **kwargs)` or a `Raised`, the reads it made); `Impure` with the
    reason when the call cannot be evaluated purely."""
    evaluation = Evaluation(covered, budget)
    return evaluation.run(callee, args, kwargs), evaluation.reads
