"""fuzz2 checks itself: its programs are well-defined Python that uses every construct it promises,
its checker fails on each kind of wrong batched function, its reducer shrinks, and its tolerance
is 0 where no transcendental function runs."""

from __future__ import annotations

import ast
import contextlib
import io
import random
from collections import Counter

import numpy as np
import pytest

from fuzz2 import check as check_module
from fuzz2 import tolerance
from fuzz2.check import check, load, prepare, run_loop
from fuzz2.inputs import batch, decode, encode
from fuzz2.program import generate
from fuzz2.reduce import reduce

GRAMMAR_RAISES = {"ZeroDivisionError", "ValueError", "OverflowError", "IndexError", "AssertionError", "FzError"}


def _outcomes(module, args: list, round_: int) -> list:  # noqa: ANN001
    prepare(module, round_)
    with contextlib.redirect_stdout(io.StringIO()):
        _, outcomes = run_loop(module.f, args)
    return [(k, repr(v) if k == "value" else f"{type(v).__name__}: {v}") for k, v in outcomes]


@pytest.mark.parametrize("chunk", range(3))
def test_programs_are_deterministic_and_well_defined(chunk: int):
    """The same text from the same seed; the loop finishes, raises only what the grammar means
    to raise (never TypeError, NameError, UnboundLocalError, RecursionError, complex results),
    and gives the same outcomes after `_reset()` (and after `_mutate()`) each time."""
    raised: Counter = Counter()
    for seed in range(500 * chunk, 500 * chunk + 60):
        program = generate(seed)
        assert generate(seed).source == program.source
        module = load(program.source)
        for j in range(2):
            args = batch(random.Random(seed * 3 + j), program.params)
            first = _outcomes(module, args, j)
            assert _outcomes(module, args, j) == first, program.source
            for kind, text in first:
                if kind == "raise":
                    raised[text.split(":")[0]] += 1
                else:
                    assert "j)" not in text, f"complex result\n{program.source}"
    assert set(raised) <= GRAMMAR_RAISES, raised


def test_grammar_covers_the_constructs_it_promises():
    counts: Counter = Counter()
    for seed in range(300):
        program = generate(seed)
        tree = ast.parse(program.source)
        f = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "f")
        text = program.source
        seen = {
            "try/except": any(isinstance(n, ast.Try) and n.handlers for n in ast.walk(tree)),
            "assert": any(isinstance(n, ast.Assert) for n in ast.walk(tree)),
            "and/or on numbers": any(isinstance(n, ast.BoolOp) and not any(isinstance(v, ast.Compare) for v in n.values)
                                     for n in ast.walk(f)),
            "chained comparison": any(isinstance(n, ast.Compare) and len(n.ops) > 1 for n in ast.walk(tree)),
            "helper": "def g0(" in text,
            "recursive helper": "def r0(" in text,
            "mutual recursion": "def q0(" in text,
            "tuple table": any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in ("T0", "U0")
                               for n in ast.walk(tree)),
            "pow(a, b, m)": any(isinstance(n, ast.Call) and getattr(n.func, "id", "") == "pow" and len(n.args) == 3
                                for n in ast.walk(tree)),
            "gcd": "math.gcd(" in text, "isqrt": "math.isqrt(" in text, "comb": "math.comb(" in text,
            "// or % with a variable divisor": any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.FloorDiv | ast.Mod)
                                                   and not isinstance(n.right, ast.Constant) for n in ast.walk(f)),
            "while": any(isinstance(n, ast.While) for n in ast.walk(f)),
            "early return": sum(isinstance(n, ast.Return) for n in ast.walk(f)) > 1,
            "raise": any(isinstance(n, ast.Raise) for n in ast.walk(tree)),
            "pure static call": bool(program.static_kinds - {"read_list", "read_dict", "class_attr", "env", "counter",
                                                              "random", "random_cls", "print", "log", "time",
                                                              "lane_counter"}),
            "impure static call": program.impure,
            "int accumulator": "bigint" in program.features and "for " in text,
        }
        counts.update(k for k, v in seen.items() if v)
    scarce = {k: counts[k] for k in ("try/except", "assert", "and/or on numbers", "chained comparison", "helper",
                                      "recursive helper", "mutual recursion", "tuple table", "pow(a, b, m)", "gcd",
                                      "isqrt", "comb", "// or % with a variable divisor", "while", "early return",
                                      "raise", "pure static call", "impure static call", "int accumulator")
              if counts[k] < 15}
    assert not scarce, f"constructs in fewer than 15 of 300 programs: {scarce}"


def test_some_lanes_pass_int64():
    """Int accumulators beyond int64 happen: the engine must patch or refuse them."""
    big = 0
    for seed in range(200):
        program = generate(seed)
        module = load(program.source)
        for _, value in (o for o in _raw(module, batch(random.Random(seed), program.params))):
            big += any(type(v) is int and not -(2**63) <= v < 2**63 for v in (value if isinstance(value, tuple) else (value,)))
    assert big >= 5


def _raw(module, args: list) -> list:  # noqa: ANN001
    prepare(module, 0)
    with contextlib.redirect_stdout(io.StringIO()):
        return [o for o in run_loop(module.f, args)[1] if o[0] == "value"]


# -- the checker fails on wrong batched functions ----------------------------------------------
PROGRAM = '''import math
K0 = 3


def _reset():
    global K0
    K0 = 3


def _mutate():
    global K0
    K0 = 5


def f(a):
    if a < 0:
        raise ValueError("fz: negative")
    return a * K0 + 1
'''


class Wrong:
    """A real vectorized function, made wrong in one way."""

    def __init__(self, real, how: str) -> None:  # noqa: ANN001
        self.real, self.how, self.first = real, how, {}  # stale: the first result for each shape

    @property
    def backend(self) -> str:
        return self.real.backend

    def __call__(self, *args):  # noqa: ANN002, ANN204
        shapes = tuple(np.shape(a) for a in args)
        if self.how == "stale" and shapes in self.first:
            return self.first[shapes]
        if self.how == "chatty":
            print("generated")
        try:
            result = self.real(*args)
        except ValueError:
            if self.how == "swallow":
                return np.zeros(np.broadcast_shapes(*(np.shape(a) for a in args)), dtype=np.int64)
            if self.how == "message":
                raise ValueError("fz: another message") from None
            raise
        self.first[shapes] = result
        big = np.size(result) >= 4096  # a path only large batches take (compaction, threads...)
        return result + 1 if self.how == "off by one" or self.how == "large batches" and big else result


@pytest.mark.parametrize(("how", "args", "kind"), [
    ("honest", [np.array([1, 2, 3])], None),
    ("honest", [np.array([1, -2, 3])], None),
    ("off by one", [np.array([1, 2, 3])], "wrong value: int"),
    ("swallow", [np.array([1, -2, 3])], "missed exception: loop raises ValueError, batched returns"),
    ("message", [np.array([1, -2, 3])], "wrong exception message for ValueError"),
    ("stale", [np.array([1, 2, 3])], "after _mutate(): wrong value: int"),
    ("chatty", [np.array([1, 2, 3])], "side effects differ from the loop's"),
    ("large batches", [np.array([1, 2, 3])], "tiled to 4096+ lanes: wrong value: int"),
])
def test_checker_fails_on_wrong_functions(monkeypatch, how: str, args: list, kind: str | None):  # noqa: ANN001
    real = check_module.vectorize
    monkeypatch.setattr(check_module, "vectorize", lambda f, **kw: Wrong(real(f, **kw), how))
    outcome = check(PROGRAM, args, "numpy")
    assert (outcome.status, outcome.kind) == (("pass", "") if kind is None else ("fail", kind)), outcome.detail


def test_reducer_shrinks_to_the_failing_part(monkeypatch):  # noqa: ANN001
    real = check_module.vectorize
    monkeypatch.setattr(check_module, "vectorize", lambda f, **kw: Wrong(real(f, **kw), "off by one"))
    source = PROGRAM.replace("    return a * K0 + 1", "    b = a * 2\n    c = b - 1\n    return a * K0 + 1")
    args = [np.array([4, 5, 6, 7])]
    kind = check(source, args, "numpy").kind
    small, small_args = reduce(source, args, "numpy", kind, seconds=60)
    assert check(small, small_args, "numpy").kind == kind
    assert "b = a * 2" not in small
    assert np.size(small_args[0]) == 1


# -- tolerance and argument encoding -----------------------------------------------------------
def test_tolerance_is_derived_only_for_transcendental_functions():
    with_exp = PROGRAM.replace("return a * K0 + 1", "return math.exp(a * 0.5) * 3.0 + a ** 0.5")
    assert tolerance.uses_libm(with_exp) and not tolerance.uses_libm(PROGRAM)
    edge = load(tolerance.moved_source(with_exp), "edge")
    module = load(with_exp)
    lanes, exact = run_loop(module.f, [np.array([1, 2, 3])])
    assert 1 <= tolerance.derived_ulps(edge, lambda m: prepare(m, 0), lanes, exact, bound=2) <= 8


@pytest.mark.parametrize("value", [np.array([0.0, -0.0, np.nan, 5e-324]), np.array([[1, -(2**63)]]), np.array(True),
                                   np.array([], dtype=np.int64), 3, -0.0, False])
def test_arguments_survive_the_text_form(value):  # noqa: ANN001
    back = decode(encode(value))
    assert type(back) is type(value) and np.shape(back) == np.shape(value)
    assert encode(back) == encode(value)
