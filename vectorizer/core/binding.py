"""Which names a statement, a block or a function body binds: the compiler's one answer, on libcst
trees (the front end and the passes up to the lowering) and on `ast` trees (the array and lane
code after it).

The rule is Python's (the names a statement makes local to the function it is in):

* the targets of `=`, `+=` (and the other augmented forms), `x: T = v` (an annotation alone binds
  nothing), `for` targets, `with ... as` targets, `except ... as e`, the walrus `:=` (also inside
  a comprehension, whose target it binds in the function), `del` targets;
* the names `import` and `from ... import` bind (`import a.b` binds `a`);
* the names of nested `def`s and `class`es, without looking into their bodies (their own scope);
  a `def` given as the node itself is the scope asked about: its body is read, its name is not;
* no comprehension's `for` target (the comprehension's own scope) and nothing inside a lambda.

Names inside subscripts and attributes (`x[i] = v`, `o.a = v`) are not bound. `bindings` gives
each binding in source order (a name bound twice comes twice); `bound_names` the set. With
`comprehensions=True` the targets of the comprehensions under the node count too: the names local
to some scope of the function, which is what a name read in a comprehension may refer to (the
front end's question when it tells a function's own names from its module's).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import lru_cache

import libcst as cst

from .tree import child_nodes


def bound_names(node: cst.CSTNode | ast.AST, comprehensions: bool = False) -> set[str]:
    """The names `node` (a statement, block, function body, or an ast tree) binds."""
    if isinstance(node, cst.CSTNode):
        return set(_cst_bound_names(node, comprehensions))
    return set(bindings(node, comprehensions))


@lru_cache(maxsize=1 << 14)
def _cst_bound_names(node: cst.CSTNode, comprehensions: bool) -> frozenset[str]:
    """A libcst node never changes (a pass makes new ones) and hashes by identity: the analyses
    ask about the same statements over and over (a big module's if-chains, thousands of times);
    the cache holds the nodes it answers for, at most its size of them."""
    return frozenset(_cst_bindings(node, comprehensions))


def bindings(node: cst.CSTNode | ast.AST, comprehensions: bool = False) -> list[str]:
    """Each binding under `node`, in source order, a name as often as it is bound."""
    found = _ast_bindings(node, comprehensions) if isinstance(node, ast.AST) else _cst_bindings(node, comprehensions)
    return list(found)


# -- libcst --------------------------------------------------------------------------------------
def _cst_targets(target: cst.CSTNode) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _cst_targets(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _cst_targets(target.value)


def _cst_bindings(root: cst.CSTNode, comprehensions: bool) -> Iterator[str]:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.For | cst.NamedExpr) \
                or isinstance(node, cst.AnnAssign) and node.value is not None:
            yield from _cst_targets(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            yield from _cst_targets(node.asname.name)
        elif isinstance(node, cst.ExceptHandler) and node.name is not None:
            yield from _cst_targets(node.name.name)
        elif isinstance(node, cst.Del):
            yield from _cst_targets(node.target)
        elif isinstance(node, cst.Import | cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                named = alias.asname.name if alias.asname is not None else alias.name
                yield cst.Module([]).code_for_node(named).split(".")[0]
        if isinstance(node, cst.FunctionDef | cst.ClassDef) and node is not root:
            yield node.name.value
            continue  # its body is its own scope
        if isinstance(node, cst.Lambda):
            continue
        if isinstance(node, cst.CompFor):  # its target is the comprehension's; a walrus in it is not
            if comprehensions:
                yield from _cst_targets(node.target)
            stack.extend(reversed([node.iter, *node.ifs, *([node.inner_for_in] if node.inner_for_in else [])]))
            continue
        stack.extend(reversed(child_nodes(node)))


# -- ast -----------------------------------------------------------------------------------------
def _ast_targets(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _ast_targets(element)
    elif isinstance(target, ast.Starred):
        yield from _ast_targets(target.value)


def _ast_bindings(root: ast.AST, comprehensions: bool) -> Iterator[str]:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _ast_targets(target)
        elif isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor | ast.NamedExpr) \
                or isinstance(node, ast.AnnAssign) and node.value is not None:
            yield from _ast_targets(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            yield from _ast_targets(node.optional_vars)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                yield from _ast_targets(target)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    yield (alias.asname or alias.name).split(".")[0]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node is not root:
            yield node.name
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.comprehension):
            if comprehensions:
                yield from _ast_targets(node.target)
            stack.extend(reversed([node.iter, *node.ifs]))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
