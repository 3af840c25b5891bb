"""Concrete hints for the fence's refusals: each names what the user wrote and the rewrite that
works, where the construct allows one (the generic hints stay in the fence for the rest)."""

from __future__ import annotations

import libcst as cst

SUPPORTED_CALLS = "vectorizer batches math.*, abs/min/max/round/int/float/bool/pow/divmod and same-module functions"
_NEVER_NONE = "a batched argument is never None, and neither is a value computed from one"


def code_of(node: cst.CSTNode, limit: int = 40) -> str:
    """The source text of `node` on one line, shortened to `limit` characters."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def none_name() -> str:
    """A bare `None` in the function (a default result, a sentinel)."""
    return f"{_NEVER_NONE}; mark a missing value with math.nan (test it with math.isnan(v)) instead of None"


def kind_check(node: cst.Call | cst.Comparison) -> str:
    """An `is None` / isinstance() / type() test the code generator cannot decide (an `is None` of
    a parameter is always decided: no lane of a batched argument is None)."""
    comp = node.comparisons[0] if isinstance(node, cst.Comparison) else None
    if comp is not None and isinstance(comp.operator, cst.Is | cst.IsNot) \
            and isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None":
        always = "False" if isinstance(comp.operator, cst.Is) else "True"
        return f"{_NEVER_NONE}: '{code_of(node)}' is always {always} here; drop the test"
    return "test the parameter itself before assigning to it: 'if not isinstance(n, int): raise TypeError(...)'"


def unsupported_call(name: str, resolved: str, builtin: bool) -> str:
    """A call of `name` (bound to `resolved`, e.g. 'othermod.func') that is no math function,
    supported builtin or same-module function; `builtin`: it is Python's builtin of that name."""
    if builtin:
        what = f"vectorizer has no batched version of the builtin {name}()"
    elif resolved != name and "." in resolved:
        what = f"{name} is {resolved}, a function of another module, which is not vectorized with this one"
    else:
        what = f"{name!r} is not a function vectorizer can batch (or is not defined)"
    return (f"{what}: call {name}(...) outside the vectorized function and pass its result in as an argument, "
            f"or define what it computes in this module; {SUPPORTED_CALLS}")


def attribute(node: cst.Attribute, called: bool) -> str:
    """Reading (or calling) an attribute of a global object (`obj.field`, `module.func(...)`)."""
    text = code_of(node)
    if called:
        return f"call {text}(...) outside the vectorized function and pass its result in as an argument"
    return f"read {text} outside the vectorized function and pass it in as an argument (vectorized functions work on numbers)"
