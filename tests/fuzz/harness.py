"""The differential check of one generated program on one batch, and regression files.

`differential(program_module, shim_module, args, classb)` vectorizes `f` with `fallback="error"`
on each backend of `BACKENDS` (`VECTORIZER_FUZZ_BACKENDS`, default `numpy`; `numpy,numba` checks
the Numba backend too, compiling every program; `numpy_vm` and `numba_vm` are the backends with
`vector_math=True`, whose second oracle is the shim with vecmath's values) and compares it with the scalar oracle (tests/oracle.py `check`): values bit-exact, exceptions of
the same type and message on the first failing lane. A `VectorizeError` refusal is not a failure
(it is counted with its reason); anything else raised while transforming is. The generated source
must be the same when generated twice, and must compile.

Programs with libm-dependent functions (`classb`) are also compared with a second oracle, the
same program run through `fuzz.shim` (NumPy's values, Python's exceptions); each lane must equal
one of the two oracles exactly. Only when neither matches is it a failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import keyword
import math
import os
import re
import signal
import sys
import tempfile
import traceback
import warnings
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import oracle
import strategies
from hypothesis import strategies as st

import vectorizer
from fuzz import shim as fuzz_shim
from vectorizer import (
    VectorizeError,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeValueError,
    vectorize,
)

REGRESSIONS = Path(__file__).parent / "regressions"
CALL_TIMEOUT = 10.0  # seconds for one transform or vectorized call (a hang is a failure)
ORACLE_TIMEOUT = 10.0
NUMBA_TIMEOUT = 120.0  # a Numba call compiles the program first
BACKENDS = tuple(b.strip() for b in os.environ.get("VECTORIZER_FUZZ_BACKENDS", "numpy").split(",") if b.strip())
RUNTIME_ERRORS = (VectorizeOverflowError, VectorizeValueError, VectorizeInputError)


# -- statistics ---------------------------------------------------------------------------------
@dataclass
class Stats:
    counts: Counter = field(default_factory=Counter)
    refusals: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)
    regressions: list = field(default_factory=list)
    ignored: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def summary(self) -> list[str]:
        c = self.counts
        lines = [
            f"programs: {c['programs']}  checks: {c['checks']}  passed: {c['passed']}  "
            f"refused: {c['refused']}  failed: {c['failed']}  ({self.seconds:.1f}s)"
            + (f"  (other kinds ignored: {c['failed-other']})" if c["failed-other"] else ""),
            f"  passed via the NumPy-valued oracle: {c['passed-shim']}; lane-wise mix of the two oracles: "
            f"{c['passed-mixed']}; scalar function raised: {c['oracle-raised']}; "
            f"empty batches: {c['empty']}; tiled to {TILED_LANES}+ lanes: {c['tiled']} "
            f"({c['tiled-masked']} with gathered calls)",
            f"  metamorphic variants checked: {c['variants']}  refused only in a variant: {c['variant-refused']}"
            + (f"  generated code calling vector math: {c['vector-math-code']}" if c["vector-math-code"] else ""),
            "  per backend (checks): " + "; ".join(
                f"{b} passed {c[f'pass-{b}']} refused {c[f'refused-{b}']}" for b in ("numpy", "numba", "numpy_vm", "numba_vm")
                if c[f"pass-{b}"] or c[f"refused-{b}"])
            + (f"; Numba could not compile (NumPy ran it, with a warning): {c['numba-compile-fallback']}"
               if c["numba-compile-fallback"] else ""),
        ]
        if self.refusals:
            lines.append("  top refusal reasons:")
            for reason, n in self.refusals.most_common(12):
                lines.append(f"    {n:5d}  {reason}")
        if self.ignored:
            lines.append("  failures of other kinds (ignored: VECTORIZER_FUZZ_ONLY is set):")
            for sig, n in self.ignored.most_common(12):
                lines.append(f"    {n:5d}  {sig}")
        if c["known-kind"]:
            lines.append(f"  failures of a kind an open regression file already shows (not written): {c['known-kind']}")
        for path in self.regressions:
            lines.append(f"  regression written: {path}")
        return lines


STATS = Stats()


# -- loading generated modules ------------------------------------------------------------------
_DIR = Path(tempfile.mkdtemp(prefix="vectorizer-fuzz-"))
_LOADED: OrderedDict[str, object] = OrderedDict()


def load(source: str, stem: str = "fz"):
    """Import a module from source text (vectorizer reads functions' source from their file)."""
    key = hashlib.sha256(source.encode()).hexdigest()[:20]
    name = f"vzfuzz_{stem}_{key}"
    if name in _LOADED:
        _LOADED.move_to_end(name)
        return _LOADED[name]
    path = _DIR / f"{name}.py"
    path.write_text(source)
    return _import(name, path)


def _import(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    _LOADED[name] = module
    while len(_LOADED) > 200:
        old, _ = _LOADED.popitem(last=False)
        sys.modules.pop(old, None)
    return module


# -- inputs -------------------------------------------------------------------------------------
def _elements(t: str, near: list[float]):
    if t == "bool":
        return st.booleans()
    if t == "int":
        return st.one_of(st.integers(-10, 20), strategies.ints())
    options = [st.floats(-10.0, 10.0), strategies.floats()]
    if near:
        options.append(strategies.near(*near))
    return st.one_of(*options)


_DTYPES = {"bool": np.bool_, "int": np.int64, "float": np.float64}
_PY = {"bool": bool, "int": int, "float": float}


@st.composite
def inputs(draw, params: list[tuple[str, str]], near: list[float] = ()):
    """Arguments for f: batched arrays (1-d or 2-d), or uniform values (scalar, 0-d, shape (1,))."""
    form = draw(st.integers(0, 19))
    if form < 16:
        shape = (draw(st.integers(1, 9)),)
    elif form == 16:
        shape = (0,)
    else:
        shape = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    size = math.prod(shape)
    args = []
    for _, t in params:
        elements = _elements(t, list(near))
        mode = draw(st.integers(0, 9))
        if mode < 7:  # batched
            values = draw(st.lists(elements, min_size=size, max_size=size))
            args.append(np.array(values, dtype=_DTYPES[t]).reshape(shape))
        elif mode == 7:
            args.append(_PY[t](draw(elements)))
        elif mode == 8:
            args.append(np.array(draw(elements), dtype=_DTYPES[t]))
        else:
            args.append(np.array([draw(elements)], dtype=_DTYPES[t]))
    return args


# -- timeouts -----------------------------------------------------------------------------------
class FuzzTimeout(BaseException):
    """A call did not finish in time (BaseException: `except Exception` cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    def handler(signum, frame):
        raise FuzzTimeout(f"{what} did not finish in {seconds:.0f}s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- the check ----------------------------------------------------------------------------------
@dataclass
class Outcome:
    status: str  # pass / refused / fail
    detail: str = ""
    reason: str = ""
    via: str = "libm"  # which oracle matched (libm / shim / mixed)
    backend: str = "numpy"


def refusal_reason(exc: VectorizeError) -> str:
    msg = getattr(exc, "message", str(exc)).splitlines()[0]
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\d+", "N", msg)
    return f"{type(exc).__name__}: {msg}"


def is_refusal(exc: BaseException) -> bool:
    return isinstance(exc, VectorizeError) and not isinstance(exc, RUNTIME_ERRORS)


def engine_bug(exc: VectorizeError, source: str) -> str | None:
    """Why a refusal is really an internal error: it says so, or it names a variable that is
    not in the user's program (one of the engine's own temporaries)."""
    message = getattr(exc, "message", str(exc))
    if "vectorizer bug" in message:
        return "refused as a vectorizer bug"
    for name in re.findall(r"'([A-Za-z_]\w*)'", message):
        if not keyword.iskeyword(name) and not re.search(rf"\b{name}\b", source):
            return f"refusal names {name!r}, which is not in the program (an engine temporary)"
    return None


def _refused(exc: VectorizeError, f) -> Outcome:
    try:
        source = re.sub(r"#.*", "", inspect.getsource(inspect.getmodule(f)))  # code, not comments
    except (OSError, TypeError):
        source = ""
    bug = engine_bug(exc, source)
    if bug is not None:
        return Outcome("fail", f"{bug}: {refusal_reason(exc)}\n{exc}")
    return Outcome("refused", reason=refusal_reason(exc), detail=str(exc))


def differential(module, shim_module, args: list, classb: bool, twice: bool = True,
                 backends: tuple[str, ...] | None = None) -> Outcome:
    """The check on every backend: the first failure, else a pass if any backend ran it (a
    backend may refuse what another accepts: Numba refuses math.gamma), else the refusal."""
    outcomes = []
    for backend in backends or BACKENDS:
        outcome = _differential(module, shim_module, args, classb, twice, backend)
        outcome.backend = backend
        if outcome.status == "fail":
            if backend != "numpy":  # its own kind of failure (the NumPy backend's keep their names)
                outcome.detail = f"{backend} backend: {outcome.detail}"
            return outcome
        STATS.counts[f"{outcome.status}-{backend}"] += 1
        outcomes.append(outcome)
    return next((o for o in outcomes if o.status == "pass"), outcomes[0])


def _differential(module, shim_module, args: list, classb: bool, twice: bool, backend: str) -> Outcome:
    f = module.f
    call_timeout = NUMBA_TIMEOUT if backend == "numba" else CALL_TIMEOUT
    # 1. transform: refuse with a VectorizeError or succeed; nothing else
    try:
        with time_limit(CALL_TIMEOUT, "vectorize(f).source"):
            vf = _vectorize(f, backend)
            first = vf.source
    except VectorizeError as exc:
        return _refused(exc, f)
    except Exception as exc:  # noqa: BLE001 - any other exception at transform time is a bug
        return Outcome("fail", f"transform crash in {_where(exc)}: {type(exc).__name__}: "
                               f"{normalize(str(exc).splitlines()[0][:60] if str(exc) else '')}\n"
                               f"{type(exc).__name__}: {exc}\n{_engine_frames(exc)}")
    except FuzzTimeout as exc:
        return Outcome("fail", f"transform hangs: {exc}")
    # 2. the generated module compiles, and generating it again gives the same text
    try:
        compile(first, "<generated>", "exec")
    except SyntaxError as exc:
        return Outcome("fail", f"generated source does not compile: {exc}\n{first}")
    try:
        with time_limit(CALL_TIMEOUT, "vectorize(f).source"):
            again = _vectorize(f, backend).source if twice else first
    except Exception as exc:  # noqa: BLE001
        return Outcome("fail", f"second transform raised {type(exc).__name__}: {exc}")
    if again != first:
        return Outcome("fail", "generated source differs between two runs:\n" + _diff(first, again))
    # 3. the specialization of this call (uniform arguments change it) may still be refused
    try:
        with time_limit(call_timeout, "batched call"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            vf(*args)
        if any("Numba could not compile" in str(w.message) for w in caught):
            STATS.counts["numba-compile-fallback"] += 1  # visible, and the NumPy backend ran it
    except FuzzTimeout as exc:
        return Outcome("fail", f"batched call hangs: {exc}")
    except Exception as exc:  # noqa: BLE001 - compared with the oracle below
        if is_refusal(exc):
            return _refused(exc, f)
    try:
        compile(vf.source, "<generated>", "exec")
    except SyntaxError as exc:
        return Outcome("fail", f"generated source does not compile: {exc}")
    # 4. compare with the scalar oracle(s)
    fuzz_shim.VECTOR_MATH = backend.endswith("_vm")
    STATS.counts["vector-math-code"] += fuzz_shim.VECTOR_MATH and ("_vz_vm." in vf.source or "_vz_lm." in vf.source)
    try:
        return _compare_batches(vf, f, shim_module, args, classb, call_timeout, backend)
    finally:
        fuzz_shim.VECTOR_MATH = False


def _vectorize(f, backend: str):
    """`numpy_vm` and `numba_vm`: those backends with vector_math=True."""
    if backend.endswith("_vm"):
        return vectorize(f, fallback="error", backend=backend.removesuffix("_vm"), exact=False)
    return vectorize(f, fallback="error", backend=backend)


def _compare_batches(vf, f, shim_module, args: list, classb: bool, call_timeout: float, backend: str) -> Outcome:
    outcome = _against_oracles(vf, f, shim_module, args, classb, call_timeout)
    # 5. the same lanes repeated into a batch of TILED_LANES: the paths of the generated helpers
    #    that only large batches take (runtime.where's bit select, runtime.masked's gather, a
    #    masked loop's compaction from Compaction.MIN_LANES)
    big = tiled(args) if backend in ("numpy", "numpy_vm") and outcome.status == "pass" else None
    if big is not None and any(h in vf.source for h in ("_vz_where(", "_vz_masked(", "_vz_Compaction(")):
        STATS.counts["tiled"] += 1
        STATS.counts["tiled-masked"] += "_vz_masked(" in vf.source
        outcome = _against_oracles(vf, remembered(f), remembered(shim_module.f) if classb else None, big,
                                   classb, call_timeout)
        if outcome.status == "fail":
            outcome.detail = f"the batch tiled to {big_size(big)} lanes: {outcome.detail}"
    return outcome


def _against_oracles(vf, f, shim, args: list, classb: bool, call_timeout: float) -> Outcome:
    """Pass when vf keeps the contract against f, or (classb) against the NumPy-valued shim, or
    lane by lane against either."""
    try:
        with time_limit(ORACLE_TIMEOUT + call_timeout, "oracle check"):
            problem = compare(vf, f, args)
            if problem is None:
                return Outcome("pass")
            if not classb:
                return Outcome("fail", problem)
            shim_f = getattr(shim, "f", shim)  # the shim module, or its (remembered) function
            if compare(vf, shim_f, args) is None:
                return Outcome("pass", via="shim")
            mixed = lanewise_either(vf, f, shim_f, args)
            if mixed is None:
                return Outcome("pass", via="mixed")
            return Outcome("fail", f"{problem}\n(NumPy-valued oracle: {mixed})")
    except FuzzTimeout as exc:
        return Outcome("fail", f"hang: {exc}")


TILED_LANES = 4096  # where runtime.where's bit select and runtime.masked's gather begin (compaction: 2048)


def tiled(args: list) -> list | None:
    """The 1-d batch repeated to at least TILED_LANES lanes (uniform arguments as they are), or
    None when there is no 1-d batch of several lanes. Each lane's outcome is a lane of the small
    batch's, and the first failing lane is the same one."""
    sizes = {a.size for a in args if isinstance(a, np.ndarray) and a.ndim == 1 and a.size > 1}
    if len(sizes) != 1:
        return None
    size = sizes.pop()
    reps = -(-TILED_LANES // size)
    return [np.tile(a, reps) if isinstance(a, np.ndarray) and a.ndim == 1 and a.size == size else a for a in args]


def big_size(args: list) -> int:
    return max(np.size(a) for a in args)


def remembered(f):
    """f with each distinct lane's value remembered (a tiled batch repeats a few lanes thousands
    of times); exceptions are not remembered: the oracle stops at the first."""
    values: dict = {}

    def lane(*args):
        key = tuple((type(a).__name__, repr(a)) for a in args)  # repr tells -0.0 from 0.0
        if key not in values:
            values[key] = f(*args)
        return values[key]

    lane.__name__, lane.__qualname__, lane.__module__ = f.__name__, f.__qualname__, f.__module__
    lane.__signature__ = inspect.signature(f)
    return lane


def _engine_frames(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    return "\n".join(f"  {Path(fr.filename).name}:{fr.lineno} {fr.name}" for fr in frames
                     if "vectorizer" in fr.filename and "/tests/" not in fr.filename)


def _in_transform(exc: BaseException) -> bool:
    return any(fr.name == "lower" and fr.filename.endswith("pipeline.py")
               for fr in traceback.extract_tb(exc.__traceback__))


def _where(exc: BaseException) -> str:
    """The innermost vectorizer frame (file:function) an exception came from."""
    frames = [fr for fr in traceback.extract_tb(exc.__traceback__)
              if "/vectorizer/" in fr.filename and "/tests/" not in fr.filename]
    if not frames:
        return "?"
    return f"{Path(frames[-1].filename).name}:{frames[-1].name}"


def _diff(a: str, b: str) -> str:
    import difflib

    return "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=1))


def compare(vf, f, args) -> str | None:
    """None if vf keeps the contract against f on args, else what differs."""
    complex_lane = _first_complex(f, args)
    if complex_lane is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                got = vf(*args)
        except VectorizeValueError as exc:
            if f"lane {complex_lane}" in str(exc):
                return None
            return f"expected a VectorizeValueError for the complex result on lane {complex_lane}, got {exc}"
        except Exception as exc:  # noqa: BLE001
            return f"expected a VectorizeValueError for the complex result on lane {complex_lane}, got {exc!r}"
        return f"expected a VectorizeValueError for the complex result on lane {complex_lane}, got {got!r}"
    try:
        oracle.check(vf, f, *args)
    except AssertionError as exc:
        return (f"{category(vf, f, args, str(exc))}\n{exc}\n  expected: {describe_oracle(f, args)}\n"
                f"  got:      {describe_vf(vf, args)}")
    return None


def normalize(text: str) -> str:
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"[-+]?\d[\w.+-]*", "N", text)[:120]


def category(vf, f, args, message: str) -> str:
    """The kind of disagreement, without values: tells bugs apart (and Hypothesis shrinks each)."""
    expected = oracle.oracle(f, *args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            vf(*args)
        got = None
    except Exception as exc:  # noqa: BLE001
        got = exc
    if got is not None and _in_transform(got):
        return f"transform crash in {_where(got)} (call-time specialization): {type(got).__name__}"
    if isinstance(expected, oracle.Raised):
        want = type(expected.exc).__name__
        if got is None:
            return f"missed exception: the scalar function raises {want}, the batched call returns"
        if type(got) is not type(expected.exc) and not (want in ("BigInt", "OverflowError")
                                                       and isinstance(got, VectorizeOverflowError)):
            return f"batched call raised {type(got).__name__}: {normalize(str(got))}"
        if str(got) != str(expected.exc):
            return f"wrong exception message for {want}"
        return f"exception on the wrong lane: {want}"
    if got is not None:
        return f"batched call raised {type(got).__name__}: {normalize(str(got))}"
    if "dtype" in message or "kinds" in message or "shape" in message:
        return f"wrong result type or shape: {normalize(message)}"
    return "wrong value"


def _first_complex(f, args):
    """The lane where f first returns a complex number, when no lane raises (the loop's
    exception wins over a refused result, whichever lane comes first)."""
    _, lanes, indices = oracle.lanes(*args)
    first = None
    for lane, idx in zip(lanes, indices):
        try:
            value = f(*lane)
        except Exception:  # noqa: BLE001 - the ordinary oracle handles exceptions
            return None
        if first is None and any(isinstance(v, complex) for v in (value if isinstance(value, tuple) else (value,))):
            first = tuple(int(i) for i in idx)
    return first


def _lane_outcome(f, lane):
    try:
        return ("value", f(*lane))
    except Exception as exc:  # noqa: BLE001
        return ("raise", exc)


def _same(expected, got) -> bool:
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and all(
            _same(e, g) for e, g in zip(expected, got))
    if isinstance(expected, bool) and not isinstance(got, bool):
        expected = int(expected)
    if isinstance(expected, int) and isinstance(got, float):
        return oracle._exact_float(expected) and float(expected) == got  # README: exact ints are stored
    return oracle.same_value(expected, got)


def lanewise_either(vf, f, g, args) -> str | None:
    """Each lane of vf equals f's or g's outcome on that lane (libm or NumPy values)."""
    shape, lanes, indices = oracle.lanes(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            got = vf(*args)
        except Exception as exc:  # noqa: BLE001
            for lane in lanes:
                a, b = _lane_outcome(f, lane), _lane_outcome(g, lane)
                for kind, v in (a, b):
                    if kind == "raise" and type(v) is type(exc) and str(v) == str(exc):
                        return None
                if a[0] == "value" and b[0] == "value":
                    continue
            return f"batched raised {exc!r}, which no lane of either oracle raises first"
    columns = list(got) if isinstance(got, tuple) else [got]
    columns = [np.asarray(c) for c in columns]
    for lane, idx in zip(lanes, indices):
        values = tuple(c[idx].item() for c in columns)
        value = values if isinstance(got, tuple) else values[0]
        outcomes = [_lane_outcome(f, lane), _lane_outcome(g, lane)]
        if not any(kind == "value" and _same(v, value) for kind, v in outcomes):
            return f"lane {idx}: batched {value!r}, libm oracle {outcomes[0][1]!r}, NumPy oracle {outcomes[1][1]!r}"
    return None


def describe_oracle(f, args, limit: int = 12) -> str:
    _, lanes, indices = oracle.lanes(*args)
    out = []
    for lane, idx in list(zip(lanes, indices)):
        try:
            out.append(repr(f(*lane)))
        except Exception as exc:  # noqa: BLE001
            out.append(f"raises {type(exc).__name__}({str(exc)!r}) on lane {tuple(int(i) for i in idx)}")
            break
    more = f" ... ({len(out)} lanes)" if len(out) > limit else ""
    return "[" + ", ".join(out[:limit]) + more + "]"


def describe_vf(vf, args) -> str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            got = vf(*args)
    except Exception as exc:  # noqa: BLE001
        notes = " ".join(getattr(exc, "__notes__", []))
        return f"raises {type(exc).__name__}({str(exc)!r}) {notes}".strip()
    if isinstance(got, tuple):
        return "(" + ", ".join(_array_repr(g) for g in got) + ")"
    return _array_repr(got)


def _array_repr(a) -> str:
    a = np.asarray(a)
    return f"{a.dtype}{list(a.shape)} {a.tolist()!r}"


# -- regression files ---------------------------------------------------------------------------
def encode_arg(name: str, value) -> str:
    if isinstance(value, np.ndarray):
        kind = {"b": "bool", "i": "int", "f": "float"}[value.dtype.kind]
        shape = "x".join(str(n) for n in value.shape) or "0d"
        items = [_encode_value(kind, v) for v in value.ravel().tolist()]
        return f"{name} {kind} array {shape} {' '.join(items)}".rstrip()
    kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
    return f"{name} {kind} scalar {_encode_value(kind, value)}"


def _encode_value(kind: str, v) -> str:
    if kind == "float":
        return float(v).hex()
    return repr(bool(v)) if kind == "bool" else str(int(v))


def decode_arg(text: str):
    parts = text.split()
    name, kind, form = parts[0], parts[1], parts[2]
    parse = {"float": float.fromhex, "int": int, "bool": lambda s: s == "True"}[kind]
    if form == "scalar":
        return name, parse(parts[3])
    shape = () if parts[3] == "0d" else tuple(int(n) for n in parts[3].split("x"))
    values = [parse(s) for s in parts[4:]]
    return name, np.array(values, dtype=_DTYPES[kind]).reshape(shape)


def write_regression(source: str, shim_source: str, params, args, outcome: Outcome, found: str,
                     classb: bool) -> Path:
    REGRESSIONS.mkdir(exist_ok=True)
    lines = [
        "# vectorizer differential-fuzz regression, replayed by tests/fuzz/test_fuzz.py.",
        "# status: open   (set to 'fixed' once the engine passes it: open ones are strict xfails)",
        f"# found: {found}",
        f"# classb: {'yes' if classb else 'no'}",
        f"# backend: {outcome.backend}",
        f"# vectorizer: {vectorizer.__version__}  numpy: {np.__version__}",
    ]
    for (name, _), value in zip(params, args):
        lines.append(f"# arg: {encode_arg(name, value)}")
    for text in outcome.detail.splitlines()[:40]:
        lines.append(f"# | {text}")
    body = source.replace('"""Generated by tests/fuzz/generator.py."""\n', "")
    text = "\n".join(lines) + "\n" + body
    if classb:
        text += "\n" + "\n".join(f"# shim| {line}" for line in shim_source.splitlines()) + "\n"
    arg_lines = [line for line in lines if line.startswith("# arg: ")]
    extra = "" if outcome.backend == "numpy" else outcome.backend  # NumPy's digests as before
    digest = hashlib.sha256((source + repr(arg_lines) + extra).encode()).hexdigest()[:10]
    path = REGRESSIONS / f"reg_{digest}.py"
    path.write_text(text)
    return path


@dataclass
class Regression:
    path: Path
    status: str
    classb: bool
    args: list
    shim_source: str
    backend: str = "numpy"


def read_regression(path: Path) -> Regression:
    status, classb, args, shim, backend = "open", False, [], [], "numpy"
    for line in path.read_text().splitlines():
        if line.startswith("# backend:"):
            backend = line.split(":", 1)[1].strip()
        elif line.startswith("# status:"):
            status = line.split(":", 1)[1].split()[0]
        elif line.startswith("# classb:"):
            classb = line.split(":", 1)[1].strip() == "yes"
        elif line.startswith("# arg: "):
            args.append(decode_arg(line[len("# arg: "):])[1])
        elif line.startswith("# shim| "):
            shim.append(line[len("# shim| "):])
        elif line == "# shim|":
            shim.append("")
    return Regression(path, status, classb, args, "\n".join(shim) + "\n", backend)


def replay(reg: Regression) -> Outcome:
    module = _import(f"vzfuzz_reg_{reg.path.stem}", reg.path)
    shim = load(reg.shim_source, "regshim") if reg.classb else None
    return differential(module, shim, reg.args, reg.classb, backends=(reg.backend,))
