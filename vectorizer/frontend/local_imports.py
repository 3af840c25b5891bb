"""Imports inside a function: each imported name becomes a name of the vectorized function's
namespace that means the same object, and the import statement goes. Before::

    def jd2gcal(jd1, jd2):
        from math import modf
        import math as m
        jd1_f, jd1_i = modf(jd1)
        return m.floor(jd1_f)

After (`math_modf` is a link of the namespace to `math.modf`; `math` already means the math
module there, else a link name does)::

    def jd2gcal(jd1, jd2):
        jd1_f, jd1_i = math_modf(jd1)
        return math.floor(jd1_f)

What an import may bring: the math or numpy module (`import math`, `import numpy as np`), a math
or NumPy function, a number or tuple of numbers, or a Python function of another module (`from
.units import to_radians`), and a module whose attributes the linker reaches (`import units` read
as `units.SCALE`, `units.to_radians(x)`). The import runs here, once, as the function's first
call would run it (a live namespace only; the CLI, which never imports user code, accepts `math`
and `numpy`); what it gave is recorded, so the cache key and the Watch cover it as they cover a
module-level import (frontend/linking.py).

An import qualifies when it is a statement of the function's top level, its name is bound nowhere
else in the function and not read before it: then the name means that object on every path, as
in Python. Anything else is refused here with what stops it (an import under 'if' may leave the
name unbound; `import *` binds unknown names; `os`, `sys`, `time` and `random` are side effects).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import sys
import types

import libcst as cst

from ..core.tree import walk
from ..errors import UnsupportedSyntaxError
from .link_rewrite import relocated
from .linking import Linker, linker_of
from .namespace import ABSENT, SIDE_EFFECT_MODULES, Global, Namespace
from .parse import ParsedFunction
from .reach import attribute, namespace_like

_HINT = "import at module level"


def hoist(parsed: ParsedFunction, root: Namespace, own: Namespace | None = None) -> ParsedFunction:
    """`parsed` (a function of the module `own` resolves; default the root's) without its imports,
    each imported name replaced by the root namespace's name for what it imports."""
    func = parsed.func
    if not any(isinstance(n, cst.Import | cst.ImportFrom) for n in walk(func.body)):
        return parsed
    return _Hoist(parsed, root, own or root).run()


class _Hoist:
    def __init__(self, parsed: ParsedFunction, root: Namespace, own: Namespace) -> None:
        self.parsed, self.root, self.own = parsed, root, own
        self.linker: Linker | None = linker_of(root)
        self.avoid = {n.value for n in walk(parsed.func) if isinstance(n, cst.Name)}
        self.bound: dict[str, tuple[object, str]] = {}  # local name -> (what it imports, spelled)

    def refuse(self, node: cst.CSTNode, message: str, hint: str = _HINT) -> UnsupportedSyntaxError:
        return UnsupportedSyntaxError(message, self.parsed.location(node), hint=hint, construct=type(node).__name__)

    def run(self) -> ParsedFunction:
        func = self.parsed.func
        body = list(func.body.body) if isinstance(func.body, cst.IndentedBlock) else []
        top = {id(small) for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body}
        binds = _binding_counts(func)
        for node in walk(func.body):
            if isinstance(node, cst.Import | cst.ImportFrom) and id(node) not in top:
                raise self.refuse(node, "an import under 'if', 'while' or 'for' may leave its name unbound on some paths",
                                  "import at the top of the function, or at module level")
        for i, stmt in enumerate(body):
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Import | cst.ImportFrom):
                    for name, obj, spelled in self.imported(small):
                        if name in self.bound or binds.get(name, 0) or name in _params(func):
                            raise self.refuse(small, f"{name!r} is bound more than once in this function "
                                              "(by this import and another statement)", "give the imported name its own spelling")
                        if any(_reads(s, name) for s in body[:i]):
                            raise self.refuse(small, f"{name!r} is read before this import binds it", _HINT)
                        self.bound[name] = (obj, spelled)
        replace = _Replace(self)
        new = func.visit(replace)
        return relocated(self.parsed, new, replace.pairs)  # type: ignore[arg-type]

    # -- what an import statement binds --------------------------------------------------------------
    def imported(self, node: cst.Import | cst.ImportFrom) -> list[tuple[str, object, str]]:
        """(local name, the object it is bound to, its dotted spelling) for each alias."""
        out = []
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = _dotted(alias.name)
                if alias.asname is not None:
                    out.append((alias.asname.name.value, self.module(node, dotted), dotted))  # type: ignore[union-attr]
                else:
                    self.module(node, dotted)
                    top = dotted.split(".")[0]
                    out.append((top, self.module(node, top), top))
            return out
        if isinstance(node.names, cst.ImportStar):
            raise self.refuse(node, "'from ... import *' inside a function binds names that cannot be known", _HINT)
        base = ("." * len(node.relative)) + (_dotted(node.module) if node.module is not None else "")
        absolute = self.absolute(node, base)
        module = self.module(node, absolute)
        for alias in node.names:
            attr = alias.name.value  # type: ignore[union-attr]
            obj = attribute(module, attr) if isinstance(module, types.ModuleType) else ABSENT
            if obj is ABSENT:
                obj = self.module(node, f"{absolute}.{attr}")
            elif self.linker is not None:
                self.linker.reads.append((module, attr, obj))  # the Watch checks it still gives this
            name = alias.asname.name.value if alias.asname is not None else attr  # type: ignore[union-attr]
            out.append((name, obj, f"{absolute}.{attr}"))
        return out

    def absolute(self, node: cst.CSTNode, name: str) -> str:
        if not name.startswith("."):
            return name
        package = (self.own.globals or {}).get("__package__") or self.own.module.rpartition(".")[0]
        try:
            return importlib.util.resolve_name(name, package)
        except (ImportError, ValueError) as exc:
            raise self.refuse(node, f"the relative import {name!r} cannot be resolved here ({exc})") from None

    def module(self, node: cst.CSTNode, name: str) -> object:
        reason = SIDE_EFFECT_MODULES.get(name.split(".")[0])
        if reason is not None:
            raise self.refuse(node, f"the import of {name!r}: {reason}", "remove it; a vectorized function computes on numbers")
        if self.linker is None and name.split(".")[0] not in ("math", "numpy"):
            raise self.refuse(node, f"an import of {name!r} inside a function can only be judged by importing it, "
                                    "which reading the source alone does not do (only math and numpy are known)", _HINT)
        try:
            return sys.modules[name] if name in sys.modules else importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - any failure of the import is the user's to see
            raise self.refuse(node, f"importing {name!r} failed here: {type(exc).__name__}: {exc}") from None

    # -- what a use of an imported name becomes -----------------------------------------------------
    def name_for(self, node: cst.CSTNode, obj: object, spelled: str) -> cst.BaseExpression:
        """The root's expression for `obj` (imported as `spelled`)."""
        if obj is math:
            glob = Global("math", "math")
        elif isinstance(obj, types.ModuleType) and obj.__name__ == "numpy":
            if self.linker is not None:
                return cst.Name(self.linker.numpy_base(self.avoid))
            glob = Global("numpy", "numpy")
        elif self.linker is None:  # a name from `from math import x`, judged without a linker
            glob = _math_meaning(obj, spelled)
        else:
            meaning = self.linker.meaning(obj, spelled)
            if isinstance(meaning, tuple):
                return cst.Attribute(cst.Name(self.linker.numpy_base(self.avoid)), cst.Name(meaning[1]))
            glob = meaning if meaning is not None else Global("unknown", spelled)
        if glob.kind == "unknown":
            raise self.refuse(node, f"{spelled!r} is imported here, but it is not a number, a math or NumPy function "
                                    "or a Python function vectorizer can follow", _HINT)
        if self.linker is not None:
            if glob.kind == "math" and self.linker.root_reads("math").kind == "math":
                return cst.Name("math")
            # A dotted spelling: a link name of its own, never a rebinding of the root's plain name.
            dotted = spelled if "." in spelled else f"{spelled}."
            return cst.Name(self.linker.name_for(glob, self.own, dotted, self.avoid))
        return cst.Name(self._static_name(glob, spelled))

    def _static_name(self, glob: Global, spelled: str) -> str:
        preferred = {"math": "math", "numpy": "np"}.get(glob.kind)
        if preferred is not None and self.root.resolve(preferred).kind == glob.kind:
            return preferred
        base = "_".join(p for p in spelled.split(".") if p) or "imported"
        name, n = base, 1
        while name in self.avoid or name in self.root.links or self.root.resolve(name).kind != "unknown":
            n += 1
            name = f"{base}_{n}"
        self.root.links[name] = glob if glob.kind not in ("constant",) else Global("constant", name, glob.value)
        self.avoid.add(name)
        return name

    def chain(self, node: cst.Attribute, obj: object, parts: list[str]) -> cst.BaseExpression:
        """`mod.a[.b]` of an imported module the linker reaches: what the attribute chain gives."""
        spelled = getattr(obj, "__name__", "module")
        for attr in parts:
            if not namespace_like(obj):
                raise self.refuse(node, f"{spelled}.{attr} is read through {spelled}, which is not a module or class "
                                        "vectorizer reads attributes of", _HINT)
            got = attribute(obj, attr)
            if got is ABSENT:
                raise self.refuse(node, f"{spelled}.{attr} is not a plain value of that module here", _HINT)
            if self.linker is not None:
                self.linker.reads.append((obj, attr, got))
            obj, spelled = got, f"{spelled}.{attr}"
        return self.name_for(node, obj, spelled)


class _Replace(cst.CSTTransformer):
    """Drops the hoisted imports and replaces each use of an imported name."""

    def __init__(self, hoist: _Hoist) -> None:
        self.h = hoist
        self.pairs: dict[cst.CSTNode, cst.CSTNode] = {}
        self.skip: set[int] = set()
        self.outer: set[int] = set()

    def on_leave(self, original, updated):
        new = super().on_leave(original, updated)
        if isinstance(new, cst.CSTNode) and new is not original:
            self.pairs[new] = original
        return new

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        root = _root(node)
        if root is not None and _other_module(self.h.bound.get(root.value, (None,))[0]):
            self.outer.add(id(node))  # a chain on an imported module: replaced whole (leave_Attribute)
            return False
        self.skip.add(id(node.attr))
        return True

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
        return True

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        kept = [s for s in updated.body if not isinstance(s, cst.Import | cst.ImportFrom)]
        if len(kept) == len(updated.body):
            return updated
        return updated.with_changes(body=kept) if kept else cst.RemoveFromParent()

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if id(original) not in self.outer:
            return updated
        parts: list[str] = []
        node: cst.BaseExpression = original
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        obj, _ = self.h.bound[node.value]  # type: ignore[attr-defined]
        return self.h.chain(original, obj, list(reversed(parts)))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if id(original) in self.skip or original.value not in self.h.bound:
            return updated
        obj, spelled = self.h.bound[original.value]
        if _other_module(obj):
            raise self.h.refuse(original, f"the module {spelled!r} imported here can only be read as {original.value}.<name>",
                                _HINT)
        return self.h.name_for(original, obj, spelled)


def _root(node: cst.Attribute) -> cst.Name | None:
    value: cst.BaseExpression = node
    while isinstance(value, cst.Attribute):
        value = value.value
    return value if isinstance(value, cst.Name) else None


def _other_module(obj: object) -> bool:
    """A module other than math and numpy: read through attribute chains."""
    return isinstance(obj, types.ModuleType) and obj is not math and obj.__name__ != "numpy"


def _math_meaning(obj: object, spelled: str) -> Global:
    if isinstance(obj, types.BuiltinFunctionType) and getattr(math, obj.__name__, None) is obj:
        return Global("math_func", f"math.{obj.__name__}")
    if type(obj) is float and spelled.startswith("math."):
        return Global("constant", spelled, obj)
    return Global("unknown", spelled)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return node.value  # type: ignore[attr-defined]


def _params(func: cst.FunctionDef) -> set[str]:
    p = func.params
    return {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _binding_counts(func: cst.FunctionDef) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in walk(func.body):
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign | cst.For | cst.NamedExpr | cst.CompFor):
            for n in walk(node.target):
                if isinstance(n, cst.Name):
                    counts[n.value] = counts.get(n.value, 0) + 1
    return counts


def _reads(stmt: cst.CSTNode, name: str) -> bool:
    """`stmt` reads `name` (the module paths of import statements are no reads)."""
    if isinstance(stmt, cst.Import | cst.ImportFrom):
        return False
    if isinstance(stmt, cst.Name):
        return stmt.value == name
    return any(_reads(child, name) for child in stmt.children)
