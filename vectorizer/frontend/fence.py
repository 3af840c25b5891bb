"""The fence: an allowlist of the syntax vectorizer supports, checked before any pass runs.

Every construct outside the subset is reported, all at once, with file:line:col, the source line
with a caret, the construct in the user's words and a hint:

    kernels.py:7:9: error[VEC-SYNTAX]: 'try' statements are not supported
        7 |         try:
          |         ^^^
    hint: test the condition explicitly with 'if' and 'raise'

The fence only looks at syntax and at what global names refer to; typing problems (a float range
bound, a variable unbound on some paths) are found by the analysis, which reports them the same way.
"""

from __future__ import annotations

import math

import libcst as cst

from ..core.tree import walk
from ..errors import (
    UnsupportedCallError,
    UnsupportedSyntaxError,
    VectorizeError,
    VectorizeErrorGroup,
)
from ..rules.arrays import ARRAY_CALLS, METHODS, NUMPY_CONSTANTS
from .namespace import SIDE_EFFECT_BUILTINS, SIDE_EFFECT_MODULES, Namespace
from .parse import ParsedFunction

# Statement and expression types refused outright: (what it is, hint).
_REFUSED: dict[type, tuple[str, str]] = {
    cst.Try: ("'try' statements are not supported", "test the condition explicitly with 'if' and 'raise'"),
    cst.TryStar: ("'try' statements are not supported", "test the condition explicitly with 'if' and 'raise'"),
    cst.With: ("'with' statements are not supported", "a vectorized function must not manage resources"),
    cst.Global: ("'global' declarations are not supported", "pass the value in and return the result instead of writing module state"),
    cst.Nonlocal: ("'nonlocal' declarations are not supported", "return the result instead of writing an enclosing variable"),
    cst.Del: ("'del' statements are not supported", "let the variable go out of scope instead"),
    cst.Import: ("imports inside a vectorized function are not supported", "import at module level"),
    cst.ImportFrom: ("imports inside a vectorized function are not supported", "import at module level"),
    cst.FunctionDef: ("nested function definitions are not supported", "define the helper at module level; calls to module functions are vectorized with the caller"),
    cst.ClassDef: ("class definitions inside a vectorized function are not supported", "define classes outside; vectorized functions work on numbers"),
    cst.Match: ("'match' statements are not supported", "use if/elif/else"),
    cst.Lambda: ("lambdas are not supported", "define the helper with 'def' at module level"),
    cst.Yield: ("'yield' makes the function a generator; generators cannot be vectorized", "return one value per call; each input lane maps to exactly one output"),
    cst.Await: ("'await' is not supported", "vectorize a plain (non-async) function"),
    cst.ListComp: ("list comprehensions are not supported", "write the loop with 'for i in range(...)'"),
    cst.SetComp: ("set comprehensions are not supported", "write the loop with 'for i in range(...)'"),
    cst.DictComp: ("dict comprehensions are not supported", "write the loop with 'for i in range(...)'"),
    cst.GeneratorExp: ("generator expressions are not supported", "write the loop with 'for i in range(...)'"),
    cst.NamedExpr: ("assignment expressions (':=') are not supported", "assign on its own line first"),
    cst.List: ("lists are not supported", "vectorized functions work on numbers; use separate variables or a module-level tuple constant"),
    cst.Dict: ("dicts are not supported", "vectorized functions work on numbers"),
    cst.Set: ("sets are not supported", "vectorized functions work on numbers"),
    cst.StarredElement: ("star-unpacking is not supported", "list the values explicitly"),
    cst.Imaginary: ("complex numbers are not supported", "vectorized functions work on real numbers"),
    cst.SimpleString: ("strings are not supported here", "strings may appear only in 'raise' and 'assert' messages and docstrings"),
    cst.FormattedString: ("f-strings are not supported here", "strings may appear only in 'raise' and 'assert' messages and docstrings"),
    cst.ConcatenatedString: ("strings are not supported here", "strings may appear only in 'raise' and 'assert' messages and docstrings"),
    cst.Ellipsis: ("'...' is not a number", "vectorized functions work on numbers"),
    cst.Slice: ("slices are not supported", "index a module-level tuple with a single integer"),
}

_BINOPS = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
    cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift,
)
_COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


# Names the generated modules define or import themselves: a user's name must not shadow them.
RESERVED_LOCALS = frozenset({"np", "math", "numba"})
RESERVED_GLOBALS = frozenset({"VECTORIZER_RESULT", "VECTORIZER_RETURNS_TUPLE", "NUMBA_CACHE", "PARALLEL_MIN_LANES"})
RESERVED_PREFIXES = ("_vz_", "_kernel_", "_scalar_", "_lane_", "_run_", "_prun_")


class Fence:
    """Collects every unsupported construct of one function."""

    def __init__(self, parsed: ParsedFunction, namespace: Namespace) -> None:
        self.parsed = parsed
        self.ns = namespace
        self.errors: list[VectorizeError] = []
        self.locals = _local_names(parsed.func)
        p = parsed.func.params
        self.params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}

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
        if type(stmt) in _REFUSED:
            message, hint = _REFUSED[type(stmt)]
            self.refuse(stmt, message, hint)
        elif isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in stmt.body:
                self.small_statement(small, docstring_ok)
        elif isinstance(stmt, cst.If):
            self.expr(stmt.test)
            self.block(stmt.body)
            if isinstance(stmt.orelse, cst.If):
                self.statement(stmt.orelse)
            elif isinstance(stmt.orelse, cst.Else):
                self.block(stmt.orelse.body)
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
        else:
            self.refuse(it, "'for' loops must iterate over range(...) or a module-level tuple of numbers",
                        "loop with 'for i in range(n)'; iterating over other objects is not supported")
        self.block(stmt.body)

    def small_statement(self, small: cst.BaseSmallStatement, docstring_ok: bool) -> None:
        if type(small) in _REFUSED:
            message, hint = _REFUSED[type(small)]
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
            if not isinstance(small.operator, tuple(_augmented(op) for op in _BINOPS)):
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

    # -- expressions -----------------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, tuple_ok: bool = False) -> None:
        if type(node) in _REFUSED:
            message, hint = _REFUSED[type(node)]
            self.refuse(node, message, hint)
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
            self.expr(node.left)
            for comp in node.comparisons:
                if not isinstance(comp.operator, _COMPARISONS):
                    op = type(comp.operator).__name__
                    self.refuse(comp.operator, f"the '{_OP_WORDS.get(op, op)}' comparison is not supported on numbers",
                                "compare numbers with ==, !=, <, <=, >, >=")
                self.expr(comp.comparator)
        elif isinstance(node, cst.IfExp):
            self.expr(node.test)
            self.expr(node.body)
            self.expr(node.orelse)
        elif isinstance(node, cst.Call):
            self.call(node)
        elif isinstance(node, cst.Attribute):
            self.attribute(node)
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

    def name(self, node: cst.Name) -> None:
        name = node.value
        if name in self.locals or name in ("True", "False"):
            return
        if name == "None":
            self.refuse(node, "'None' is not a number", "vectorized functions compute numbers; use a sentinel value such as math.nan")
            return
        glob = self.ns.resolve(name)
        if glob.kind == "constant" and (name in RESERVED_GLOBALS or name.startswith(RESERVED_PREFIXES)):
            self.refuse(node, f"the module constant {name!r} has a name the generated module defines itself",
                        f"rename the constant {name!r}")
            return
        if glob.kind == "constant":
            return
        if glob.kind in ("function", "builtin", "math_func"):
            self.refuse(node, f"the function {name!r} can only be called here", f"call it: {name}(...)")
        elif glob.kind == "math":
            self.refuse(node, "the 'math' module can only be used as math.<name>", "call math.<function>(...) or read math.pi etc.")
        else:
            self.refuse(node, f"the name {name!r} is not a local variable, a module-level number or tuple, "
                        "a math function or a function of this module",
                        "pass it in as a parameter, or define it at module level as a number", UnsupportedCallError)

    def attribute(self, node: cst.Attribute, called: bool = False) -> None:
        base = node.value
        attr = node.attr.value
        if isinstance(base, cst.Name) and base.value in self.locals:  # x.shape, x.sum()
            if (called and attr in METHODS) or (not called and attr in ("shape", "ndim", "size", "T")):
                return
            self.refuse(node, f"'.{attr}' is not supported on a local value", "supported: .shape .ndim .size .T and "
                        + ", ".join(f".{m}()" for m in sorted(METHODS)), UnsupportedCallError)
            return
        if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and base.attr.value == "linalg" \
                and self.ns.resolve(base.value.value).kind == "numpy":
            if not (called and f"np.linalg.{attr}" in ARRAY_CALLS):
                self.refuse(node, f"np.linalg.{attr} is not supported", "supported: np.linalg.norm", UnsupportedCallError)
            return
        if isinstance(base, cst.Name) and base.value not in self.locals and self.ns.resolve(base.value).kind == "numpy":
            if (called and f"np.{attr}" in ARRAY_CALLS) or (not called and attr in NUMPY_CONSTANTS):
                return
            self.refuse(node, f"np.{attr} has no batching rule", "supported NumPy functions: "
                        + ", ".join(sorted(k[3:] for k in ARRAY_CALLS)), UnsupportedCallError)
            return
        if isinstance(base, cst.Name) and base.value not in self.locals:
            glob = self.ns.resolve(base.value)
            if glob.kind == "math":
                attr = node.attr.value
                value = getattr(math, attr, None)
                if value is None:
                    self.refuse(node, f"math has no attribute {attr!r}", "check the spelling")
                elif called != callable(value):
                    what = "called" if called else "read"
                    self.refuse(node, f"math.{attr} cannot be {what} here", "call math functions, read math constants")
                return
            if base.value in SIDE_EFFECT_MODULES or glob.name in SIDE_EFFECT_MODULES:
                self.refuse(node, f"'{base.value}.{node.attr.value}': {SIDE_EFFECT_MODULES.get(base.value, SIDE_EFFECT_MODULES.get(glob.name))}; it cannot be vectorized",
                            "compute it outside and pass it in as an argument", UnsupportedCallError)
                return
        self.refuse(node, "attribute access is only supported for math.<name>",
                    "vectorized functions work on numbers; pass attributes in as arguments", UnsupportedCallError)

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
        if not ok_base:
            self.refuse(node, "indexing is only supported on module-level tuples of numbers",
                        "define the table at module level as a tuple: COEFFS = (1.0, 2.0)")
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            self.refuse(node, "only single-integer indexing is supported", "write TABLE[i]")
            return
        self.expr(node.slice[0].slice.value)

    def call(self, node: cst.Call) -> None:
        func = node.func
        for arg in node.args:
            if arg.star:
                self.refuse(arg, "star-arguments in calls are not supported", "pass the arguments explicitly")
            elif arg.keyword is not None and arg.keyword.value == "dtype":
                if cst.Module([]).code_for_node(arg.value) not in ("float", "int", "bool", "np.float64", "np.int64", "np.bool_"):
                    self.refuse(arg.value, "dtype must be float, int or bool here", "write dtype=float")
            else:
                self.expr(arg.value)
        if isinstance(func, cst.Attribute):
            self.attribute(func, called=True)
            return
        if not isinstance(func, cst.Name) or func.value in self.locals:
            self.refuse(func, "only calls to math functions, supported builtins and functions of this module are supported",
                        "call the function by its module-level name", UnsupportedCallError)
            return
        name = func.value
        if name == self.parsed.name:
            self.refuse(node, f"recursive call to {name!r}", "rewrite the recursion as a loop", UnsupportedCallError)
            return
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
        elif glob.kind == "unknown" and glob.name.split(".")[0] in SIDE_EFFECT_MODULES:
            self.refuse(node, f"{glob.name}: {SIDE_EFFECT_MODULES[glob.name.split('.')[0]]}; it cannot be vectorized",
                        "compute it outside and pass it in as an argument", UnsupportedCallError)
        else:
            self.refuse(node, f"call to {name!r}, which is not a math function, a supported builtin or a function of this module",
                        "vectorizer batches math.*, abs/min/max/round/int/float/bool/pow/divmod and same-module functions",
                        UnsupportedCallError)


_OP_WORDS = {"Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in"}


def _augmented(op: type) -> type:
    return getattr(cst, op.__name__ + "Assign")


def _local_names(func: cst.FunctionDef) -> set[str]:
    """Parameters and every name the body binds (Python's rule: assigned anywhere = local)."""
    names = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}

    binders = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For,
               cst.NamedExpr)  # a walrus is refused, but its name is a local, not a global
    for node in walk(func.body):
        if type(node) in binders:
            names.update(target_names(node.target))
    return names


def target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [n for el in target.elements for n in target_names(el.value)]
    return []


def check(parsed: ParsedFunction, namespace: Namespace) -> None:
    """Raise a `VectorizeError` (or a group of them) for every unsupported construct."""
    Fence(parsed, namespace).check()
