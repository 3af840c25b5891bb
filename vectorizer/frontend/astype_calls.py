"""`x.astype(D)` with the dtype given positionally becomes `x.astype(dtype=D)` (part of
frontend/desugar.py), the form the fence and the analysis read a dtype in (rules/array_one_d.py).
Before::

    year = np.atleast_1d(year).astype(np.int64)

After::

    year = np.atleast_1d(year).astype(dtype=np.int64)

CPython's meaning is kept: `ndarray.astype` and a NumPy scalar's `astype` take the dtype as their
first parameter, named `dtype`. Only a call with that one positional argument and no other is
rewritten (`astype(t, copy=False)` and the like are left to the fence); what else has an `astype`
method (an object of the user's) is refused by the fence or the analysis as before.
"""

from __future__ import annotations

import libcst as cst

from .paths import PathTransformer


class AstypeCalls(PathTransformer):
    def wants(self, node: cst.CSTNode) -> bool:
        return _positional(node)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not _positional(original):
            return updated
        arg = updated.args[0]
        return updated.with_changes(args=[arg.with_changes(keyword=cst.Name("dtype"), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))])


def _positional(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" \
        and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
