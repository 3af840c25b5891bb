"""What the fence (fence.py) refuses and reserves: the constructs refused outright with their
messages and hints, the operators it accepts, the names generated code defines itself, and which
names a function binds locally."""

from __future__ import annotations

import libcst as cst

from ..core.tree import target_names, walk

# Statement and expression types refused outright: (what it is, hint).
REFUSED: dict[type, tuple[str, str]] = {
    # A `try` without `finally` is rewritten before the fence (frontend/try_blocks.py).
    cst.Try: ("'try' with 'finally' is not supported", "run the cleanup after the 'try' statement, or test the condition explicitly with 'if' and 'raise'"),
    cst.TryStar: ("'try' statements with 'except*' are not supported", "use 'except' (exception groups are not raised by numbers)"),
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

BINOPS = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
    cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift,
)
COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


# Names the generated modules define or import themselves: a user's name must not shadow them.
RESERVED_LOCALS = frozenset({"np", "math", "numba"})
RESERVED_GLOBALS = frozenset({"VECTORIZER_RESULT", "VECTORIZER_RETURNS_TUPLE", "NUMBA_CACHE", "PARALLEL_MIN_LANES"})
RESERVED_PREFIXES = ("_vz_", "_kernel_", "_scalar_", "_lane_", "_run_", "_prun_")


OP_WORDS = {"Is": "is", "IsNot": "is not", "In": "in", "NotIn": "not in"}


def augmented(op: type) -> type:
    return getattr(cst, op.__name__ + "Assign")


def local_names(func: cst.FunctionDef) -> set[str]:
    """Parameters and every name the body binds (Python's rule: assigned anywhere = local)."""
    names = {p.name.value for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)}

    binders = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For,
               cst.NamedExpr)  # a walrus is refused, but its name is a local, not a global
    for node in walk(func.body):
        if type(node) in binders:
            names.update(target_names(node.target))
    return names
