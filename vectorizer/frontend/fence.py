"""The fence: an allowlist of the syntax vectorizer supports, checked before any pass runs.

Every construct outside the subset is reported, all at once, with file:line:col, the source line
with a caret, the construct in the user's words and a hint:

    kernels.py:7:9: error[VEC-SYNTAX]: 'with' statements are not supported
        7 |         with lock:
          |         ^^^^
    hint: a vectorized function must not manage resources

The fence only looks at syntax and at what global names refer to; typing problems (a float range
bound, a variable unbound on some paths) are found by the analysis, which reports them the same way.

The statements are checked here, the expressions in fence_exprs.py; the table of what is refused
outright, and the reserved names, are in refusals.py.
"""

from __future__ import annotations

import libcst as cst

from ..errors import (
    UnsupportedCallError,
    UnsupportedSyntaxError,
    VectorizeError,
    VectorizeErrorGroup,
)
from .fence_attributes import maybe_static_attribute
from .fence_exprs import ExpressionFence
from .namespace import SIDE_EFFECT_BUILTINS, Namespace
from .parse import ParsedFunction
from .refusals import BINOPS, REFUSED, RESERVED_LOCALS, augmented, local_names


class Fence:
    """Collects every unsupported construct of one function."""

    def __init__(self, parsed: ParsedFunction, namespace: Namespace, kind_checks: bool = True,
                 specializable: bool = False, deferred: bool = False) -> None:
        self.parsed = parsed
        self.deferred = deferred  # a callee's kind checks are decided per call, then fenced strictly
        self.ns = namespace
        self.errors: list[VectorizeError] = []
        self.locals = local_names(parsed.func)
        p = parsed.func.params
        self.params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
        self.exprs = ExpressionFence(parsed, namespace, self.locals, self.refuse, kind_checks, specializable)
        self.expr, self.subscript = self.exprs.expr, self.exprs.subscript

    # -- reporting -------------------------------------------------------------------------
    def refuse(self, node: cst.CSTNode, message: str, hint: str, cls=UnsupportedSyntaxError) -> None:
        self.errors.append(cls(message, self.parsed.location(node), hint=hint, construct=type(node).__name__))

    def check(self) -> None:
        func = self.parsed.func
        if func.asynchronous is not None:
            self.refuse(func, "async functions are not supported", "vectorize a plain 'def' function")
        params = func.params
        if isinstance(params.star_arg, cst.Param):
            self.refuse(params.star_arg, "'*args' parameters are not supported", "list the parameters explicitly")
        if params.star_kwarg is not None:
            self.refuse(params.star_kwarg, "'**kwargs' parameters are not supported", "list the parameters explicitly")
        if not (params.params or params.posonly_params or params.kwonly_params):
            self.refuse(func, f"{self.parsed.name!r} takes no parameters; there is nothing to vectorize",
                        "vectorize a function of at least one number")
        for name in sorted(self.locals):
            if name in RESERVED_LOCALS or name.startswith("_vz_"):
                self.refuse(func.name, f"the local name {name!r} would shadow a name the generated code uses",
                            f"rename {name!r} in {self.parsed.name!r}")
        # `def f(x): return x` has its body on the def line: one simple statement suite.
        body = func.body.body if isinstance(func.body, cst.IndentedBlock) else [func.body]
        for i, stmt in enumerate(body):
            self.statement(stmt, docstring_ok=(i == 0))
        if self.errors:
            raise self.errors[0] if len(self.errors) == 1 else VectorizeErrorGroup(self.errors)

    # -- statements ------------------------------------------------------------------------
    def block(self, block: cst.BaseSuite) -> None:
        stmts = block.body if isinstance(block, cst.IndentedBlock) else [block]
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt: cst.CSTNode, docstring_ok: bool = False) -> None:
        if type(stmt) in REFUSED:
            message, hint = REFUSED[type(stmt)]
            self.refuse(stmt, message, hint)
        elif isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in stmt.body:
                self.small_statement(small, docstring_ok)
        elif isinstance(stmt, cst.If):
            self.expr(stmt.test)
            kept = self.errors
            if (self.exprs.specializable or self.deferred) and self.exprs.kind_guarded(stmt.test):
                # `if isinstance(S, complex): ... 1j ...`: the specialization decides the check from
                # the lanes' kind and drops the branch it rules out; the strict fence, after it,
                # refuses what is left (specialized_analysis.specialized)
                self.errors = []
            self.block(stmt.body)
            if isinstance(stmt.orelse, cst.If):
                self.statement(stmt.orelse)
            elif isinstance(stmt.orelse, cst.Else):
                self.block(stmt.orelse.body)
            self.errors = kept
        elif isinstance(stmt, cst.While):
            if stmt.orelse is not None:
                self.refuse(stmt.orelse, "'while ... else' is not supported", "use a flag variable set before 'break'")
            self.expr(stmt.test)
            self.block(stmt.body)
        elif isinstance(stmt, cst.For):
            self.for_loop(stmt)
        else:
            self.refuse(stmt, f"'{type(stmt).__name__}' statements are not supported", "see 'Will it work for my code?' in the README")

    def for_loop(self, stmt: cst.For) -> None:
        if stmt.asynchronous is not None:
            self.refuse(stmt, "'async for' is not supported", "use a plain 'for' loop")
        if stmt.orelse is not None:
            self.refuse(stmt.orelse, "'for ... else' is not supported", "use a flag variable set before 'break'")
        if not isinstance(stmt.target, cst.Name):
            self.refuse(stmt.target, "'for' loops must bind one name", "write 'for i in range(...)'")
        it = stmt.iter
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" \
                and it.func.value not in self.locals:
            if not 1 <= len(it.args) <= 3 or any(a.keyword or a.star for a in it.args):
                self.refuse(it, "range() takes 1 to 3 positional arguments here", "write range(stop), range(start, stop) or range(start, stop, step)")
            for arg in it.args:
                self.expr(arg.value)
        elif isinstance(it, cst.Name) and it.value not in self.locals and self.ns.resolve(it.value).kind == "constant" \
                and isinstance(self.ns.resolve(it.value).value, tuple):
            pass
        elif isinstance(it, cst.Tuple) and all(isinstance(e.value, (cst.Integer, cst.Float)) for e in it.elements):
            pass
        elif self.exprs.specializable and isinstance(it, cst.Name) and it.value in self.params:
            pass  # a parameter given a tuple of numbers: a table after the specialization, or refused then
        elif self.exprs.specializable and isinstance(it, cst.Attribute) and maybe_static_attribute(self.exprs, it.value, False):
            pass  # a tuple an object the code is specialized on holds (issue 51): a table after it, or refused then
        else:
            self.refuse(it, "'for' loops must iterate over range(...) or a module-level tuple of numbers",
                        "loop with 'for i in range(n)'; iterating over other objects is not supported")
        self.block(stmt.body)

    def small_statement(self, small: cst.BaseSmallStatement, docstring_ok: bool) -> None:
        if type(small) in REFUSED:
            message, hint = REFUSED[type(small)]
            self.refuse(small, message, hint)
        elif isinstance(small, cst.Assign):
            for target in small.targets:
                self.target(target.target, allow_tuple=True)
            self.expr(small.value, tuple_ok=True)
        elif isinstance(small, cst.AnnAssign):
            self.target(small.target, allow_tuple=False)
            if small.value is not None:
                self.expr(small.value)
        elif isinstance(small, cst.AugAssign):
            self.target(small.target, allow_tuple=False)
            if not isinstance(small.operator, tuple(augmented(op) for op in BINOPS)):
                self.refuse(small, "this augmented assignment operator is not supported", "write 'x = x op y'")
            self.expr(small.value)
        elif isinstance(small, cst.Expr):
            value = small.value
            if docstring_ok and isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                return
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                    and value.func.value in SIDE_EFFECT_BUILTINS and value.func.value not in self.locals:
                self.refuse(value, f"{SIDE_EFFECT_BUILTINS[value.func.value]}; it cannot be vectorized",
                            "remove it, or run the scalar function for debugging", UnsupportedCallError)
                return
            if isinstance(value, cst.Yield):
                self.refuse(small, "'yield' makes this a generator, which returns an iterator, not a number",
                            "return the value; a vectorized function computes one result per input")
                return
            self.refuse(small, "an expression statement has no effect on the result",
                        "assign the value to a variable or remove the line")
        elif isinstance(small, cst.Return):
            if small.value is None:
                self.refuse(small, "'return' without a value returns None, which is not a number",
                            "return a number (or a tuple of numbers) on every path")
            else:
                self.expr(small.value, tuple_ok=True)
        elif isinstance(small, cst.Raise):
            if small.exc is None:
                self.refuse(small, "a bare 'raise' is not supported", "raise an exception instance, e.g. raise ValueError('...')")
            # The exception expression only runs in the scalar re-run of a failing lane.
        elif isinstance(small, cst.Assert):
            self.expr(small.test)
        elif isinstance(small, cst.Pass | cst.Break | cst.Continue):
            pass
        else:
            self.refuse(small, f"'{type(small).__name__}' statements are not supported", "see 'Will it work for my code?' in the README")

    def target(self, target: cst.BaseExpression, allow_tuple: bool) -> None:
        if isinstance(target, cst.Name):
            return
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value in self.locals:
            if target.value.value in self.params:
                self.refuse(target, f"assignment into the argument {target.value.value!r} would change the caller's array",
                            f"work on a copy: {target.value.value} = {target.value.value}.copy()")
            self.subscript(target)
            return
        if allow_tuple and isinstance(target, cst.Tuple | cst.List):
            for el in target.elements:
                if isinstance(el, cst.StarredElement) or not isinstance(el.value, cst.Name):
                    self.refuse(el, "only plain names can be unpacked into", "write 'a, b = ...' with names")
            return
        what = "an item" if isinstance(target, cst.Subscript) else "an attribute" if isinstance(target, cst.Attribute) else "this target"
        self.refuse(target, f"assignment to {what} is not supported", "assign to a local variable; a vectorized function must not mutate objects")


def check(parsed: ParsedFunction, namespace: Namespace, kind_checks: bool = True, specializable: bool = False,
          deferred: bool = False) -> None:
    """Raise a `VectorizeError` (or a group of them) for every unsupported construct. With
    `kind_checks`, `isinstance(param, int)` and the like pass (frontend/static_checks.py); with
    `specializable`, strings, None and `is`/`in` comparisons pass, to be decided by a call's
    values (passes/specialize.py) and checked again after; with `deferred` (a callee, whose kind
    checks each call decides: analysis/calls.py `for_call`, which fences the result strictly),
    a branch a kind check may rule out is not fenced yet."""
    Fence(parsed, namespace, kind_checks, specializable, deferred).check()
