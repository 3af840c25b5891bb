"""Recursion, self and mutual (analysis/recursion.py, passes/cut_recursion.py): the lanes that
reach a recursive call are flagged and re-run by the scalar function (its value, or its
exception, RecursionError included); the lanes that end in a base case are computed batched.
A recursive call is first lowered as a call of a copy of the function, whose own recursive calls
are cut (two levels; `Context.unroll`): lanes whose recursion ends a level deep are batched too.
Both backends, against the scalar oracle, with hostile inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check
from passcase import UI, I, after, body
from strategies import floats, ints

from vectorizer import VectorizeError, vectorize
from vectorizer.passes import cut_recursion

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]


@pytest.fixture
def cut_at_once(monkeypatch):
    """Every recursive call cut where it is (unroll 1): the cut's own forms, as the deepest copy
    of an unrolled function has them."""
    targets = cut_recursion.targets
    monkeypatch.setattr(cut_recursion, "targets", lambda chain, unroll, callees=True, linear=None: targets(chain, 1))
NEAR_MAX = [0, 1, -1, 2**63 - 1, -(2**63), 2**62 + 1, -(2**62), 2**31, 12, 18, -18, 7]


def gcd(a: int, b: int) -> int:
    if b == 0:
        return a
    return gcd(b, a % b)


def gcd_expr(a: int, b: int) -> int:
    return a if b == 0 else gcd_expr(b, a % b)


def power(x: float, n: int) -> float:
    if n == 0:
        return 1.0
    if n % 2 == 0:
        h = power(x, n // 2)
        return h * h
    return x * power(x, n - 1)


def egcd(a: int, b: int):
    if a == 0:
        return b, 0, 1
    g, x, y = egcd(b % a, a)
    return g, y - (b // a) * x, x


def ack(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def is_even(n: int) -> bool:
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n: int) -> bool:
    if n == 0:
        return False
    return is_even(n - 1)


def halves(n: int):
    # int on the base path, float on the recursive one: the result type is their join (float64)
    if n <= 0:
        return 1
    return halves(n - 1) * 0.5


def depth(n: int) -> int:
    if n <= 0:
        return 0
    return 1 + depth(n - 1)


def rare(x: float) -> float:
    # the recursion is reached only for x > 100 (1% of the benchmark's lanes)
    if x <= 100.0:
        return x * 0.5 + 1.0
    return rare(x / 3.0) + 1.0


def scaled(x: float, n: int) -> float:
    if n == 0:
        return x
    return 2.0 * scaled(x, n - 1)


def tree(n: int) -> int:
    if n <= 1:
        return 1
    total = 0
    for k in range(1, 3):
        total += tree(n - k)
    return total


def guarded_loop(n: int) -> int:
    # lanes with n <= 0 never evaluate the recursive call (`and` short-circuits): batched
    i = 0
    while i < n and guarded_loop(n - 10) < 100:
        i += 1
    return i


def loop_then_recurse(x: float, n: int) -> float:
    s = 0.0
    while s < x:
        s += 1.5
        if s > 50.0:
            return loop_then_recurse(x - 50.0, n) + s
    return s


def nested_base(n: int) -> int:
    return 1 + (0 if n <= 0 else nested_base(n - 1))


def no_base(n: int) -> int:
    return 1 + no_base(n - 1)


def lcm(a: int, b: int) -> int:
    # a recursive callee of a function that is not itself recursive
    return abs(a * b) // gcd(a, b)


def run(backend: str, f, *args) -> None:
    check(vectorize(f, backend=backend, fallback="error"), f, *args)


def int_arrays(lo: int, hi: int, n: int = 2):
    return st.integers(0, 16).flatmap(lambda size: st.tuples(*[
        st.lists(ints(lo, hi), min_size=size, max_size=size).map(lambda xs: np.array(xs, dtype=np.int64))
        for _ in range(n)]))


EXAMPLES = settings(max_examples=30, deadline=None, derandomize=True)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [gcd, gcd_expr])
def test_gcd_on_hostile_ints(f, backend):
    a = np.array([x for x in NEAR_MAX for _ in NEAR_MAX], dtype=np.int64)
    b = np.array([y for _ in NEAR_MAX for y in NEAR_MAX], dtype=np.int64)
    run(backend, f, a, b)

    @EXAMPLES
    @given(int_arrays(-(2**63), 2**63 - 1))
    def prop(args):
        run(backend, f, *args)

    prop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_power_by_squaring_on_hostile_floats(backend):
    x = np.array([2.0, -1.5, np.nan, np.inf, -np.inf, -0.0, 0.0, 5e-324, 1e308, 3.0, 0.5])
    n = np.array([0, 5, 3, 2, 3, 1, 0, 1, 2, 40, 1075])
    run(backend, power, x, n)

    @EXAMPLES
    @given(st.integers(0, 12).flatmap(lambda k: st.tuples(
        st.lists(floats(), min_size=k, max_size=k), st.lists(ints(-2, 80), min_size=k, max_size=k))))
    def prop(args):  # a negative n never reaches 0: RecursionError, as in the loop
        run(backend, power, np.array(args[0], dtype=np.float64), np.array(args[1], dtype=np.int64))

    prop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_extended_euclid_returns_a_tuple(backend):
    @EXAMPLES
    @given(int_arrays(-(10**12), 10**12))
    def prop(args):
        run(backend, egcd, *args)

    prop()
    run(backend, egcd, np.array([0, 3, 12, 0, -7]), np.array([5, 7, 18, 0, 0]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_ackermann_and_fibonacci(backend):
    m, n = np.meshgrid(np.arange(-1, 3), np.arange(-2, 6))
    run(backend, ack, m.ravel(), n.ravel())  # m or n negative: RecursionError on the first such lane
    run(backend, ack, *[a.ravel() for a in np.meshgrid(np.arange(0, 3), np.arange(0, 6))])
    run(backend, fib, np.arange(-3, 16))


@pytest.mark.parametrize("backend", BACKENDS)
def test_mutual_recursion(backend):
    run(backend, is_even, np.arange(0, 60))
    run(backend, is_odd, np.arange(0, 60))
    run(backend, is_even, np.array([4, 0, -3, 1]))  # -3 never reaches 0: RecursionError on lane (2,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_result_type_is_the_fixpoint_of_the_returns(backend):
    vf = vectorize(halves, backend=backend, fallback="error")
    out = vf(np.array([0, 1, 3, -4]))
    assert out.dtype == np.float64  # the base case alone would say int
    check(vf, halves, np.array([0, 1, 3, -4, 60]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_deep_lane_raises_recursion_error_as_the_loop_does(backend):
    vf = vectorize(depth, backend=backend, fallback="error")
    n = np.array([0, 3, 200, 10**6, -5, 10**7])
    with pytest.raises(RecursionError) as info:
        vf(n)
    assert "lane (3,)" in " ".join(info.value.__notes__)  # the first failing lane in C order
    check(vf, depth, n)
    check(vf, depth, np.array([5, 0, 300, -1]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_some_lanes_recurse_some_do_not(backend):
    x = np.array([1.0, 150.0, -0.0, np.nan, np.inf, 99.5, 1e300, -np.inf, 5e-324, 101.0])
    run(backend, rare, x)

    @EXAMPLES
    @given(st.lists(floats(), max_size=20))
    def prop(xs):
        run(backend, rare, np.array(xs, dtype=np.float64))

    prop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_uniform_recursion_flags_every_lane(backend):
    vf = vectorize(scaled, backend=backend, fallback="error")
    x = np.array([1.0, -0.0, np.nan, 1e308, -np.inf])
    for n in (0, 3, -1):  # -1: RecursionError on the first lane
        check(vf, scaled, x, n)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursive_callee(backend):
    a = np.array([4, 6, 0, 2**40, -9, 5], dtype=np.int64)
    b = np.array([6, 0, 5, 2**30, 6, 0], dtype=np.int64)
    run(backend, lcm, a, b)
    run(backend, lcm, a, b[::-1].copy())
    run(backend, lcm, np.array([0, 3]), np.array([0, 4]))  # gcd(0, 0) == 0: ZeroDivisionError

    @EXAMPLES
    @given(int_arrays(-(2**63), 2**63 - 1))
    def prop(args):
        run(backend, lcm, *args)

    prop()


@pytest.mark.parametrize("backend", BACKENDS)
def test_recursion_inside_loops(backend):
    run(backend, tree, np.arange(-2, 14))
    run(backend, guarded_loop, np.array([0, 3, 5, 12, 25, -4]))
    run(backend, loop_then_recurse, np.array([1.0, 40.0, 75.0, 300.0, np.nan, np.inf, -0.0, 5e-324]), 3)


def test_cut_splits_a_while_test(cut_at_once):
    """`while a and f(x):` is `while a: if f(x): ... else: break`, whose `if` is cut: the lanes
    where `a` is false at the start return without recursing."""
    assert body(after("cut_recursion", guarded_loop, n=I)) == (
        "i = 0\n"
        "while i < n:\n"
        "    raise RecursionError()\n"
        "return i\n"
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_base_case_inside_a_conditional_expression(backend):
    """frontend/short_circuit.py turns `1 + (0 if n <= 0 else f(n - 1))` into statements first,
    so the base case is one of its own (a lane 2000 deep raises RecursionError, as in the loop)."""
    vf = vectorize(nested_base, backend=backend, fallback="error")
    check(vf, nested_base, np.array([0, 1, 5, -3, 30, 2000, 7]))


def test_a_function_whose_every_return_recurses_is_refused_with_a_hint():
    with pytest.raises(VectorizeError, match="no base case") as info:
        vectorize(no_base, fallback="error")(np.array([1]))
    assert "statement of its own" in info.value.hint


def test_only_the_lanes_reaching_the_recursion_are_flagged():
    """The NumPy kernel of gcd, with one level of its recursion inlined, flags exactly the lanes
    whose recursion goes deeper: b != 0 and a % b != 0 (those re-run)."""
    vf = vectorize(gcd, backend="numpy", fallback="error")
    a, b = np.array([12, 7, 0, 5, -3, 12, 9]), np.array([18, 0, 5, 0, 0, 4, 5])
    vf(a, b)
    namespace: dict = {}
    exec(compile(vf.source, "<gcd kernel>", "exec"), namespace)  # noqa: S102 - the generated module
    value, flag = namespace["gcd"](a, b)
    deeper = (b != 0) & (a % np.where(b == 0, 1, b) != 0)
    assert flag.tolist() == deeper.tolist()
    assert value[~deeper].tolist() == [gcd(x, y) for x, y in zip(a[~deeper].tolist(), b[~deeper].tolist())]


@pytest.mark.numba
def test_numba_lane_returns_the_flag_at_the_recursive_call():
    """_lane_gcd calls its copy _lane_gcd_1, whose recursive call is cut: a flag, no recursion in
    the compiled code (a deep one would overflow the C stack)."""
    pytest.importorskip("numba")
    vf = vectorize(gcd, backend="numba", fallback="error")
    vf(np.array([1]), np.array([0]))
    lane = vf.source.split("def _lane_gcd(a, b):")[1].split("\n\n")[0]
    copy = vf.source.split("def _lane_gcd_1(a, b):")[1].split("\n\n")[0]
    assert "_lane_gcd_1(b, a % b)" in lane and "_lane_gcd(" not in lane
    # the copy's recursive call is a flag (if_convert_lanes writes its two returns as one select)
    assert "_lane_gcd" not in copy and "return (a if _ic else 0, False if _ic else True)" in copy, copy


def intrinsic(x: float) -> float:
    return x * 0.5 if x > 0 else 0.0


def reflected(x: float, s: float) -> float:
    # the recursion is one level deep on every lane: -x <= 0 for x > 0 (NaN: the base case)
    if x > 0:
        return intrinsic(x) + reflected(-x, s)
    if s <= 0:
        return 1.0 / s
    return x / s


def reflected_caller(x: float, s: float) -> float:  # a recursive callee, unrolled in its caller
    return reflected(x, s) - reflected(-x, s + 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursion_one_level_deep_is_batched(backend):
    """No lane of `reflected` is flagged: every one ends within the two copies."""
    vf = vectorize(reflected, backend=backend, fallback="error")
    x = np.array([1.5, -2.0, 0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, 1e308, 3.0])
    s = np.array([2.0, 0.5, 1.0, 3.0, 1.0, 1.0, 2.0, 1e-300, 1e-10, np.nan])
    check(vf, reflected, x, s)
    if backend == "numpy":
        namespace: dict = {}
        exec(compile(vf.source, "<reflected kernel>", "exec"), namespace)  # noqa: S102 - the generated module
        with np.errstate(all="ignore"):
            _, flag = namespace["reflected"](x, s)
        assert not np.any(flag)
    check(vf, reflected, x, np.where(x > 0, 0.0, s))  # ZeroDivisionError a level deep, first lane
    caller = vectorize(reflected_caller, backend=backend, fallback="error")
    check(caller, reflected_caller, x, s)
    check(caller, reflected_caller, x, s - 2.0)
    if backend == "numpy":  # a callee that calls itself at one place is unrolled in its caller too
        namespace = {}
        exec(compile(caller.source, "<reflected_caller kernel>", "exec"), namespace)  # noqa: S102
        with np.errstate(all="ignore"):
            _, flag = namespace["reflected_caller"](x, s)
        assert not np.any(flag)


def twice(x: float, n: int) -> float:  # two recursive calls: a callee's copies would multiply
    if n <= 0:
        return x
    return twice(x, n - 1) + twice(-x, n - 2)


def twice_caller(x: float, n: int) -> float:
    return twice(x, n) * 0.5


def test_a_callee_recursing_at_two_places_is_cut_at_once():
    """Its recursive calls are flags on the NumPy backend (the lanes re-run), not inlined copies."""
    vf = vectorize(twice_caller, backend="numpy", fallback="error")
    x, n = np.array([1.5, -2.0, 0.0, np.nan, np.inf, 3.0]), np.array([0, 1, 2, 5, -1, 3])
    check(vf, twice_caller, x, n)
    namespace: dict = {}
    exec(compile(vf.source, "<twice_caller kernel>", "exec"), namespace)  # noqa: S102
    with np.errstate(all="ignore"):
        _, flag = namespace["twice_caller"](x, n)
    assert flag.tolist() == (n > 0).tolist()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_recursion_deeper_than_the_copies(backend):
    """Lanes two or more levels deep are re-run: values, RecursionError (2000 deep), both."""
    for f, args in [(gcd, (np.array([89, 2**62, 10**18, 0, -7]), np.array([55, 3, 2**61 + 1, 0, 3]))),
                    (fib, (np.array([0, 1, 2, 3, 10, 15]),)), (power, (np.array([1.5, -2.0, 1e300, np.nan]), np.array([0, 1, 5, 3]))),
                    (nested_base, (np.array([0, 1, 2, 3, 2000, 5]),)), (is_even, (np.array([0, 1, 2, 3, 7, 2000]),))]:
        run(backend, f, *args)


def test_cut_splits_a_conditional_return(cut_at_once):
    # frontend/short_circuit.py has made the conditional a statement before the cut
    assert body(after("cut_recursion", gcd_expr, a=I, b=I)) == (
        "test_1 = b == 0\n"
        "if test_1:\n"
        "    if_2 = a\n"
        "else:\n"
        "    raise RecursionError()\n"
        "return if_2\n"
    )


def test_cut_of_a_mutual_callee_inlined_into_its_caller(cut_at_once):
    """is_odd is inlined into is_even; its call back into is_even (on the chain) is cut."""
    assert body(after("inline_calls", is_even, n=I)) == (
        "if n == 0:\n"
        "    ret = True\n"
        "else:\n"
        "    # inlined: is_odd(n - 1)\n"
        "    n_1 = n - 1\n"
        "    if n_1 == 0:\n"
        "        ret_1 = False\n"
        "    else:\n"
        "        raise RecursionError()\n"
        "    ret = ret_1\n"
        "return ret\n"
    )


def test_no_base_case_is_refused_at_the_call():
    def loop(n: int) -> int:
        return loop(n + 1) - 1

    globals()["loop"] = loop
    try:
        with pytest.raises(VectorizeError, match="base case") as info:
            vectorize(loop, fallback="error")(np.array([1]))
        assert info.value.location is not None and "loop(n + 1)" in info.value.location.source_line
    finally:
        del globals()["loop"]


def test_uniform_parameter_types_the_recursion_per_specialization(cut_at_once):
    assert "raise RecursionError()" in after("cut_recursion", scaled, x=I, n=UI)
