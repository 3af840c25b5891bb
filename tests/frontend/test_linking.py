"""frontend/linking.py on its own: which names of a tree are linked, and that linked nodes keep
their positions (errors point at the user's source)."""

from __future__ import annotations

import importlib
import os
import sys
import textwrap

import libcst as cst

from vectorizer.frontend.linking import Linker
from vectorizer.frontend.namespace import Namespace
from vectorizer.frontend.parse import parse_function
from vectorizer.frontend.source import source_of

OTHER = '''
i = 5
SCALE = 2.0


def g(x):
    total = sum(x * i for i in range(3))
    return total * SCALE + helper(x)


def helper(x):
    return x
'''

USER = '''
from . import other

SCALE = 10
i = 7  # a link of other.i would be renamed: other.g's comprehension variable must not be


def f(x):
    return other.g(x) + other.SCALE * SCALE
'''


def _package(tmp_path):
    name = f"linkpkg_{os.getpid()}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    (tmp_path / name / "other.py").write_text(textwrap.dedent(OTHER))
    (tmp_path / name / "user.py").write_text(textwrap.dedent(USER))
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    return importlib.import_module(f"{name}.user"), importlib.import_module(f"{name}.other")


def test_names_are_linked_to_their_own_module_and_keep_positions(tmp_path):
    user, other = _package(tmp_path)
    try:
        root = Namespace.of_function(user.f)
        linker = Linker(root)
        parsed = parse_function(source_of(user.f))
        linked = linker.link(parsed, root)
        text = cst.Module([linked.func]).code
        assert "return other_g(x) + other_SCALE * SCALE" in text
        assert root.resolve("other_SCALE").value == 2.0 and root.resolve("SCALE").value == 10
        # The linked name sits where `other.g` was in user.py.
        lines = textwrap.dedent(USER).splitlines()
        line = next(k for k, t in enumerate(lines, 1) if "other.g(x)" in t)
        column = lines[line - 1].index("other.g") + 1
        new = [n for n in _walk(linked.func) if isinstance(n, cst.Name) and n.value == "other_g"][0]
        where = linked.location(new)
        assert (where.line, where.column, where.end_column) == (line, column, column + len("other.g")), where

        g = linker.link(parse_function(source_of(other.g)), linker.home(root.resolve("other_g")))
        text = cst.Module([g.func]).code
        assert "for i in range(3)" in text and "x * i" in text  # a comprehension's variable is local
        assert "total * other_SCALE + helper(x)" in text  # `helper` means other.helper, unbound in user
        assert root.resolve("helper").value is other.helper
    finally:
        sys.path.remove(str(tmp_path))


def _walk(node):
    from vectorizer.core.tree import walk

    return walk(node)
