"""A `for` loop that unpacks the rows of a module-level table of numbers, or `zip` of tables, or
`enumerate` of one, becomes a loop over the row index (part of frontend/desugar.py, before the
fence). Before (`_TBL` a module-level tuple of tuples of numbers, `A`, `B` tuples of numbers)::

    for tD, tM, tK in _TBL:
        s += (tK / 10000.0) * math.sin(D * tD + M * tM)
    for a, b in zip(A, B):
        s += a * b
    for i, c in enumerate(A):
        s += c * x ** i

After (`_TBL_c0`... constants of the namespace, the table's columns, as module-level tuples are)::

    for row_1 in range(63):
        tD = _TBL_c0[row_1]
        tM = _TBL_c1[row_1]
        tK = _TBL_c2[row_1]
        s += (tK / 10000.0) * math.sin(D * tD + M * tM)
    for row_2 in range(3):
        a = A[row_2]
        b = B[row_2]
        s += a * b
    for i in range(3):
        c = A[i]
        s += c * x ** i

CPython's meaning is kept: each iteration binds the targets to the row's items in order, and
after the loop they hold the last row's (an empty table runs no iteration and binds nothing, as
`range(0)` does). Only where that holds: the iterable is a global name (not a local) bound to a
tuple of tuples whose rows all have as many items as there are targets (plain names), `zip` of
such tuples of numbers (as many rows as the shortest, as zip stops) or `enumerate` of one with a
name and a plain name as targets; every column holds numbers of one type (all ints, all floats or
all bools: a row's item is the value the loop binds, never converted). A table is immutable, and
its binding and values are in the cache key (engine/contentkey.py). Anything else is left to the
fence.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable

import libcst as cst

from .namespace import Namespace, is_constant, normalize_constant
from .paths import PathTransformer


class TableRows(PathTransformer):
    """Rewrites `for a, b in TABLE`; `rebuilt` maps each new node to its original."""

    def __init__(self, ns: Namespace, local: set[str], fresh: Callable[[str], str], taken: set[str]) -> None:
        super().__init__()
        self.ns, self.local, self.fresh, self.taken = ns, local, fresh, taken

    def wants(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.For) and self._columns(node) is not None

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        found = self._columns(original)
        if found is None:
            return updated
        index, columns = found
        count = min((len(self._global(c) if isinstance(c, str) else c) for _, c in columns), default=0)  # type: ignore[arg-type]
        if index is None:
            index = self.fresh("row")
        reads = []
        for target, column in columns:
            table = column if isinstance(column, str) else self.ns.define_table(
                f"{self._base(original)}_c{len(reads)}", column, self.taken)
            value = cst.Subscript(cst.Name(table), [cst.SubscriptElement(cst.Index(cst.Name(index)))])
            reads.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))], value)]))
        body = updated.body.body if isinstance(updated.body, cst.IndentedBlock) else [updated.body]
        loop = cst.Call(cst.Name("range"), [cst.Arg(cst.Integer(str(count)))])
        return updated.with_changes(target=cst.Name(index), iter=loop, body=cst.IndentedBlock([*reads, *body]))

    # -- reading -----------------------------------------------------------------------------
    def _columns(self, node: cst.For) -> tuple[str | None, list[tuple[str, tuple | str]]] | None:
        """(the index name the loop binds, or None for a fresh one; each target with its column: the
        values, or the name of a module-level tuple that is one), else None."""
        if node.orelse is not None or node.asynchronous is not None or not isinstance(node.target, cst.Tuple | cst.List):
            return None
        targets = [e.value.value if isinstance(e, cst.Element) and isinstance(e.value, cst.Name) else None
                   for e in node.target.elements]
        if None in targets or not targets:  # (a name twice, `_`: bound in order, the last item wins)
            return None
        it = node.iter
        if isinstance(it, cst.Name):
            rows = self._global(it.value)
            if not isinstance(rows, tuple) or not all(isinstance(r, tuple) and len(r) == len(targets) for r in rows):
                return None
            columns = [tuple(r[k] for r in rows) for k in range(len(targets))] if rows else [() for _ in targets]
            if not all(_homogeneous(c) for c in columns):
                return None
            return None, [(t, normalize_constant(c)) for t, c in zip(targets, columns)]  # type: ignore[misc]
        args = self._builtin_args(it, "zip")
        if args is not None and len(args) == len(targets) and all(self._flat(a) for a in args):
            return None, list(zip(targets, args))  # type: ignore[arg-type]
        args = self._builtin_args(it, "enumerate")
        if args is not None and len(args) == 1 and len(targets) == 2 and self._flat(args[0]):
            return targets[0], [(targets[1], args[0])]  # type: ignore[list-item]
        return None

    def _flat(self, name: str) -> bool:
        value = self._global(name)
        return isinstance(value, tuple) and is_constant(value) and _homogeneous(value) \
            and self.ns.resolve(name).kind == "constant"

    def _global(self, name: str) -> object:
        if name in self.local or self.ns.globals is None:
            return None
        if name not in self.ns.globals:  # a table the front end defined (frontend/sequence_args.py)
            glob = self.ns.resolve(name) if name.startswith("_seq_") and name not in self.ns.links else None
            return glob.value if glob is not None and glob.kind == "constant" else None
        self.ns.resolve(name)  # recorded in `seen`: the code holds while the name is bound to this table
        return self.ns.globals[name]

    def _builtin_args(self, node: cst.BaseExpression, name: str) -> list[str] | None:
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name) \
                or name in self.local or (self.ns.globals is not None and name in self.ns.globals) \
                or getattr(builtins, name, None) is None:
            return None
        if any(a.keyword or a.star or not isinstance(a.value, cst.Name) for a in node.args):
            return None
        return [a.value.value for a in node.args]  # type: ignore[attr-defined]

    def _base(self, node: cst.For) -> str:
        return f"_{node.iter.value.lstrip('_')}" if isinstance(node.iter, cst.Name) else "_rows"  # type: ignore[attr-defined]


def _homogeneous(column: tuple) -> bool:
    """Every item a number of one Python type (a NumPy scalar counts as the number it becomes)."""
    kinds = {type(normalize_constant(v)) for v in column}
    return len(kinds) <= 1 and kinds <= {int, float, bool}
