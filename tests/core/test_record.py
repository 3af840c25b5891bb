"""Options, Global and FunctionSource are immutable records (vectorizer/core/record.py): equal by
value, hashable, and their text forms stable (Options.key() is part of every cache key)."""

from __future__ import annotations

import sys

import pytest

from vectorizer.frontend.namespace import Global
from vectorizer.frontend.source import FunctionSource
from vectorizer.options import Options


def test_options_are_values_with_a_stable_key():
    a, b = Options(backend="numba", reassociate=True), Options(backend="numba", reassociate=True)
    assert a == b and hash(a) == hash(b) and a != Options(backend="numba")
    assert a.key() == (f"backend='numba',compact=True,exact=True,fallback='warn',optimize={bool(sys.flags.optimize)},"
                       "reassociate=True,vector_math=False")
    # exact=False means vector math where it runs, unless turned off (the CLI's standalone modules)
    assert Options(exact=False).vector_math is True and Options(exact=False, vector_math=False).vector_math is False
    assert Options(exact=False).replace(exact=True) == Options()
    with pytest.raises(ValueError, match="needs exact=False"):
        Options(vector_math=True)
    assert Options().optimize is bool(sys.flags.optimize) and Options(optimize=True).optimize is True
    with pytest.raises(AttributeError, match="immutable"):
        a.backend = "numpy"  # type: ignore[misc]
    with pytest.raises(ValueError, match="backend must be one of"):
        Options(backend="cuda")
    with pytest.raises(ValueError, match="fallback must be one of"):
        Options(fallback="ignore")


def test_globals_and_sources_compare_by_value_and_never_as_tuples():
    src = FunctionSource("f", "m.py", "def f(x):\n    return x\n", 3, 4)
    assert src == FunctionSource("f", "m.py", "def f(x):\n    return x\n", 3, 4)
    assert not isinstance(src, tuple)  # a constant's value may be a tuple; a function's never is
    assert src.file_line(2) == "        return x"
    g = Global("function", "f", src)
    assert g == Global("function", "f", src) and g != Global("constant", "f", 1.0)
    assert len({g, Global("function", "f", src)}) == 1
    assert repr(Global("unknown", "np")) == "Global(kind='unknown', name='np', value=None)"
    with pytest.raises(AttributeError):
        del g.kind
