"""The differential check of one fuzz2 program on one batch and one backend.

`check(source, args, backend)` imports the program from a file, vectorizes `f` with
`fallback="error"` and runs two rounds: the module's state as written (`_reset()`), then changed
(`_mutate()`: module constants and tables rebound, mutable lists, dicts, class attributes and an
environment variable changed). In each round the scalar loop runs once over the lanes (C order,
up to the first raising lane, its printed lines and `_LOG` entries recorded), the state is put
back, and the batched call must either be refused with a `VectorizeError` (with no side effect:
nothing a lane did not ask for may run) or keep the contract against the loop, compared by
tests/oracle.py `check` on the recorded outcomes: ints and bools exact, floats bit-identical
(within the ulps tolerance.py derives where NumPy computes transcendental functions), the first
raising lane's exception type and message, and the same side effects as the loop.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import re
import signal
import sys
import tempfile
import warnings
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path

import oracle

from vectorizer import (
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
    vectorize,
)

from . import tolerance
from .classify import classify

RUNTIME_ERRORS = (VectorizeOverflowError, VectorizeValueError, VectorizeInputError)
LOOP_SECONDS, TRANSFORM_SECONDS = 60.0, 300.0  # generous: a busy machine is not a hang
CALL_SECONDS = {"numpy": 300.0, "numba": 600.0}


@dataclass
class Outcome:
    status: str  # pass / refused / fail
    kind: str = ""  # the refusal's reason or the failure's class, without values
    detail: str = ""
    round: int = 0
    fell_back: bool = False  # the Numba backend ran the NumPy code (Numba could not compile it)
    recorded: tuple | None = None  # (lanes, the loop's outcomes, ulps) of a passing round


class Timeout(BaseException):
    """A call did not finish in time (a BaseException: `except Exception` cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    def alarm(signum, frame):  # noqa: ANN001
        raise Timeout(f"{what} did not finish in {seconds:.0f}s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- programs as modules ------------------------------------------------------------------------
_DIR = Path(tempfile.mkdtemp(prefix="vectorizer-fuzz2-"))
_LOADED: OrderedDict[str, object] = OrderedDict()


def load(source: str, tag: str = "p"):  # noqa: ANN201 - a module
    """Import `source` from a file of its own (vectorizer reads functions' source from files)."""
    name = f"vzfuzz2_{tag}_{hashlib.sha256(source.encode()).hexdigest()[:16]}"
    if name in _LOADED:
        return _LOADED[name]
    path = _DIR / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[name] = module
    while len(_LOADED) > 64:
        sys.modules.pop(_LOADED.popitem(last=False)[0], None)
    return module


def prepare(module, round_: int) -> None:  # noqa: ANN001
    module._reset()
    if round_:
        module._mutate()


@contextlib.contextmanager
def effects(module, into: list):  # noqa: ANN001
    """What runs under it prints or appends to `_LOG`: recorded in `into`."""
    out = io.StringIO()
    log = getattr(module, "_LOG", None)
    before = len(log) if log is not None else 0
    try:
        with contextlib.redirect_stdout(out):
            yield
    finally:
        into += [f"print {line}" for line in out.getvalue().splitlines()]
        if log is not None:
            into += [f"log {v!r}" for v in log[before:]]


def run_loop(f, args: list) -> tuple[list[tuple], list]:  # noqa: ANN001
    """The scalar function over the lanes in C order, up to and including the first that raises."""
    _, lanes, _ = oracle.lanes(*args)
    outcomes: list = []
    with time_limit(LOOP_SECONDS, "the scalar loop"):
        for lane in lanes:
            try:
                outcomes.append(("value", f(*lane)))
            except Exception as exc:  # noqa: BLE001 - the loop's exception is the expected outcome
                outcomes.append(("raise", exc))
                break
    return lanes, outcomes


def replaying(f, outcomes: list):  # noqa: ANN001, ANN201
    """A stand-in for f that gives the recorded outcomes in order, again on each pass over the
    lanes (tests/oracle.py calls the function lane by lane, up to the first raise, each time)."""
    position = [0]

    def lane(*args):  # noqa: ANN002, ANN202
        kind, value = outcomes[position[0]]
        position[0] = (position[0] + 1) % len(outcomes)
        if kind == "raise":
            raise value
        return value

    lane.__name__, lane.__module__ = f.__name__, f.__module__
    return lane


def refusal_reason(exc: VectorizeError) -> str:
    message = getattr(exc, "message", str(exc)).splitlines()[0]
    message = re.sub(r"\s*\(at [^)]*\)", "", re.sub(r"'[^']*'", "'…'", message))
    message = re.sub(r"[-+]?\d+", "N", message)[:150]
    return f"{getattr(exc, 'code', 'VEC')}: {message}"


def _is_refusal(exc: BaseException) -> bool:
    return isinstance(exc, VectorizeError) and not isinstance(exc, RUNTIME_ERRORS)


def _engine_bug(exc: VectorizeError) -> bool:
    return "vectorizer bug" in str(exc) or getattr(exc, "code", "") == "VEC-BUG"


# -- the check ----------------------------------------------------------------------------------
def check(source: str, args: list, backend: str) -> Outcome:
    """Round 0 (and the batch tiled), round 1 with the same vectorized function, then round 1
    with a new one (the in-memory and disk caches must not hand back code for the old values)."""
    module = load(source)
    bound = tolerance.libm_bound(backend)
    edge = load(tolerance.moved_source(source), "edge") if bound and tolerance.uses_libm(source) else None
    vf: object = None
    for round_, fresh, label in ((0, True, ""), (1, False, ""), (1, True, "a new vectorize(f) ")):
        seen: list = []
        if fresh:
            prepare(module, round_)
            try:
                with effects(module, seen), time_limit(TRANSFORM_SECONDS, "vectorize(f)"):
                    vf = vectorize(module.f, fallback="error", backend=backend)
            except VectorizeError as exc:
                return _refused(exc, seen, round_)
            except Timeout as exc:
                return Outcome("fail", "hang", str(exc))
            except Exception as exc:  # noqa: BLE001 - any other exception from vectorize() is a bug
                return Outcome("fail", f"transform crash: {type(exc).__name__}", repr(exc))
        outcome = _round(module, edge, vf, args, backend, bound, round_, seen)
        if outcome.status == "fail" and label:
            outcome.kind = label + outcome.kind
        if outcome.status != "pass":
            return outcome
        big = tiled(args) if round_ == 0 and _stateless(module) else None
        if big is not None:
            lanes, exact, ulps = outcome.recorded
            raises = any(kind == "raise" for kind, _ in exact)  # the same first raising lane
            reps = 1 if raises else -(-TILED_LANES // len(lanes))
            tiled_outcome = _round(module, edge, vf, big, backend, bound, 0, [], (lanes * reps, exact * reps, ulps))
            if tiled_outcome.status != "pass":
                tiled_outcome.kind = f"tiled to {TILED_LANES}+ lanes: {tiled_outcome.kind}"
                return tiled_outcome
    return outcome


TILED_LANES = 4096  # where the NumPy code's bit select, gathers and compaction begin; Numba's threads


def tiled(args: list) -> list | None:
    """The 1-d batch repeated to TILED_LANES lanes or more (uniform arguments as they are), or
    None when there is no 1-d batch of several lanes: each lane's outcome is a small batch
    lane's, and the first raising lane is the same one."""
    import numpy as np

    sizes = {a.size for a in args if isinstance(a, np.ndarray) and a.ndim == 1 and a.size > 1}
    if len(sizes) != 1 or any(isinstance(a, np.ndarray) and a.ndim > 1 for a in args):
        return None
    size = sizes.pop()
    reps = -(-TILED_LANES // size)
    return [np.tile(a, reps) if isinstance(a, np.ndarray) and a.ndim == 1 and a.size == size else a for a in args]


def _stateless(module) -> bool:  # noqa: ANN001
    """A program whose lanes do not depend on each other (no counter, draws or log)."""
    return not any(hasattr(module, name) for name in ("_RNG", "_CNT", "_LOG")) \
        and "print(" not in Path(module.__file__).read_text()


def _refused(exc: VectorizeError, seen: list, round_: int) -> Outcome:
    if _engine_bug(exc):
        where = re.search(r"a vectorizer bug while (\w+)[^:]*: (\w+)", str(exc))
        kind = f"VEC-BUG while {where[1]}: {where[2]}" if where else "VEC-BUG"
        return Outcome("fail", kind, str(exc), round_)
    if seen:  # generation ran code no lane asked for
        return Outcome("fail", "side effects of a refused function", f"{seen[:6]}\n{exc}", round_)
    return Outcome("refused", refusal_reason(exc), str(exc), round_)


def _round(module, edge, vf, args: list, backend: str, bound: int, round_: int, seen: list,  # noqa: ANN001
           recorded: tuple | None = None) -> Outcome:
    """One batched call against the loop (`recorded`: the loop's lanes, outcomes and ulps,
    already known: a tiled batch's)."""
    prepare(module, round_)
    loop_effects: list = []
    if recorded is None:
        with effects(module, loop_effects):
            lanes, exact = run_loop(module.f, args)
    else:
        lanes, exact, ulps = recorded
    prepare(module, round_)
    got: object = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with effects(module, seen), time_limit(CALL_SECONDS[backend], "the batched call"):
                got = vf(*args)
        except Timeout as exc:
            return Outcome("fail", "hang", str(exc), round_)
        except Exception as exc:  # noqa: BLE001 - a refusal, else compared below
            if _is_refusal(exc):
                return _refused(exc, seen, round_)
            got = exc
    fell_back = backend == "numba" and vf.backend != "numba"
    leaks = [w for w in caught if issubclass(w.category, RuntimeWarning) or "vectorizer bug" in str(w.message)]
    if leaks:
        return Outcome("fail", f"warning from the batched call: {leaks[0].category.__name__}",
                       str(leaks[0].message), round_, fell_back)
    if Counter(seen) != Counter(loop_effects):
        return Outcome("fail", "side effects differ from the loop's", f"loop: {loop_effects[:6]}\nbatched: {seen[:6]}",
                       round_, fell_back)
    if recorded is None:  # (the moved program's own prints are not the batched call's)
        with contextlib.redirect_stdout(io.StringIO()):
            ulps = 0 if edge is None else tolerance.derived_ulps(edge, lambda m: prepare(m, round_), lanes, exact, bound)
    prepare(module, round_)
    try:
        with effects(module, []), time_limit(CALL_SECONDS[backend], "the batched call"):
            oracle.check(vf, replaying(module.f, exact), *args, ulps=ulps)
    except AssertionError as exc:
        kind = classify(exact, got, lanes)
        detail = f"{exc}\n  loop: {_describe(exact)}\n  batched: {_describe_got(got)}"
        return Outcome("fail", kind if not round_ else f"after _mutate(): {kind}", detail, round_, fell_back)
    except Timeout as exc:
        return Outcome("fail", "hang", str(exc), round_)
    return Outcome("pass", round=round_, fell_back=fell_back, recorded=(lanes, exact, ulps))


def _describe(exact: list, limit: int = 10) -> str:
    items = [repr(v) if k == "value" else f"raises {type(v).__name__}({str(v)!r})" for k, v in exact[:limit]]
    return "[" + ", ".join(items) + (", ..." if len(exact) > limit else "") + "]"


def _describe_got(got) -> str:  # noqa: ANN001
    if isinstance(got, BaseException):
        return f"raises {type(got).__name__}({str(got)!r}) {' '.join(getattr(got, '__notes__', []))}".strip()
    import numpy as np

    columns = got if isinstance(got, tuple) else (got,)
    return ", ".join(f"{np.asarray(c).dtype}{list(np.shape(c))} {np.asarray(c).tolist()!r}"[:400] for c in columns)
