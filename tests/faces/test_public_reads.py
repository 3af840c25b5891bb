"""What other modules read of a vectorized function, and the typed values that replaced strings
(issue 54): VectorizedFunction's read API (api.py), the result kinds a module declares
(core/types.py `ResultKind`), and the names generated code reads, from its tree
(codegen/emit.py `code_names`), which decide the helpers a Numba module carries."""

from __future__ import annotations

import importlib.util
import textwrap

import numpy as np
import pytest

from vectorizer import vectorize
from vectorizer.codegen.emit import code_names, declared
from vectorizer.codegen.numba_helpers import helper_source
from vectorizer.core.types import FLOAT, INT, ArrayType, ResultKind, Val
from vectorizer.engine.kernels import Kernel
from vectorizer.errors import VectorizeError

SOURCE = textwrap.dedent('''\
    def scaled(x: float, y: float) -> float:
        if x > 0.0:
            return x * y
        return y


    def stepping(x: float) -> float:
        yield x
''')


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "public_reads.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("public_reads", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def test_the_read_api_follows_the_calls(module):
    vf = vectorize(module.scaled, backend="numpy")
    assert vf.parameter_names == ("x", "y") and vf.variadic == ()
    assert vf.last_key is None and vf.last_verdict() is None
    annotated = vf.specialization()  # no call yet: the annotations' key, every argument batched
    assert [(n, v.type, v.batched) for n, v in annotated.params().items()] == [("x", FLOAT, True), ("y", FLOAT, True)]
    out = vf(np.array([1.0, -2.0]), 3.0)
    assert out.tolist() == [3.0, 3.0]
    key = vf.last_key
    assert key is not None and isinstance(vf.last_verdict(), Kernel)
    made = vf.specialization(key)
    assert made.key == key and made.fixed == {} and made.helpers == {}
    assert [v.batched for v in made.params().values()] == [True, False]  # y: one value for every lane
    assert vf.route(key) == "numpy"
    generated = vf.generated(key, "numpy")
    assert isinstance(generated, Kernel) and "def scaled" in generated.source
    assert vf.refusal() is None
    vf.forget_last_call()
    assert vf.last_key is None and vf.last_verdict() is None


def test_a_refused_function_says_why(module):
    vf = vectorize(module.stepping, backend="numpy")
    refusal = vf.refusal()
    assert isinstance(refusal, VectorizeError) and refusal.location is not None
    assert vf.refusal() is refusal  # looked at once per generation of the module's globals


@pytest.mark.parametrize("text", ["float", "int", "bool", "num", "float:1:b", "int:2:u"])
def test_result_kinds_round_trip_through_the_declared_text(text):
    assert ResultKind.parse(text).text == text


def test_result_kinds_of_values_as_the_analysis_types_them():
    kinds = (ResultKind.of(Val(INT, True)), ResultKind.of(Val(ArrayType(FLOAT, (3,)), True)),
             ResultKind.of(Val(ArrayType(FLOAT, (2, 2)), False)))
    assert kinds == (ResultKind(INT), ResultKind(FLOAT, 1, True), ResultKind(FLOAT, 2, False))
    assert declared(kinds) == "VECTORIZER_RESULT = ('int', 'float:1:b', 'float:2:u')"


def test_what_code_reads_and_calls_comes_from_its_tree_not_its_comments():
    lanes = textwrap.dedent('''\
        def _lane_f(x):
            # line 3: y = math.pow(x, 2) - a comment quoting _vz_pow(x) and _vz_lm.exp
            return _vz_hypot(x, math.pi)
    ''')
    names = code_names(lanes)
    assert names.called == {"_vz_hypot"} and {"math", "_vz_hypot", "x"} <= names.read
    assert "_vz_pow" not in names.read and "_vz_lm" not in names.read
    helpers = helper_source(lanes)
    assert "def _vz_hypot" in helpers and "_vz_pow" not in helpers  # only the helper the code calls
