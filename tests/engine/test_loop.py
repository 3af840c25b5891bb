"""The element-by-element path (engine/loop.py, engine/results.py) against the loop it stands for.

Two ways in, both real: a function whose source cannot be read (defined by `exec` of a text no
file or linecache holds), which the default fallback="warn" runs lane by lane, and
VECTORIZER_DISABLE=1. The oracle is tests/oracle.py's: the scalar function on each lane's Python
values, values and exceptions (the first failing lane's, with a note naming it), on hostile
inputs (nan, +-inf, -0.0, subnormals, ints near 2**63) of arrays and scalars that broadcast.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import check
from strategies import SPECIAL_FLOATS, SPECIAL_INTS, floats, ints

from vectorizer import (
    FallbackWarning,
    VectorizeOverflowError,
    VectorizeValueError,
    vectorize,
)
from vectorizer.engine.loop import LOOP_BLOCK

SOURCES = {
    "branchy": "def f(x):\n    return x * 2.0 + 1.0 if x > 0.5 else -x\n",
    "raises": "def f(x, y):\n    if x < y:\n        raise ValueError(f'{x!r} < {y!r}')\n    return math.sqrt(x - y)\n",
    "divide": "def f(a, b):\n    return a / b\n",
    "floor": "def f(a, b):\n    return a // b\n",
    "mixed": "def f(x, n):\n    if n > 3:\n        return n * 2\n    return x * n\n",
    "product": "def f(n, m):\n    return n * m\n",
    "compare": "def f(x, y):\n    return x > y\n",
    "pair": "def f(x, y):\n    return x + y, x > y\n",
    "keyword": "def f(x, *, k):\n    return x * k - 1\n",
    "four": "def f(a, n, c, d):\n    return (a + c) * d if n > 0 else a - c\n",
    "exp": "def f(x):\n    return math.exp(x)\n",
    "stop": "def f(x):\n    if x > 1.0:\n        raise StopIteration(x)\n    return x\n",
}
ARITY = {"branchy": 1, "exp": 1, "stop": 1, "four": 4}


def sourceless(name: str):
    """The function of SOURCES[name], defined where its source cannot be read."""
    namespace = {"math": math}
    exec(compile(SOURCES[name], f"<no source {name}>", "exec"), namespace)  # noqa: S102 - the test's own text
    return namespace["f"]


@pytest.fixture(params=["refused", "disabled"])
def way(request, monkeypatch):
    if request.param == "disabled":
        monkeypatch.setenv("VECTORIZER_DISABLE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)
        yield request.param


def numbers() -> st.SearchStrategy:
    return st.one_of(floats(), ints(), st.booleans(), st.sampled_from(SPECIAL_FLOATS + SPECIAL_INTS))


@st.composite
def arguments(draw, count: int):
    """`count` arguments over lanes of shape (m, n): arrays of (m, n), (n,), (m, 1) or (),
    Python numbers; each array of one kind (float, int or bool), hostile values."""
    m, n = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    out = []
    for _ in range(count):
        form = draw(st.sampled_from(["full", "row", "column", "zero-d", "python"]))
        kind = draw(st.sampled_from(["float", "int", "bool"]))
        element = {"float": floats(), "int": ints(), "bool": st.booleans()}[kind]
        dtype = {"float": np.float64, "int": np.int64, "bool": np.bool_}[kind]
        shape = {"full": (m, n), "row": (n,), "column": (m, 1), "zero-d": (), "python": ()}[form]
        values = draw(st.lists(element, min_size=math.prod(shape), max_size=math.prod(shape)))
        out.append(values[0] if form == "python" else np.array(values, dtype=dtype).reshape(shape))
    return out


@pytest.mark.parametrize("name", sorted(SOURCES))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_path_gives_what_the_loop_gives(way, name, data):
    f = sourceless(name)
    args = data.draw(arguments(ARITY.get(name, 2)))
    if name == "keyword":  # k by name, as the loop `f(x, k=k)` passes it
        vf = vectorize(f)
        check(lambda x, k: vf(x, k=k), lambda x, k: f(x, k=k), *args)
        return
    check(vectorize(f), f, *args)


def test_every_lane_is_called_once_in_c_order_with_python_values(way):
    seen = []
    namespace = {"seen": seen}
    exec(compile("def f(x, n, b):\n    seen.append((x, n, b))\n    return x\n", "<no source seen>", "exec"), namespace)  # noqa: S102
    x = np.array([[0.5, -0.0], [np.nan, 3.0]])
    n = np.array([1, 2**62])
    vectorize(namespace["f"])(x, n, True)
    lanes = list(zip(x.ravel().tolist(), np.broadcast_to(n, (2, 2)).ravel().tolist(), [True] * 4))
    assert [tuple(map(type, s)) for s in seen] == [(float, int, bool)] * 4
    assert repr(seen) == repr(lanes)  # nan and -0.0 as the loop passes them, each lane once


def test_the_first_raising_lane_raises_with_its_note(way):
    f = sourceless("raises")
    x = np.array([[5.0, 4.0, 1.0], [0.0, 9.0, -1.0]])
    with pytest.raises(ValueError) as info:
        vectorize(f)(x, 2.0)
    assert str(info.value) == "1.0 < 2.0"  # lane (0, 2), the first in C order: not (1, 0) or (1, 2)
    notes = " ".join(info.value.__notes__)
    assert "lane (0, 2) of (2, 3)" in notes and "x=1.0" in notes and "y=2.0" in notes


@pytest.mark.parametrize("at", [0, LOOP_BLOCK - 1, LOOP_BLOCK, 2 * LOOP_BLOCK + 3])
def test_lanes_are_counted_across_blocks(way, at):
    f = sourceless("divide")
    b = np.ones(2 * LOOP_BLOCK + 5)
    b[at] = 0.0
    b[-1] = 0.0  # a later lane that would raise too
    with pytest.raises(ZeroDivisionError) as info:
        vectorize(f)(np.arange(b.size, dtype=np.float64), b)
    assert f"lane ({at},)" in " ".join(info.value.__notes__)


def test_stop_iteration_on_a_lane_propagates_as_the_loop_propagates_it(way):
    f = sourceless("stop")
    x = np.zeros(3 * LOOP_BLOCK)
    x[LOOP_BLOCK + 7] = 2.0  # map would end its iteration quietly there: no lane may be dropped
    with pytest.raises(StopIteration) as info:
        vectorize(f)(x)
    assert info.value.args == (2.0,) and f"lane ({LOOP_BLOCK + 7},)" in " ".join(info.value.__notes__)
    check(vectorize(f), f, np.array([0.5, 1.0, -3.0]))


def test_a_change_of_kind_in_a_later_block(way):
    n = 2 * LOOP_BLOCK + 9
    lanes = np.arange(n)
    mixed = sourceless("mixed")  # floats, then an int on a later lane
    x, k = np.full(n, -0.0), np.zeros(n, dtype=np.int64)
    k[LOOP_BLOCK + 1] = 2**52 + 5  # n * 2: exact in float64
    got = vectorize(mixed)(x, k)
    assert got.dtype == np.float64 and got[LOOP_BLOCK + 1] == 2**53 + 10
    assert all(math.copysign(1.0, v) == -1.0 for v in got[lanes != LOOP_BLOCK + 1])  # -0.0 * 0 kept
    k[2 * LOOP_BLOCK + 2] = 2**60 + 1  # n * 2 = 2**61 + 2: no float64 holds it
    with pytest.raises(VectorizeOverflowError, match=rf"lane \({2 * LOOP_BLOCK + 2},\)"):
        vectorize(mixed)(x, k)
    product = sourceless("product")  # ints, then one beyond int64 in a later block
    m = np.ones(n, dtype=np.int64)
    m[LOOP_BLOCK + 3] = 2**62
    with pytest.raises(VectorizeOverflowError, match=rf"{2**63} on lane \({LOOP_BLOCK + 3},\)"):
        vectorize(product)(m, 2)
    compare = sourceless("compare")  # bools: a bool array
    assert vectorize(compare)(np.arange(n, dtype=np.float64), 5.0).dtype == np.bool_


# -- what the loop returns when it is not a number -------------------------------------------------

OBJECTS = {
    "none_first": "def f(x):\n    if x > 0:\n        return x\n",
    "label": "def f(x):\n    return 'neg' if x < 0 else 'pos'\n",
    "labels": "def f(x):\n    return 'n' if x < 0 else 'positive'\n",
    "fraction": "def f(x):\n    return Fraction(x).limit_denominator(7)\n",
    "half": "def f(x):\n    return (x, 'big' if x > 1 else 'small')\n",
}


def objects(name: str):
    from fractions import Fraction

    namespace = {"Fraction": Fraction}
    exec(compile(OBJECTS[name], f"<no source {name}>", "exec"), namespace)  # noqa: S102
    return namespace["f"]


def loop(f, *args):
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    return [f(*t) for t in zip(*[np.broadcast_to(a, shape).ravel().tolist() for a in args])]


def test_none_on_some_lanes_is_an_object_array_never_nan(way):
    f = objects("none_first")
    x = np.array([-1.0, 2.5, 0.0, 4.0])
    got = vectorize(f)(x)
    assert got.dtype == object and got.tolist() == loop(f, x) == [None, 2.5, None, 4.0]
    expected = np.vectorize(f)(x)  # its first value is None: an object array, the same
    assert expected.dtype == object and expected.tolist() == got.tolist()
    later = vectorize(f)(x[::-1])  # a number first: numpy.vectorize turns the None lanes into nan
    assert later.dtype == object and later.tolist() == [4.0, None, 2.5, None]
    assert np.isnan(np.vectorize(f)(x[::-1])[1])


def test_strings_are_a_str_array_as_numpy_vectorize_gives(way):
    x = np.array([[-1.0, 2.0], [0.0, -0.0]])
    same = objects("label")
    got = vectorize(same)(x)
    assert got.dtype == np.vectorize(same)(x).dtype == np.dtype("<U3")
    assert (got == np.vectorize(same)(x)).all() and got.tolist() == np.reshape(loop(same, x), (2, 2)).tolist()
    longer = objects("labels")  # strings of other lengths: as long as the longest
    assert vectorize(longer)(x).tolist() == np.vectorize(longer)(x).tolist() == [["n", "positive"], ["positive", "positive"]]


def test_objects_keep_their_values_and_tuples_split(way):
    f = objects("fraction")
    x = np.array([0.5, 1 / 3, 2.0])
    got = vectorize(f)(x)
    assert got.dtype == object and got.tolist() == loop(f, x)  # Fractions, never floats
    pair = objects("half")
    a, b = vectorize(pair)(x)
    assert a.dtype == np.float64 and a.tolist() == x.tolist() and b.tolist() == ["small", "small", "big"]


def test_complex_and_uneven_tuples_are_refused_naming_the_lane(way):
    namespace = {}
    exec(compile("def c(x):\n    return complex(x, 1) if x > 1 else x\n"  # noqa: S102
                 "def t(x):\n    return (x, x) if x > 1 else (x,)\n", "<no source ct>", "exec"), namespace)
    with pytest.raises(VectorizeValueError, match=r"complex number .* on lane \(1,\)"):
        vectorize(namespace["c"])(np.array([0.5, 2.0]))
    with pytest.raises(VectorizeValueError, match=r"tuple of 1 on lane \(0,\) but a tuple of 2 on lane \(2,\)"):
        vectorize(namespace["t"])(np.array([0.5, 1.0, 2.0]))


def test_one_value_per_call_on_scalars(way):
    assert vectorize(objects("label"))(-2.0) == "neg"
    assert vectorize(objects("none_first"))(-2.0) is None
    got = vectorize(sourceless("branchy"))(0.75)
    assert isinstance(got, np.float64) and got == 2.5


def test_a_default_option_is_passed_as_the_loop_passes_it(way):
    """A tuple option left at its default (or given as that same object) is the default the
    function itself takes: the loop calls the function with the numbers alone (engine/lanefn.py);
    any other tuple, or one of a keyword-only parameter, goes through a lane function binding it."""
    from vectorizer.engine.lanefn import lane_function

    namespace = {}
    exec(compile("def f(n, tb=(3, 5, 7)):\n    for p in tb:\n        if n % p == 0:\n"  # noqa: S102 - no source
                 "            return n == p\n    return n > 1\n"
                 "def g(n, *, tb=(3, 5)):\n    return n % tb[0] == 0\n", "<no source tb>", "exec"), namespace)
    f, g = namespace["f"], namespace["g"]
    tb = f.__defaults__[0]
    assert lane_function(f, {"tb": tb}) is f and lane_function(f, {}) is f
    assert lane_function(f, {"tb": (3, 5, 7)}) is not f and lane_function(g, {"tb": g.__kwdefaults__["tb"]}) is not g
    n = np.arange(-3, 2 * LOOP_BLOCK + 40)
    assert vectorize(f)(n).tolist() == [f(v) for v in n.tolist()]
    assert vectorize(f)(n, tb).tolist() == [f(v, tb) for v in n.tolist()]
    assert vectorize(f)(n, (2,)).tolist() == [f(v, (2,)) for v in n.tolist()]
    assert vectorize(g)(n[:50], tb=(7, 1)).tolist() == [g(v, tb=(7, 1)) for v in n[:50].tolist()]
    f.__defaults__ = ((11,),)  # a new default: the next call takes it, as the loop does
    assert vectorize(f)(n).tolist() == [f(v) for v in n.tolist()]


@pytest.mark.parametrize("kinds", ["bool_int", "int_float", "tuples", "tuple_kinds"])
def test_kinds_mixed_within_and_across_blocks(way, kinds):
    """The result's kind is that of every lane's value together, however they fall in blocks:
    mostly one type with a few others (sampled or not), one type a block then another."""
    namespace = {}
    exec(compile("def bool_int(x):\n    return x > 0.5 if x < 0.9 else int(x * 10)\n"  # noqa: S102 - no source
                 "def int_float(x):\n    return 1 if x < 0.995 else x * 2.0\n"
                 "def tuples(x):\n    return (0, 1) if x < 0.99 else (x, 2.5)\n"
                 "def tuple_kinds(x):\n    return (x > 0.5, 3) if x < 0.5 else (True, 4)\n", "<no source kinds>", "exec"),
         namespace)
    f = namespace[kinds]
    x = np.random.default_rng(7).random(2 * LOOP_BLOCK + 11)
    x[LOOP_BLOCK:] = np.sort(x[LOOP_BLOCK:])  # the later blocks: one kind, then the other
    check(vectorize(f), f, x)
    check(vectorize(f), f, x[:300])
    check(vectorize(f), f, np.sort(x)[::-1].copy())


def test_a_tuple_option_is_keyed_by_its_values_and_their_types_every_call():
    """A tuple option's key is remembered by identity (engine/statics.py): equal tuples of other
    types (1 == 1.0 == True) keep their own keys, and a new tuple is keyed afresh."""
    from vectorizer.engine.statics import static_key

    ints, floats = (1, 2, 3), (1.0, 2.0, 3.0)
    assert ints == floats and hash(ints) == hash(floats)
    assert static_key(ints) == static_key(ints) == "tuple(int:1,int:2,int:3)"
    assert static_key(floats) == "tuple(float:1.0,float:2.0,float:3.0)"
    assert static_key((True, 2, 3)) == "tuple(bool:True,int:2,int:3)"
    for k in range(300):  # more tuples than it keeps, each its own key
        assert static_key(tuple(range(k % 5)) + (float(k),)) == f"tuple({''.join(f'int:{i},' for i in range(k % 5))}float:{float(k)!r})"


def test_a_tuple_refused_at_two_positions_names_the_first_lane(way):
    # position 1 overflows int64 on lane 1 (2**63), position 0 on lane 2: the loop meets lane 1
    # first (engine/results.py converted position 0 first and named lane 2)
    namespace: dict = {}
    exec(compile("def f(x, y):\n    return (x * y, 0) if x > y else (0, y - x)\n", "<no source tuple>", "exec"), namespace)  # noqa: S102
    f = namespace["f"]
    check(vectorize(f), f, np.array([0, -9223372033817775308, 3037000501]), 3037000500)
    check(vectorize(f), f, np.array([0, 3037000501, -9223372033817775308]), 3037000500)
    check(vectorize(f), f, np.array([[3037000501], [-9223372033817775308]]), np.array([3037000500, 0]))
