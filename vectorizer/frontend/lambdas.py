"""The source of a lambda, as the `def` it stands for (frontend/source.py). Before (a module)::

    entrance_rounded = lambda x: float(splev(x, TCK))

After (the text the frontend parses; its line is the lambda's line in the file)::

    def entrance_rounded(x): return (float(splev(x, TCK)))

`vectorize` takes a lambda as a copy named so (`as_def`). The lambda is found by parsing its file and taking the one lambda that starts on the code
object's first line; its name is the one it is assigned to (`name = lambda ...`, also `obj.name`
or `d[...]` as the last part), else `_lambda`. Refused, with the reason: two lambdas starting on
that line (which one this is cannot be told from the line), and a file that cannot be
read or parsed. A lambda made by a factory (`return lambda x: x * k`) reads its cells as a
`def` closure does (issue 51: frontend/namespace.py): the copy keeps the closure.
"""

from __future__ import annotations

import ast
import inspect
import keyword
import types

from ..errors import SourceUnavailableError


def as_def(func: types.FunctionType) -> types.FunctionType:
    """A lambda as a function named like the `def` it stands for (the engine names the kernel
    after the function; `<lambda>` is no name): same code, globals, defaults and closure. Any other
    function, or a lambda whose source cannot be read (refused later, by source_of), as it is."""
    if not isinstance(func, types.FunctionType) or func.__code__.co_name != "<lambda>":
        return func
    try:
        name = lambda_text(func)[0]
    except SourceUnavailableError:
        return func
    copy = types.FunctionType(func.__code__, func.__globals__, name, func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    copy.__qualname__ = name
    copy.__module__ = func.__module__
    copy.__doc__ = func.__doc__
    return copy


def lambda_text(func: types.FunctionType) -> tuple[str, str, int]:
    """(name, `def` text, line of the lambda in its file) for a lambda function."""
    code = func.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    try:
        lines, _ = inspect.findsource(func)
        tree = ast.parse("".join(lines))
    except (OSError, TypeError, SyntaxError) as exc:
        raise SourceUnavailableError(f"cannot read the source of a lambda ({where}): {exc}",
                                     hint="define the function with 'def' in a .py file") from None
    text = "".join(lines)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno]
    if len(found) != 1:
        raise SourceUnavailableError(
            f"cannot vectorize a lambda ({where}): {len(found)} lambdas start on that line, and which one "
            "this is cannot be told from the source", hint="define the function with 'def' so its source can be read on its own")
    node = found[0]
    body = ast.get_source_segment(text, node.body)
    if body is None:
        raise SourceUnavailableError(f"cannot read the source of a lambda ({where})",
                                     hint="define the function with 'def'")
    name = _assigned_name(tree, node)
    params = ast.unparse(node.args)
    return name, f"def {name}({params}): return ({body})\n", code.co_firstlineno


def _assigned_name(tree: ast.AST, node: ast.Lambda) -> str:
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is node:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
                if name and name.isidentifier() and not keyword.iskeyword(name):
                    return name
    return "_lambda"
