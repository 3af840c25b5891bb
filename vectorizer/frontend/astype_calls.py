"""`x.astype(D)` with the dtype given positionally becomes `x.astype(dtype=D)` (part of
frontend/desugar.py), the form the fence and the analysis read a dtype in (rules/array_one_d.py);
and `np.int64(x)` becomes `np.int64(int(x))`. Before::

    year = np.atleast_1d(year).astype(np.int64)
    k = np.int64(x)

After::

    year = np.atleast_1d(year).astype(dtype=np.int64)
    k = np.int64(int(x))

np.int64 of a Python float truncates it, and raises for NaN (ValueError), infinities and values
beyond int64 (OverflowError), as int() then np.int64 of the int: the analysis's int() flags those
lanes (a NaN, an infinity, an int beyond int64), and their re-run through the scalar function
gives np.int64's own outcome. Of a NumPy float np.int64 is the CPU's cast (NaN gives
-2**63, no error): int() flags exactly those lanes too, and the re-run gives NumPy's value. Of a
one-element array np.int64 gives an array: int() of one is refused (NumPy 2 raises TypeError), so
that stays refused. np.int64 of an int or a bool is its value.

CPython's meaning is kept: `ndarray.astype` and a NumPy scalar's `astype` take the dtype as their
first parameter, named `dtype`. Only a call with that one positional argument and no other is
rewritten (`astype(t, copy=False)` and the like are left to the fence); what else has an `astype`
method (an object of the user's) is refused by the fence or the analysis as before.
"""

from __future__ import annotations

import libcst as cst

from .namespace import Namespace
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


class Int64Calls(PathTransformer):
    """`np.int64(x)` -> `np.int64(int(x))` (see the module docstring)."""

    def __init__(self, ns: Namespace, local: set[str]) -> None:
        super().__init__()
        self.ns, self.local = ns, local

    def wants(self, node: cst.CSTNode) -> bool:
        return self._conversion(node)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not self._conversion(original):
            return updated
        arg = updated.args[0]
        return updated.with_changes(args=[arg.with_changes(value=cst.Call(cst.Name("int"), [cst.Arg(arg.value)]))])

    def _conversion(self, node: cst.CSTNode) -> bool:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "int64"
                and isinstance(node.func.value, cst.Name) and node.func.value.value not in self.local
                and self.ns.resolve(node.func.value.value).kind == "numpy"):
            return False
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star or "int" in self.local:
            return False
        glob = self.ns.resolve("int")
        already = isinstance(node.args[0].value, cst.Call) and isinstance(node.args[0].value.func, cst.Name) \
            and node.args[0].value.func.value == "int"
        return not already and (glob.kind == "builtin" or glob.kind == "unknown" and glob.name == "int"
                                and (self.ns.globals is None or "int" not in self.ns.globals))


def _positional(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype" \
        and len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
