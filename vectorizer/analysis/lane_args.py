"""Which parameters hold, on every lane, the very float object the vectorized function's argument
got (issue 51): what `x is NAN` is decided from (frontend/static_checks.py, `fresh`).

A lane of a float argument reaches the scalar function as a float made for that call (the
oracle's `.item()`), never an object that existed before it: `x is G`, for any object G a
module binds, is False. Python passes objects, not copies, so a callee's parameter holds that
same object when the call's argument is the name of such a parameter of the caller, no
assignment to which may have run at the call (frontend/kind_points.py); anything else (an
expression, a local, a parameter that may be assigned) is not known to be one, and the check is
not decided there (it is refused where it is, never guessed).

Before (the vectorized `acos1(x)`, x a float argument; `_isNAN` a callee)::

    def acos1(x):                          def _isNAN(x):
        return acos(x) if _abs1nan(x) ...      return (x is NAN) or isnan(x)

After: `x` is a lane of both `acos1` and the `_abs1nan` it calls with `x`, and of the
`_isNAN` that one calls with `x`, whose `x is NAN` is False (passes/specialize.py with the kind
"float" for `x`). A function's tree may serve several calls: what each call's arguments are is
the intersection over the trees' registrations (a lane only where every caller passes one).
"""

from __future__ import annotations

import libcst as cst

from ..core.binding import bound_names
from ..core.tree import walk
from ..frontend.kind_points import reassigned_at


class LaneArgs:
    """Call node -> the caller's parameter names that hold a lane's own float object there."""

    def __init__(self) -> None:
        self.at_call: dict[cst.Call, frozenset[str]] = {}
        self.by_key: dict[tuple, frozenset[str]] = {}  # the analysis's answers by callee and kinds
        # per function analysed (kept alive here, so its id stays its own): its calls and the names
        # each may see reassigned; and the (function, lanes) already registered. The analysis
        # registers a callee at each of its calls (thousands in a big module): once is enough
        self._calls: dict[int, tuple[cst.FunctionDef, list[tuple[cst.Call, frozenset[str]]]]] = {}
        self._registered: set[tuple[int, frozenset[str]]] = set()

    def register(self, func: cst.FunctionDef, lanes: frozenset[str]) -> None:
        """`func` runs with `lanes` (its parameters that hold a lane's float object on entry)."""
        if (id(func), lanes) in self._registered:
            return  # the intersections below would not change
        self._registered.add((id(func), lanes))
        for node, assigned in self._calls_of(func):
            here = lanes - assigned
            old = self.at_call.get(node)
            self.at_call[node] = here if old is None else old & here

    def _calls_of(self, func: cst.FunctionDef) -> list[tuple[cst.Call, frozenset[str]]]:
        """Each call of `func` and the names that may have been assigned when it runs."""
        entry = self._calls.get(id(func))
        if entry is None or entry[0] is not func:
            points = reassigned_at(func)
            every = frozenset(bound_names(func.body))
            calls = [(node, points.get(node, every)) for node in walk(func.body) if isinstance(node, cst.Call)]
            entry = self._calls[id(func)] = (func, calls)
        return entry[1]

    def of_call(self, func: cst.FunctionDef, node: cst.Call | None, key: tuple, floats: set[str],
                lowering: bool) -> frozenset[str]:
        """The parameters (among `floats`) of the callee `func` that the call `node` gives a lane's
        float object. `key`: the callee and its other argument kinds. The analysis's calls are
        remembered by key (the intersection of their answers); a pass's call of a tree made by
        the passes (`lowering`, its node not registered) is one of them: it gets that answer."""
        if lowering and node not in self.at_call:
            return self.by_key.get(key, frozenset())
        found = self._arguments(func, node) & floats
        if not lowering:
            self.by_key[key] = self.by_key.get(key, found) & found
        return found

    def _arguments(self, func: cst.FunctionDef, node: cst.Call | None) -> frozenset[str]:
        caller = self.at_call.get(node, frozenset()) if node is not None else frozenset()
        if not caller:
            return frozenset()
        params = func.params
        positional = [p.name.value for p in (*params.posonly_params, *params.params)]
        names = {*positional, *(p.name.value for p in params.kwonly_params)}
        out: set[str] = set()
        for i, arg in enumerate(node.args):  # type: ignore[union-attr]
            if arg.star:
                break
            name = arg.keyword.value if arg.keyword is not None else positional[i] if i < len(positional) else None
            if name in names and isinstance(arg.value, cst.Name) and arg.value.value in caller:
                out.add(name)  # type: ignore[arg-type]
        return frozenset(out)
