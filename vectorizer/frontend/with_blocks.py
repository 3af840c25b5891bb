"""`with np.errstate(...)` (part of frontend/desugar.py, first): its body, where what the setting
changes is not what the batched code keeps. Before::

    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(x == 0, 1.0, np.sin(x) / x)
    return r

After::

    r = np.where(x == 0, 1.0, np.sin(x) / x)
    return r

Why this is exact: NumPy's error state decides only whether a floating-point error of NumPy's
own arithmetic ("divide", "over", "under", "invalid") is ignored, warned about, or raised as a
FloatingPointError; Python's own arithmetic raises as before. With "ignore" or "warn" no value or
exception changes (the batched code computes with every error ignored and warns about nothing,
as it does anyway). "raise" (a FloatingPointError on the lanes that hit the error), "call",
"print" and "log" (a handler run, or a line written, per error) are refused, naming the keyword,
as is an `as` target or an argument that is not one of those literals. A `with` of any other
context manager is left to the fence, which refuses it.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from .namespace import Namespace
from .paths import PathTransformer

CATEGORIES = frozenset({"all", "divide", "over", "under", "invalid"})
KEPT = frozenset({"ignore", "warn"})


class WithBlocks(PathTransformer):
    """Splices the body of each `with np.errstate(...)` whose settings change nothing the batched
    code keeps; `refused` holds (node, reason) for the first that would."""

    def __init__(self, namespace: Namespace, local: set[str]) -> None:
        super().__init__()
        self.ns, self.local = namespace, local
        self.refused: tuple[cst.CSTNode, str] | None = None

    def wants(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.With) or not all(self.errstate(item.item) for item in node.items):
            return False  # another context manager: the fence refuses it as before
        why = self.why_not(node)
        if why is not None and self.refused is None:
            self.refused = (node, why)
        return why is None

    def errstate(self, call: cst.BaseExpression) -> bool:
        """`np.errstate(...)`, or `errstate(...)` of a module-level `from numpy import errstate`."""
        if not isinstance(call, cst.Call):
            return False
        func = call.func
        if isinstance(func, cst.Attribute):
            return (func.attr.value == "errstate" and isinstance(func.value, cst.Name)
                    and self.ns.resolve(func.value.value).kind == "numpy")
        if not isinstance(func, cst.Name) or func.value in self.local or self.ns.globals is None:
            return False
        self.ns.resolve(func.value)  # recorded: the Watch checks the name still holds np.errstate
        return self.ns.globals.get(func.value) is np.errstate

    def why_not(self, node: cst.With) -> str | None:
        if node.asynchronous is not None:
            return "'async with' is not supported"
        for item in node.items:
            call = item.item
            if not self.errstate(call):
                return "'with' is supported for np.errstate(...) only"
            if item.asname is not None:
                return "'with np.errstate(...) as name' is not supported"
            for arg in call.args:
                if arg.keyword is None or arg.keyword.value not in CATEGORIES or arg.star:
                    return "np.errstate takes the keywords all=, divide=, over=, under=, invalid= here"
                value = arg.value.evaluated_value if isinstance(arg.value, cst.SimpleString) else None
                if value not in KEPT and not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
                    return (f"np.errstate({arg.keyword.value}={cst.Module([]).code_for_node(arg.value)}): only 'ignore' "
                            f"and 'warn' are supported (with 'raise' NumPy raises FloatingPointError on the lanes that "
                            f"hit the error, with 'call', 'print' or 'log' it runs a handler or writes per error)")
        return None

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body: list[cst.BaseStatement] = []
        changed = False
        for stmt in updated.body:
            if isinstance(stmt, cst.With) and self.why_not(stmt) is None:
                inner = stmt.body
                body.extend(inner.body if isinstance(inner, cst.IndentedBlock)
                            else [cst.SimpleStatementLine(body=list(inner.body))])  # type: ignore[attr-defined]
                changed = True
            else:
                body.append(stmt)
        return updated.with_changes(body=body) if changed else updated
