"""Fresh, readable, collision-free names for the variables the passes introduce.

Stems in use (the generated code reads better when they mean the same thing everywhere):

    ret, ret_1   the function's result (early_returns)       done   lanes that have returned
    brk, cont    lanes that broke / continued this iteration  active lanes still in a masked loop
    m, m_1       the lanes of a branch (if_to_select)         flag   lanes to re-run (flag and patch)
    t, t_1       temporaries for operands used twice          k      counters of lowered for-loops
"""

from __future__ import annotations

import builtins

import libcst as cst

from ..core.tree import walk

# Names generated code refers to at module level; a fresh name must never shadow them.
RESERVED = frozenset({"np", "math"}) | frozenset(dir(builtins))


class Namer:
    """Hands out names not used anywhere in the function (or by the generated module)."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken: set[str] = set(RESERVED) | set(taken or ())

    def reserve(self, *names: str) -> None:
        self.taken.update(names)

    def fresh(self, stem: str) -> str:
        name, i = stem, 0
        while name in self.taken:
            i += 1
            name = f"{stem}_{i}"
        self.taken.add(name)
        return name

    @classmethod
    def for_tree(cls, tree: cst.CSTNode) -> Namer:
        return cls({n.value for n in walk(tree) if type(n) is cst.Name})
