"""Values the cache key and the kind checks meet in real code (the second corpus's CRASH rows):
a module-level callable instance, which holds itself as its __call__'s self, and a class that
refuses isinstance checks (a TypedDict), an object whose __getattr__ raises (pygeodesy's lazy
module proxy: AssertionError). Each is a refusal or code, never a raw exception."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from oracle import check

from vectorizer import VectorizeError, vectorize

BACKENDS = ["numpy", "numba"]

MODULE = textwrap.dedent('''
    import math
    from typing import TypedDict


    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k


    SCALE = Scale(2.0)


    class Options(TypedDict):
        k: float


    def through_instance(x):
        return math.sqrt(SCALE(x)) + 1.0


    class Lazy:
        def __getattr__(self, name):
            raise AssertionError("a lazy import that is not ready")


    LAZY = Lazy()


    def through_lazy(x):
        return LAZY.k * x


    def typed_dict_check(x):
        if isinstance(x, Options):
            return 0.0
        return x + 1.0
''')


@pytest.fixture(scope="module")
def mod(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cycles")
    (folder / "vz_cycles_mod.py").write_text(MODULE)
    sys.path.insert(0, str(folder))
    try:
        import vz_cycles_mod
        yield vz_cycles_mod
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("vz_cycles_mod", None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_level_callable_instance_is_keyed_without_endless_recursion(mod, backend):
    vf = vectorize(mod.through_instance, backend=backend, fallback="error")  # was a RecursionError
    check(vf, mod.through_instance, np.array([4.0, 0.0, -0.0, 2.5, np.inf, np.nan, -1.0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_class_that_refuses_isinstance_is_a_refusal_or_code_never_a_typeerror(mod, backend):
    with pytest.raises(VectorizeError, match="isinstance"):
        vectorize(mod.typed_dict_check, backend=backend, fallback="error")(np.array([1.0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_object_whose_getattr_raises_is_a_refusal_naming_it(mod, backend):
    with pytest.raises(VectorizeError, match="LAZY"):  # was the proxy's AssertionError, at decoration
        vectorize(mod.through_lazy, backend=backend, fallback="error")(np.array([1.0]))
