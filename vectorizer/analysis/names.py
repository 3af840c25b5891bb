"""Fresh, readable, collision-free names for the variables the passes introduce, and the user's
words for them in a refusal.

Stems in use (the generated code reads better when they mean the same thing everywhere):

    ret, ret_1   the function's result (early_returns)       done   lanes that have returned
    brk, cont    lanes that broke / continued this iteration  active lanes still in a masked loop
    m, m_1       the lanes of a branch (if_to_select)         flag   lanes to re-run (flag and patch)
    t, t_1       temporaries for operands used twice          k      counters of lowered for-loops

A name the namer hands out never reaches a user-facing message as it is (`in_users_words`): a
refusal raised by a pass that names one says the user's own name instead (`i___27`, a copy of
the helper's `i__` made by inlining, is `i__`), and one that names a name the compiler made up
(`m_3`), or that says a name is used before it is assigned (the user's tree passed that check
before any pass ran), is a vectorizer bug (VEC-BUG), not the user's code.
"""

from __future__ import annotations

import builtins
import re

import libcst as cst

from ..core.tree import walk
from ..errors import VectorizeError, VectorizeErrorGroup

# Names generated code refers to at module level; a fresh name must never shadow them.
RESERVED = frozenset({"np", "math"}) | frozenset(dir(builtins))
_QUOTED = re.compile(r"'([A-Za-z_][A-Za-z0-9_]*)'")
# What only a pass's own mistake can make its analysis say (the user's tree was checked first).
_PASS_BUGS = ("is used before it is assigned", "may be unbound here")


class Namer:
    """Hands out names not used anywhere in the function (or by the generated module)."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken: set[str] = set(RESERVED) | set(taken or ())
        self.user: set[str] = set(taken or ()) - RESERVED  # the names of the user's own code
        self.stems: dict[str, str] = {}  # each name handed out -> the stem it was made from

    def reserve(self, *names: str) -> None:
        self.taken.update(names)

    def add_user(self, *names: str) -> None:
        """Names of the user's code (a callee's locals): never handed out, kept in messages."""
        self.taken.update(names)
        self.user.update(n for n in names if n not in RESERVED)

    def fresh(self, stem: str) -> str:
        name, i = stem, 0
        while name in self.taken:
            i += 1
            name = f"{stem}_{i}"
        self.taken.add(name)
        self.stems[name] = stem
        return name

    def users_name(self, name: str) -> str | None:
        """The user's name a handed-out name stands for (its stems followed back), or None for a
        name the compiler made up (`m`, `ret_2`)."""
        seen = set()
        while name in self.stems and name not in seen:
            seen.add(name)
            stem = self.stems[name]
            if stem == name:
                break
            name = stem
        return name if name in self.user else None

    @classmethod
    def for_tree(cls, tree: cst.CSTNode) -> Namer:
        return cls({n.value for n in walk(tree) if type(n) is cst.Name})


def in_users_words(exc: VectorizeError, namer: Namer, function: str) -> VectorizeError:
    """`exc`, raised by a pass, as the user may read it: each name the namer handed out replaced
    by the user's name it copies; a vectorizer bug (VEC-BUG) if it names a name the compiler made
    up, or says what only a pass's mistake can make true. `exc` itself when it needs neither."""
    if isinstance(exc, VectorizeErrorGroup):
        errors = [in_users_words(e, namer, function) for e in exc.errors]
        if all(a is b for a, b in zip(errors, exc.errors)):
            return exc
        bugs = [e for e in errors if e.code == "VEC-BUG"]
        return bugs[0] if bugs else _renewed(VectorizeErrorGroup(errors), exc)
    mapping: dict[str, str] = {}
    bug = any(text in exc.message for text in _PASS_BUGS)
    for name in _QUOTED.findall(exc.message):
        if name in namer.stems and name not in namer.user:
            users = namer.users_name(name)
            if users is None:
                bug = True
            else:
                mapping[name] = users
    if not mapping and not bug:
        return exc
    message = _QUOTED.sub(lambda m: f"'{mapping.get(m[1], m[1])}'", exc.message)
    if bug:
        return _renewed(VectorizeError(
            f"a vectorizer bug while transforming {function}: {message}", exc.location,
            hint="the function runs element by element meanwhile; please report it with its source "
                 "(VECTORIZER_DUMP_AFTER=all shows each pass's output)", code="VEC-BUG"), exc)
    return _renewed(type(exc)(message, exc.location, hint=exc.hint, construct=exc.construct, code=exc.code), exc)


def _renewed(new: VectorizeError, old: VectorizeError) -> VectorizeError:
    for note in getattr(old, "__notes__", ()):
        new.add_note(note)
    return new
