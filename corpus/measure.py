"""Measure one function of the corpus: inputs, the scalar oracle, and a class per backend.

The oracle is the original function applied lane by lane on Python scalars (`.tolist()`). Each
backend's `vectorize(f, backend=..., fallback="error")` is then classed:

* CORRECT: on the lanes where the oracle returned numbers, every value equal (ints and bools
  identical; floats bit-identical or both NaN, except on the NumPy backend where a lane whose
  value reaches the C library's transcendental functions may differ within the documented bound,
  see `allowed_ulps`), AND on the full sample (raising lanes included) the exception type of the
  first raising lane (or a VectorizeError where the first bad lane returned no real number);
* UNSUPPORTED: a VectorizeError at decoration or on the first call (or, for "numba", a kernel that
  Numba could not compile, so the NumPy backend ran instead);
* WRONG: values or exceptions differ;
* CRASH: any other exception.
"""

from __future__ import annotations

import ast
import dis
import inspect
import math
import statistics
import textwrap
import time
import types
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CORRECT, UNSUPPORTED, WRONG, CRASH = "CORRECT", "UNSUPPORTED", "WRONG", "CRASH"
HOSTILE_FLOAT = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e308, -1e308, -1.0, 5e-324, 1e-300, -7.5]
HOSTILE_INT = [0, -1, 2**62, -(2**62), 2**63 - 1, -(2**63), 10**6]
# math functions that call the C library (Class B): NumPy's kernels may differ by a few ulp.
LIBM = {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sin", "cos", "tan", "asin",
        "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
        "gamma", "lgamma", "hypot", "cbrt"}
ULP_BOUND = 5  # vectorizer.rules.scalar.ULP_BOUND, per operation (README "The contract")
INT64 = (-(2**63), 2**63 - 1)


@dataclass
class Param:
    """One batched argument: kind "f" (float), "i" (int) or "b" (bool), drawn from [lo, hi]."""

    name: str
    kind: str
    lo: float = 0.0
    hi: float = 1.0


def make_inputs(params: list[Param], n: int, seed: int = 0, hostile_every: int = 97) -> list[np.ndarray]:
    """One array per parameter: typical values, with a hostile value in one argument of every
    `hostile_every`-th lane (NaN, infinities, -0.0, 0, huge, negative; ints near 2**63)."""
    rng = np.random.default_rng(seed)
    arrays = []
    for p in params:
        if p.kind == "b":
            arrays.append(rng.integers(0, 2, n).astype(bool))
        elif p.kind == "i":
            arrays.append(rng.integers(int(p.lo), int(p.hi) + 1, n, dtype=np.int64))
        elif p.lo > 0 and p.hi / p.lo > 20:  # a wide positive range: every decade alike
            arrays.append(np.exp(rng.uniform(math.log(p.lo), math.log(p.hi), n)))
        else:
            arrays.append(rng.uniform(p.lo, p.hi, n))
    if params:
        for k, lane in enumerate(range(hostile_every // 2, n, hostile_every)):
            p = k % len(params)
            if params[p].kind == "f":
                arrays[p][lane] = HOSTILE_FLOAT[(k // len(params)) % len(HOSTILE_FLOAT)]
            elif params[p].kind == "i":
                arrays[p][lane] = HOSTILE_INT[(k // len(params)) % len(HOSTILE_INT)]
    return arrays


def _is_number(v: Any) -> bool:
    if isinstance(v, bool | float):
        return True
    if isinstance(v, np.floating | np.bool_):
        return True
    if isinstance(v, int | np.integer):
        return INT64[0] <= int(v) <= INT64[1]
    return False


def is_real_result(value: Any) -> bool:
    """A number that a batched result can hold, or a tuple of such numbers."""
    if isinstance(value, tuple):
        return bool(value) and all(_is_number(v) for v in value)
    return _is_number(value)


@dataclass
class Oracle:
    values: list[Any]  # per lane: the result, or None where it raised or returned no real number
    raised: list[BaseException | None]
    refused: list[bool]  # returned something a batched result cannot hold (complex, str, None...)
    seconds: float

    def clean(self) -> np.ndarray:
        return np.array([e is None and not r for e, r in zip(self.raised, self.refused)], dtype=bool)

    def first_bad(self) -> tuple[int, BaseException | None] | None:
        """The lane whose outcome a batched call on every lane must report: the first raising
        lane (a loop stops there), else the first lane with no real result (refused)."""
        for j, e in enumerate(self.raised):
            if e is not None:
                return j, e
        for j, r in enumerate(self.refused):
            if r:
                return j, None
        return None


def run_oracle(f, arrays: list[np.ndarray], options: dict) -> Oracle:
    lists = [a.tolist() for a in arrays]
    n = len(arrays[0]) if arrays else 1
    values: list[Any] = [None] * n
    raised: list[BaseException | None] = [None] * n
    refused = [False] * n
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, lane in enumerate(zip(*lists)):
            try:
                v = f(*lane, **options)
            except Exception as exc:  # the scalar function's exception is the lane's outcome
                raised[j] = exc
                continue
            if is_real_result(v):
                values[j] = v
            else:
                refused[j] = True
    return Oracle(values, raised, refused, time.perf_counter() - start)


def reached_code(f) -> tuple[set[str], bool]:
    """The names read by f and the same-module functions it reaches, and whether any uses `**`."""
    names: set[str] = set()
    power = False
    seen: set[int] = set()
    todo = [f]
    while todo:
        g = todo.pop()
        code = getattr(g, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        codes = [code]
        while codes:
            c = codes.pop()
            names.update(c.co_names)
            codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
            power = power or any(i.opname == "BINARY_OP" and "**" in i.argrepr for i in dis.get_instructions(c))
            for name in c.co_names:
                h = g.__globals__.get(name) if hasattr(g, "__globals__") else None
                if isinstance(h, types.FunctionType) and h.__module__ == getattr(g, "__module__", None):
                    todo.append(h)
    return names, power


class _MovedMath:
    """`math` with the Class B functions' results moved `steps` ulp (for `allowed_ulps`)."""

    def __init__(self, steps: int) -> None:
        self._steps = steps

    def __getattr__(self, name: str):
        real = getattr(math, name)
        return _moved(real, self._steps) if name in LIBM else real


def _moved(fn, steps: int):
    def call(*args):
        v = fn(*args)
        for _ in range(abs(steps)):
            v = math.nextafter(v, math.inf if steps > 0 else -math.inf)
        return v
    return call


def ulp_distance(a: float, b: float) -> int:
    ia, ib = (int(np.float64(x).view(np.int64)) for x in (a, b))
    ia = ia if ia >= 0 else -(2**63) - ia
    ib = ib if ib >= 0 else -(2**63) - ib
    return abs(ia - ib)


class _PowerToCall(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.copy_location(ast.Call(ast.Name("_corpus_pow", ast.Load()), [node.left, node.right], []), node)
        return node


def _moved_power(f, steps: int):
    """f with each float result of its own `**` moved `steps` ulp (None: no source to rewrite)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        return None
    fdef.decorator_list = []
    tree = ast.fix_missing_locations(_PowerToCall().visit(tree))
    namespace = dict(f.__globals__)
    namespace["_corpus_pow"] = lambda a, b: _moved(lambda: a ** b, steps)() if isinstance(a ** b, float) else a ** b
    exec(compile(tree, f.__code__.co_filename, "exec"), namespace)
    g = namespace[fdef.name]
    g.__defaults__, g.__kwdefaults__ = f.__defaults__, f.__kwdefaults__
    return g


def allowed_ulps(f, lane: tuple, options: dict, slot: int) -> int:
    """The NumPy backend's bound on one lane: ULP_BOUND, or more where f magnifies its libm
    results' errors: f's value with every Class B result (math functions read through its module
    globals, and f's own `**`) moved ULP_BOUND ulp down and up (rounding is monotone; a bound for
    monotone formulas, an estimate for others)."""
    g = f.__globals__
    saved = dict(g)
    worst = ULP_BOUND
    try:
        base = f(*lane, **options)
        base = base[slot] if isinstance(base, tuple) else base
        for steps in (-ULP_BOUND, ULP_BOUND):
            for name, value in saved.items():
                if value is math:
                    g[name] = _MovedMath(steps)
                elif name in LIBM and value is getattr(math, name, None):
                    g[name] = _moved(value, steps)
            moved = _moved_power(f, steps) or f
            edge = moved(*lane, **options)
            edge = edge[slot] if isinstance(edge, tuple) else edge
            g.update(saved)
            if isinstance(edge, float) and isinstance(base, float) and math.isfinite(edge) and math.isfinite(base):
                worst = max(worst, ulp_distance(base, edge))
    except Exception:  # noqa: BLE001 - a moved value that raises adds no bound
        pass
    finally:
        g.update(saved)
    return worst


@dataclass
class Verdict:
    cls: str
    detail: str = ""
    speedup: float | None = None
    vec_seconds: float | None = None
    max_ulp: int = 0
    inexact_lanes: int = 0
    notes: list[str] = field(default_factory=list)


def compare(f, oracle: Oracle, idx: np.ndarray, arrays: list[np.ndarray], got: Any, backend: str,
            options: dict, libm: bool) -> Verdict:
    """Compare the batched result on the clean lanes `idx` with the oracle's values there."""
    expected = [oracle.values[j] for j in idx]
    width = len(expected[0]) if isinstance(expected[0], tuple) else 0
    outs = list(got) if isinstance(got, tuple) else [got]
    if (width or 1) != len(outs) or (width == 0 and isinstance(got, tuple)):
        return Verdict(WRONG, f"result shape: expected {width or 1} outputs, got {len(outs)}")
    max_ulp = inexact = 0
    for s, out in enumerate(outs):
        out = np.asarray(out)
        col = [e[s] if width else e for e in expected]
        if out.shape != (len(col),):
            return Verdict(WRONG, f"output {s}: shape {out.shape}, expected ({len(col)},)")
        kinds = {type(v) for v in col}
        if kinds <= {bool, np.bool_}:
            if out.dtype != bool or not np.array_equal(out, np.array(col, dtype=bool)):
                return Verdict(WRONG, f"output {s}: bools differ (dtype {out.dtype})")
            continue
        if out.dtype == bool:
            return Verdict(WRONG, f"output {s}: bool result where the function returns numbers")
        if kinds <= {int, np.int64} and out.dtype.kind in "iu":
            if not np.array_equal(out, np.array(col, dtype=np.int64)):
                return Verdict(WRONG, f"output {s}: ints differ")
            continue
        if out.dtype.kind in "iu":
            return Verdict(WRONG, f"output {s}: int result where the function returns floats")
        exact = np.array([float(v) == v if isinstance(v, int) else True for v in col])
        want = np.array([float(v) for v in col], dtype=np.float64)
        out = out.astype(np.float64)
        same = (want.view(np.int64) == out.view(np.int64)) | (np.isnan(want) & np.isnan(out))
        bad = np.flatnonzero(~(same & exact))
        for b in bad:
            w, o = float(want[b]), float(out[b])
            if backend != "numpy" or not libm or not exact[b] or not (math.isfinite(w) and math.isfinite(o)):
                return Verdict(WRONG, f"output {s}, lane {int(idx[b])}: expected {col[b]!r}, got {o!r}")
            d = ulp_distance(w, o)
            if d > ULP_BOUND:
                lane = tuple(a[idx[b]].item() for a in arrays)
                bound = allowed_ulps(f, lane, options, s)
                if d > bound:
                    return Verdict(WRONG, f"output {s}, lane {int(idx[b])}: expected {w!r}, got {o!r} ({d} ulp > {bound})")
            max_ulp, inexact = max(max_ulp, d), inexact + 1
    return Verdict(CORRECT, max_ulp=max_ulp, inexact_lanes=inexact)


def first_line(exc: BaseException) -> str:
    msg = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}: {msg.strip().splitlines()[0] if msg.strip() else ''}"


def classify(f, arrays: list[np.ndarray], oracle: Oracle, backend: str, options: dict | None = None,
             vectorize=None, repeats: int = 3, loop_seconds: float | None = None) -> Verdict:
    """The class of `vectorize(f, backend=backend, fallback="error")` against the oracle."""
    from vectorizer import VectorizeError
    from vectorizer import vectorize as real_vectorize

    options = options or {}
    vectorize = vectorize or real_vectorize
    oracle_types = {type(e) for e in oracle.raised if e is not None}
    try:
        vf = vectorize(f, backend=backend, fallback="error")
    except VectorizeError as exc:
        return Verdict(UNSUPPORTED, first_line(exc))
    except Exception as exc:  # noqa: BLE001 - any other exception is the CRASH class
        return Verdict(CRASH, f"at decoration: {first_line(exc)}")
    clean = np.flatnonzero(oracle.clean())
    notes: list[str] = []
    verdict = Verdict(CORRECT)
    if len(clean):
        sample = [a[clean] for a in arrays]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = vf(*sample, **options)
            except VectorizeError as exc:
                return Verdict(UNSUPPORTED, first_line(exc))
            except Exception as exc:  # noqa: BLE001 - classed below
                cls = WRONG if type(exc) in oracle_types else CRASH
                return Verdict(cls, f"on lanes that do not raise: {first_line(exc)}")
        used = getattr(vf, "backend", backend)
        if used != backend:
            why = next((str(w.message).splitlines()[0] for w in caught), f"ran on {used}")
            return Verdict(UNSUPPORTED, f"fell back to {used}: {why}")
        notes += sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})[:3]
        names, power = reached_code(f)
        verdict = compare(f, oracle, clean, arrays, got, backend, options, power or bool(names & LIBM))
        if verdict.cls != CORRECT:
            return verdict
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            vf(*sample, **options)
            times.append(time.perf_counter() - t)
        verdict.vec_seconds = statistics.median(times)
        if loop_seconds:
            verdict.speedup = loop_seconds / verdict.vec_seconds
    bad = oracle.first_bad()
    if bad is not None:
        lane, exc = bad
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                vf(*arrays, **options)
            except Exception as got_exc:  # noqa: BLE001 - compared with the oracle's below
                if exc is None and isinstance(got_exc, VectorizeError):
                    pass  # the first bad lane returned no real number: a refusal is right
                elif exc is None or type(got_exc) is not type(exc):
                    want = type(exc).__name__ if exc else "a refusal (no real result)"
                    if exc is not None and isinstance(got_exc, VectorizeError) and not len(clean):
                        return Verdict(UNSUPPORTED, first_line(got_exc))
                    return Verdict(WRONG, f"lane {lane} raises {want}; batched call raised {first_line(got_exc)}")
                elif str(got_exc) != str(exc):
                    notes.append(f"same exception type, other message: {str(got_exc)[:80]!r} vs {str(exc)[:80]!r}")
            else:
                want = type(exc).__name__ if exc else "a refusal (no real result)"
                return Verdict(WRONG, f"lane {lane} raises {want}; the batched call returned")
    verdict.notes = notes
    return verdict
