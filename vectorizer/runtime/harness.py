"""What runs around a generated kernel: canonical inputs in, flag-and-patch out.

1. Inputs are canonicalised to what a lane of the scalar function sees: bool, int64 (signed and
   unsigned ints; values that need more bits are refused) or float64; complex, more-than-double
   precision, datetimes, strings, objects and None are refused with an error naming the argument.
   A NumPy scalar is read by its dtype, exactly as an array of it. Arrays broadcast against each
   other; a 0-d or all-ones input is uniform (one value for every lane).
2. The kernel runs on flat lanes under `np.errstate(all="ignore")`: Python float arithmetic never
   warns, so neither does the batched code.
3. The kernel returns its result and a `flag` array: lanes where Python might raise, or where the
   array result might not be exact. Each flagged lane, in C order, is re-run through the ORIGINAL
   scalar function (called as a loop would: keyword-only parameters by name): if it raises, that
   exception propagates (with a note naming the lane), exactly as the first failing lane of a loop
   would raise it; if it returns, its value patches the lane.

This module imports only NumPy: `vectorizer generate` copies it into standalone modules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_KINDS = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64}
_DTYPES = {"bool": np.bool_, "int": np.int64, "float": np.float64, "num": np.float64}


class InputError(TypeError):
    """An argument a batched function cannot take (raised as `VectorizeInputError` by vectorizer)."""


class LaneOverflowError(OverflowError):
    """A lane's exact result does not fit the result array (int64, or float64 for mixed values)."""


class LaneValueError(ValueError):
    """A lane's result is not a real number (e.g. complex)."""


class UnknownResultError(ValueError):
    """An empty batch ran element by element, and nothing says what the function returns."""


LANE_NOTE = "vectorizer: raised by "
KERNEL_FAILED = LANE_NOTE + "the generated code itself, not by the scalar function"


def kernel_failed(exc: BaseException) -> bool:
    """The exception came out of a generated kernel (an engine bug), not from re-running a lane."""
    return KERNEL_FAILED in getattr(exc, "__notes__", ())


def from_a_lane(exc: BaseException) -> bool:
    """The exception came out of a generated kernel or the scalar function re-run on a lane (the
    notes `_call_kernel` and `_patch` add), not from the runtime itself."""
    return any(note.startswith(LANE_NOTE) for note in getattr(exc, "__notes__", ()))


def _call_kernel(kernel: Callable, args: Sequence[object]) -> tuple[object, object]:
    """The kernel's (result, flag); its own exceptions are marked so that the caller can fall back
    (a generated kernel never raises for a lane: it flags it)."""
    try:
        with np.errstate(all="ignore"):
            return kernel(*args)
    except MemoryError:
        raise
    except Exception as exc:
        exc.add_note(KERNEL_FAILED)
        raise


def canonical(name: str, value: object) -> np.ndarray:
    """The argument as a bool/int64/float64 array, or an `InputError` naming it."""
    if isinstance(value, np.ndarray | np.generic):  # NumPy arrays and scalars: by their dtype
        return _from_array(name, np.asarray(value))
    if isinstance(value, bool):
        return np.asarray(value, dtype=np.bool_)
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise InputError(f"argument {name!r}: {value} does not fit in int64")
        return np.asarray(value, dtype=np.int64)
    if isinstance(value, float):
        return np.asarray(value, dtype=np.float64)
    if value is None:
        raise InputError(f"argument {name!r}: expected a number or a numeric array, got None")
    if isinstance(value, complex):
        raise InputError(f"argument {name!r}: complex numbers are not supported (the scalar function works on real numbers)")
    if isinstance(value, str | bytes):
        raise InputError(f"argument {name!r}: expected a number or a numeric array, got {type(value).__name__}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InputError(f"argument {name!r}: cannot make an array of it ({exc})") from None
    return _from_array(name, arr)


def _from_array(name: str, arr: np.ndarray) -> np.ndarray:
    """A NumPy array (or 0-d array of a NumPy scalar) as bool/int64/float64: unsigned ints that
    fit are ints; complex, datetimes, strings and more-than-double precision are refused."""
    kind = arr.dtype.kind
    if kind == "O":
        return _from_objects(name, arr)
    if kind == "c":
        raise InputError(f"argument {name!r}: complex numbers are not supported (the scalar function works on real numbers)")
    if kind not in "biuf":
        raise InputError(f"argument {name!r}: expected numbers, got {arr.dtype} values")
    if arr.dtype.itemsize > 8:
        raise InputError(f"argument {name!r}: dtype {arr.dtype} has more precision than float64; convert it first")
    if kind == "u" and arr.dtype.itemsize == 8:
        _check_uint64(name, arr)
    dtype = _KINDS[kind]
    return arr if arr.dtype == dtype else arr.astype(dtype)


def _check_uint64(name: str, arr: np.ndarray) -> None:
    """Refuse a uint64 value that int64 cannot hold, naming its element."""
    too_big = (arr > np.uint64(_INT64_MAX)).ravel()
    if too_big.any():
        i = int(np.argmax(too_big))
        where = f", element {lane_index(i, arr.shape)}" if arr.ndim else ""
        raise InputError(f"argument {name!r}{where}: {int(arr.ravel()[i])} does not fit in int64")


def _element_kind(v: object) -> str | None:
    """'b', 'i' or 'f' for a number an object array may hold (a Python or NumPy bool, int or
    float of at most double precision), None for anything else."""
    if isinstance(v, np.generic):
        kind = "i" if v.dtype.kind == "u" else v.dtype.kind
        return kind if kind in "bif" and v.dtype.itemsize <= 8 else None
    if isinstance(v, bool):
        return "b"
    return "i" if isinstance(v, int) else "f" if isinstance(v, float) else None


def _from_objects(name: str, arr: np.ndarray) -> np.ndarray:
    """Object arrays of Python numbers (e.g. ints beyond 2**63 made NumPy choose object)."""
    flat = arr.ravel()
    kinds = set()
    for i, v in enumerate(flat):
        kind = _element_kind(v)
        if kind is None:
            raise InputError(f"argument {name!r}, element {lane_index(i, arr.shape)}: expected a number, got {type(v).__name__} {v!r}")
        if kind == "i" and not _INT64_MIN <= int(v) <= _INT64_MAX:
            raise InputError(f"argument {name!r}, element {lane_index(i, arr.shape)}: {int(v)} does not fit in int64")
        kinds.add(kind)
    if len(kinds) > 1:
        raise InputError(f"argument {name!r}: mixes {' and '.join(sorted(kinds))} elements; give it one numeric dtype")
    kind = kinds.pop() if kinds else "f"
    return np.array(flat.tolist(), dtype=_KINDS[kind]).reshape(arr.shape)


def where(cond, yes, no):
    """np.where(cond, yes, no), without a branch per lane for 8-byte numbers on a mixed `cond`.

    np.where copies each element behind a branch: ~4 ns a lane when `cond` is random (a
    mispredicted branch every other lane), 0.6 ns when it is nearly all one way. Selecting the
    bits instead, ((yes ^ no) & -cond) ^ no, costs ~1 ns a lane whatever `cond` holds, and keeps
    every bit (NaN payloads, -0.0) as np.where does. Under 4096 lanes set-up costs more.
    """
    if not isinstance(cond, np.ndarray) or cond.dtype != np.bool_ or cond.size < 4096:
        return np.where(cond, yes, no)
    kind = np.result_type(yes, no)
    taken = np.count_nonzero(cond)
    if kind.itemsize != 8 or kind.kind not in "fi" or min(taken, cond.size - taken) * 32 < cond.size:
        return np.where(cond, yes, no)  # nearly all one way: its branch predicts well
    no_bits = np.asarray(no, kind).view(np.int64)
    differ = np.bitwise_xor(np.asarray(yes, kind).view(np.int64), no_bits)
    bits = cond.astype(np.int64)
    np.negative(bits, out=bits)  # all 64 bits set on the lanes of `cond`
    if bits.shape == np.broadcast_shapes(bits.shape, differ.shape):
        bits &= differ  # in place: two new arrays, not three (~20% less time)
    else:
        bits = bits & differ
    bits ^= no_bits
    return bits.view(kind)


def power(x, y):
    """np.power(x, y) in float64, with pow's values at -0.0 and -inf for an exponent of 0.5.

    When the exponent is one number for every element, NumPy computes x ** 0.5 as sqrt(x): -0.0
    at -0.0 and NaN at -inf, where pow (and Python) give 0.0 and inf. sqrt(|x|) keeps the speed
    (sqrt is correctly rounded; glibc's pow is at times 1 ulp from it, within the bound) and
    pow's values there; a negative base's lane is flagged anyway (a complex result, or math.pow's
    domain error). NumPy's other scalar exponents give C's pow (tests/rules/test_rules.py)."""
    if np.ndim(y) == 0 and y == 0.5:
        return np.sqrt(np.abs(x), dtype=np.float64)
    return np.power(x, y, dtype=np.float64)


def masked(mask, fn, *args, **kwargs):
    """fn(*args, **kwargs) for the lanes of `mask`; the other lanes hold 0 (nothing reads them).

    A batched branch runs on every lane, so a costly call in it (pow, exp, sin, erfc...: 9-55 ns
    a lane here) is paid for the lanes that skip the branch too. When at most half the lanes
    take it, only they are computed: their indices, the operands gathered, the results scattered
    into zeros (~1.1 + 4 * fraction ns a lane; drag_coefficient's `reynolds ** 0.687` on a third
    of the lanes: 37 -> 24 ns a lane for the whole kernel). Each lane's value is the same bits.
    """
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.ndim != 1 or mask.size < 4096 \
            or any(np.ndim(a) and np.shape(a) != mask.shape for a in args):
        return fn(*args, **kwargs)
    if 2 * np.count_nonzero(mask) > mask.size:
        return fn(*args, **kwargs)  # gathering would cost more than the lanes it skips
    lanes = np.flatnonzero(mask)
    part = np.asarray(fn(*(a[lanes] if np.ndim(a) else a for a in args), **kwargs))
    out = np.zeros(mask.shape, part.dtype)
    out[lanes] = part
    return out


class Compaction:
    """The lanes a masked while loop still runs, gathered into short arrays once few remain; the
    last few of a long tail are left to the scalar function.

    `compact(active, flag, *values)` returns the loop's mask, flag array and variables restricted
    to the active lanes (the first time it keeps full-size copies to write back into); `expand`
    writes the short arrays back and returns the full ones. Loops whose lanes finish at
    different iterations then stop paying for the lanes that left (the long-tail cost of
    masking).

    An iteration costs about a microsecond an operation however few lanes it runs: 100-300 times
    what Python spends on one lane's iteration. Once at most TAIL_LANES lanes remain, and they
    have run long enough (ski rental: the tail's iterations so far, at TAIL_LANES lanes' worth
    each, cover what re-running them from the start would cost at the loop's pace), `compact`
    flags them and ends the loop: the runtime re-runs the flagged lanes with the scalar function
    (flag and patch), which is exact and bounds the tail by what the Python loop would spend.
    """

    MIN_LANES = 2048  # below this, gathering costs more than masking saves
    FRACTION = 0.5  # compact once at most this fraction of the lanes is still active
    TAIL_LANES = 128  # at most this many lanes: an iteration costs more than Python spends on them
    TAIL_PATIENCE = 16  # iterations a tail runs at least (short tails cost little; inner loops have many)

    def __init__(self) -> None:
        self.index: np.ndarray | None = None  # positions of the carried lanes in the full arrays
        self.full: list[np.ndarray] = []
        self.iterations = 0
        self.tail = 0  # iterations with at most TAIL_LANES lanes
        self.give_up = False

    def worth(self, active: np.ndarray) -> bool:
        self.iterations += 1
        count = np.count_nonzero(active)
        if count <= self.TAIL_LANES:
            self.tail += 1
            if self.tail >= self.TAIL_PATIENCE and self.tail * self.TAIL_LANES >= count * self.iterations:
                self.give_up = True
                return True
        size = np.size(active)
        return size >= self.MIN_LANES and count <= self.FRACTION * size

    def compact(self, active: np.ndarray, flag: np.ndarray, *values: object) -> tuple:
        if self.give_up:  # the scalar function re-runs the lanes left; the loop ends here
            return (np.zeros_like(active), flag | active, *values)
        values = (flag, *values)
        keep = np.flatnonzero(active)
        if self.index is None:
            size = np.size(active)
            self.full = [np.array(np.broadcast_to(v, (size,))) for v in values]
            self.index = keep
        else:
            for full, v in zip(self.full, values):
                full[self.index] = v
            self.index = self.index[keep]
        return (np.ones(keep.size, dtype=np.bool_), *(np.broadcast_to(v, np.shape(active))[keep] for v in values))

    def expand(self, *values: object) -> tuple:
        if self.index is None:
            return values
        for full, v in zip(self.full, values):
            full[self.index] = v
        return tuple(self.full)


def as_kind(name: str, a: np.ndarray, kind: str) -> np.ndarray:
    """An argument as the kind its annotation names (generated modules are typed): bool widens,
    ints become floats when float64 holds them exactly; anything else is refused."""
    if a.dtype.kind == kind:
        return a
    if a.dtype.kind == "b" and kind in "if":
        return a.astype(_KINDS[kind])
    if a.dtype.kind == "i" and kind == "f":
        if a.size and np.max(np.abs(a)) > 2**53:
            raise InputError(f"argument {name!r}: ints beyond 2**53 cannot become float64 exactly")
        return a.astype(np.float64)
    want = {"b": "bool", "i": "int", "f": "float"}[kind]
    raise InputError(f"argument {name!r}: expected {want} values (its annotation), got {a.dtype} values")


class Batch:
    """The lanes of one call: each argument's leading dimensions broadcast to `shape` (the lanes);
    its trailing `example_ndim` dimensions are one lane's own array (0 for a number per lane)."""

    def __init__(self, names: Sequence[str], arrays: Sequence[np.ndarray], example_ndims: Sequence[int] | None = None) -> None:
        self.names, self.arrays = list(names), list(arrays)
        self.ndims = list(example_ndims) if example_ndims is not None else [0] * len(self.arrays)
        leading = [a.shape[: a.ndim - k] for a, k in zip(self.arrays, self.ndims)]
        try:
            self.shape: tuple[int, ...] = np.broadcast_shapes(*leading)
        except ValueError:
            shapes = ", ".join(f"{n} {s}" for n, s in zip(self.names, leading))
            raise ValueError(f"arguments do not broadcast to one shape: {shapes}") from None
        self.size = math.prod(self.shape)

    def example_shape(self, i: int) -> tuple[int, ...]:
        a = self.arrays[i]
        return a.shape[a.ndim - self.ndims[i]:]

    def uniform(self, i: int) -> bool:
        """One value for every lane: no lane dimensions, or one element broadcast over more lanes."""
        lead = self.arrays[i].shape[: self.arrays[i].ndim - self.ndims[i]]
        return len(lead) == 0 or (math.prod(lead) == 1 and lead != self.shape)

    def kernel_arg(self, i: int, uniform_ok: bool) -> object:
        a, example = self.arrays[i], self.example_shape(i)
        if uniform_ok and self.uniform(i):
            value = a.reshape(example)
            return value[()] if not example else value
        full = a if a.shape == self.shape + example else np.broadcast_to(a, self.shape + example)
        return full.reshape((self.size, *example))

    def lane(self, j: int) -> list[object]:
        """What a loop over the lanes would pass for flat lane `j`: Python numbers (`.item()`),
        or a copy of the lane's own array."""
        index = np.unravel_index(j, self.shape) if self.shape else ()
        out: list[object] = []
        for i, a in enumerate(self.arrays):
            full = np.broadcast_to(a, self.shape + self.example_shape(i))
            item = full[index]
            out.append(np.array(item) if self.ndims[i] else item.item())
        return out

    def columns(self, lanes: np.ndarray) -> list[list[object]]:
        """Each argument's values on the flat `lanes`, as `lane` gives them: one list per argument."""
        index = np.unravel_index(lanes, self.shape) if len(self.shape) > 1 else (lanes,)
        out: list[list[object]] = []
        for i, a in enumerate(self.arrays):
            if self.uniform(i) and not self.ndims[i]:
                out.append([a.reshape(()).item()] * len(lanes))  # one Python number, for every lane
                continue
            if self.ndims[i] == 0 and a.shape == self.shape and a.ndim == 1:
                out.append(a.take(lanes).tolist())
                continue
            full = np.broadcast_to(a, self.shape + self.example_shape(i))
            items = full[index] if self.shape else np.broadcast_to(full, (len(lanes), *full.shape))
            out.append([np.array(item) for item in items] if self.ndims[i] else items.tolist())
        return out

    def where(self, j: int) -> str:
        return f"lane {lane_index(j, self.shape)} of {self.shape}" if self.shape else "the call"


def broadcast(names: Sequence[str], arrays: Sequence[np.ndarray]) -> tuple[int, ...]:
    return Batch(names, arrays).shape


def is_uniform(a: np.ndarray, shape: tuple[int, ...]) -> bool:
    """One value for every lane: 0-d, or a single element broadcast over a larger batch."""
    return a.ndim == 0 or (a.size == 1 and a.shape != shape)


def call(
    kernel: Callable[..., tuple[object, object]],
    scalar: Callable[..., object],
    names: Sequence[str],
    values: Sequence[object],
    kinds: str,
    result_types: Sequence[str],
    returns_tuple: bool,
    chunked: bool = True,
) -> object:
    """Entry point of a generated module's function: typed arguments, every argument batched.
    Numba kernels pass `chunked=False`: their parallel driver splits the batch itself."""
    arrays = [as_kind(n, canonical(n, v), k) for n, v, k in zip(names, values, kinds)]
    name = scalar.__name__.removeprefix("_scalar_")  # generated modules name their copies _scalar_<f>
    return run(kernel, scalar, Batch(names, arrays), result_types, returns_tuple, name, uniform=False, chunked=chunked)


def per_element(scalar: Callable[..., object], batch: Batch,
                structure: tuple[bool, Sequence[str]] | None = None) -> object:
    """The reference loop: the scalar function on each lane's values, in C order.

    The results' structure comes from the results themselves; an empty batch has none, so it
    takes `structure`, (returns a tuple?, result types) as a kernel gives them, and raises
    `UnknownResultError` when that is None rather than guess one array or a tuple."""
    results: list[object] = []
    for j in range(batch.size):
        try:
            results.append(call_lane(scalar, batch.names, batch.lane(j)))
        except Exception as exc:
            exc.add_note(f"{LANE_NOTE}{getattr(scalar, '__qualname__', scalar)} on {batch.where(j)}")
            raise
    if not results:
        return _empty(scalar, batch, structure)
    name = getattr(scalar, "__qualname__", "the function").removeprefix("_scalar_")  # standalone copies
    if isinstance(results[0], tuple):
        return tuple(_column(list(c), batch, name) for c in zip(*results))
    return _column(results, batch, name)


def call_lane(scalar: Callable[..., object], names: Sequence[str], lane: Sequence[object]) -> object:
    """Call the scalar function on one lane as a loop would: its positional parameters by
    position, its keyword-only parameters (after `*`) by name."""
    code = getattr(scalar, "__code__", None)
    positional = code.co_argcount if code is not None else len(lane)
    return scalar(*lane[:positional], **dict(zip(names[positional:], lane[positional:])))


def _empty(scalar: Callable[..., object], batch: Batch, structure: tuple[bool, Sequence[str]] | None) -> object:
    """The results of an empty batch, shaped as `structure` says (per-example sizes are unknown:
    an array result per lane gets size-0 dimensions of its rank)."""
    if structure is None:
        raise UnknownResultError(
            f"{getattr(scalar, '__qualname__', scalar)} ran element by element on an empty batch (shape {batch.shape}): "
            "with no lane to run, whether it returns one value or a tuple is unknown; "
            "give it a non-empty batch, or return a tuple literal (`return a, b`) so its source says so")
    returns_tuple, result_types = structure
    outs = [np.empty(batch.shape + (0,) * r.rank, dtype=r.dtype) for r in map(_Result, result_types)]
    return tuple(outs) if returns_tuple else outs[0]


def _column(values: list[object], batch: Batch, name: str = "the function") -> object:
    if values and isinstance(values[0], np.ndarray):
        out = np.array(values).reshape(batch.shape + np.shape(values[0]))
        return out
    kinds = {type(v) for v in values}
    kind = "float"
    if kinds and kinds <= {bool, np.bool_}:
        kind = "bool"
    elif kinds and kinds <= {int, bool, np.int64, np.bool_}:
        kind = "int"
    out = np.zeros(len(values), dtype=_DTYPES[kind])
    for j, v in enumerate(values):
        out[j] = _store(v, kind, name, j, batch)
    out = out.reshape(batch.shape)
    return out[()] if batch.shape == () else out


# Lanes per kernel call: each chunk's loops end when its own lanes finish, and its temporaries
# stay in cache. Measured on 2 cores at 1e6 lanes (ms, 32K / 64K / 128K / 256K lanes a chunk):
# mandelbrot 336/277/197/317, is_prime 449/260/158/164, poly_horner 6.0/4.8/3.1/2.8, haversine
# 30/29/38/78, softplus 8.0/6.9/7.1/8.4. Fewer, larger chunks pay for the Python-level cost of each
# masked-loop iteration; too few leave a thread idle. Kernels with a masked loop (`while
# np.any(...)`) take CHUNK_LOOP: each iteration costs every chunk ~1 µs an operation, whatever its
# lanes, and a long tail of a few lanes runs as many iterations in each chunk (ms, 128K / 256K /
# 512K: is_prime 218/152/114, mandelbrot 194/164/211, collatz 722/698/897, orbit 135/123/131,
# kepler 109/112/119, cubic_root_bisect 154/164/258).
CHUNK = 1 << 17
CHUNK_LOOP = 1 << 18
_pool = None
_allocator_ready = False


def _ready_allocator() -> None:
    """Free one large block, once, so that glibc keeps the memory of freed temporaries.

    glibc's malloc gives freed memory back to the OS once more than a threshold of it sits at
    the top of the heap, and every page of it faults again when the next temporaries are
    allocated (~1.7 µs a page in this project's VM: half the time of a kernel made of many
    temporaries). The threshold adapts to the largest block freed, up to 32 MB, as in any
    process that frees one large array; until then it is 2 MB or less, below one chunk's
    temporaries. An untouched block costs a mmap and a munmap; other allocators are unaffected.
    """
    global _allocator_ready
    _allocator_ready = True
    block = np.empty(3 << 20)  # 24 MB
    del block


def threads() -> int:
    import os

    try:
        return max(1, int(os.environ.get("VECTORIZER_THREADS", "") or (os.cpu_count() or 1)))
    except ValueError:
        return 1


def _map(fn: Callable[[int], object], starts: range) -> list:
    """fn over chunk starts, in order, on a thread pool when there are cores (NumPy drops the GIL)."""
    global _pool
    count = min(threads(), len(starts))
    if count <= 1:
        return [fn(start) for start in starts]
    if _pool is None or _pool._max_workers != count:  # type: ignore[attr-defined]
        from concurrent.futures import ThreadPoolExecutor

        _pool = ThreadPoolExecutor(count, thread_name_prefix="vectorizer")
    return [future.result() for future in [_pool.submit(fn, start) for start in starts]]


# Below this many lanes a batch runs as one piece. Measured (ms, one piece vs two threads):
# mandelbrot 12.7 vs 14.8 at 40,000 lanes (a loop of many small steps contends for the GIL),
# 28.3 vs 27.8 at 1e5; black_scholes 23.4 vs 14.4 and smoothstep 1.59 vs 1.18 at 1e5.
PARALLEL_MIN_LANES = 1 << 16
# Kernels without a call to a libm-class function (`HEAVY_CALLS`) split later: their operations
# are a pass over memory each, which a second thread shares rather than speeds up, and the two
# threads take turns at the GIL between passes. Measured at 1e5 lanes, time on two threads /
# one (paired, interleaved in one process): poly_horner 1.86, is_prime 2.04, mandelbrot 1.35,
# quadratic_root 1.20, smoothstep 1.12, collatz 1.00, cubic_root_bisect 0.91; the kernels
# calling exp/log/pow/sin/erfc 0.61-0.87. At 1.6e5 the light ones range 0.74-1.74, at 2.5e5
# 0.74-0.96.
PARALLEL_MIN_LANES_LIGHT = 1 << 17
HEAVY_CALLS = frozenset({
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "power", "float_power", "sin", "cos",
    "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "hypot", "cbrt", "_vz_erf", "_vz_erfc", "_vz_power",
    "erf", "erfc",  # vecmath.py's, with vector_math=True
})  # np.vectorize (gamma, lgamma) holds the GIL: a second thread would only wait for it

# backend="auto" on Numba (autotrial.py, imported only then): calls of EXPLORE_LANES or more are
# timed on both backends, a few whole calls of each size class; the first call of TRIAL_LANES or
# more is split into pieces, half on each backend, first.
EXPLORE_LANES = 1 << 16
TRIAL_LANES = 1 << 19


def chunk_starts(size: int, chunk: int = CHUNK, min_lanes: int = PARALLEL_MIN_LANES) -> range | None:
    """Where each chunk starts (its length is the range's step), or None to run in one piece:
    chunks of at most `chunk` lanes, and at least one per thread from `min_lanes` lanes."""
    count = threads()
    if size > 2 * chunk:
        return range(0, size, chunk)
    if count > 1 and size >= min_lanes:
        step = -(-size // count)
        return range(0, size, step)
    return None


def parallel_min_lanes(kernel: Callable) -> int:
    """PARALLEL_MIN_LANES for a generated NumPy kernel that calls a HEAVY_CALLS function, else
    PARALLEL_MIN_LANES_LIGHT. Only speed depends on it: lanes are independent."""
    code = getattr(kernel, "__code__", None)
    return PARALLEL_MIN_LANES if code is None or not HEAVY_CALLS.isdisjoint(code.co_names) else PARALLEL_MIN_LANES_LIGHT


def chunk_lanes(kernel: Callable) -> int:
    """CHUNK_LOOP for a generated NumPy kernel with a masked loop (`while np.any(active):`), else
    CHUNK. Only speed depends on it: lanes are independent."""
    code = getattr(kernel, "__code__", None)
    return CHUNK_LOOP if code is not None and "any" in code.co_names else CHUNK


class _Result:
    """One returned value: "float" (a number per lane) or "float:2:b" (an array per lane;
    b: the kernel gives it with a lanes axis, u: one array for every lane)."""

    def __init__(self, descriptor: str) -> None:
        kind, _, rest = descriptor.partition(":")
        self.dtype = _DTYPES[kind]
        self.kind = kind
        self.rank = int(rest.split(":")[0]) if rest else 0
        self.batched = rest.endswith(":b") if rest else True

    def lanes(self, value: object, size: int) -> np.ndarray:
        """The value as a fresh array with a lanes axis (the kernel may give one value for all)."""
        arr = np.asarray(value)
        if self.rank and not self.batched:
            arr = arr[None]  # the same array for every lane
        if arr.shape[:1] == (size,) and arr.ndim == self.rank + 1 and arr.dtype == self.dtype \
                and arr.flags.writeable and owns_memory(arr):
            return arr  # already a fresh array of the kernel's own
        return np.array(np.broadcast_to(arr, (size, *arr.shape[1:]) if arr.ndim == self.rank + 1 else (size,)),
                        dtype=self.dtype)


def aliases(value: np.ndarray, others: Sequence[object]) -> bool:
    """`value` is, or shares memory with, one of `others` (the arguments, the results before it): a
    kernel may return an input as it is, or an array once for each time the scalar function returns
    it (`return y, y`), and each result must be the caller's own."""
    return any(value is o or (value.base is not None and np.may_share_memory(value, o)) for o in others)


def owns_memory(arr: np.ndarray) -> bool:
    """The array owns its memory: NumPy's allocation, or one a Numba kernel made (Numba's memory-info
    object is its base; copying such a result cost 0.3 ms a call at 1e6 float64 lanes)."""
    base = arr.base
    return base is None or (type(base).__name__ == "_MemInfo" and type(base).__module__ == "_nrt_python")


def run(
    kernel: Callable[..., tuple[object, object]],
    scalar: Callable[..., object],
    batch: Batch,
    result_types: Sequence[str],
    returns_tuple: bool,
    qualname: str,
    uniform: bool = True,
    chunked: bool = True,
) -> object:
    """Run the kernel on flattened lanes, patch flagged lanes with the scalar function, reshape.

    With `uniform`, single-value arguments are passed as they are (the kernel was specialized for
    them); otherwise every argument gets a lanes axis. With `chunked`, large batches run in chunks
    (`chunk_starts`), on threads (lanes are independent, so results are the same bits); a chunk's
    error is raised before any later chunk's, as the lanes' order requires."""
    results = [_Result(t) for t in result_types]
    args = [batch.kernel_arg(i, uniform) for i in range(len(batch.arrays))]
    lanes_axis = [not (uniform and batch.uniform(i)) for i in range(len(batch.arrays))]
    size = batch.size
    if chunked and not _allocator_ready and size >= 1 << 14:
        _ready_allocator()
    starts = chunk_starts(size, chunk_lanes(kernel), parallel_min_lanes(kernel)) if chunked and any(lanes_axis) else None
    if starts is not None:
        import threading  # here: standalone modules copy this file without its imports

        step = starts.step
        outs: list[np.ndarray] = []
        flags = np.zeros(size, dtype=np.bool_)
        first = threading.Lock()

        def one(start: int) -> None:
            stop = min(start + step, size)
            part = [a[start:stop] if b else a for a, b in zip(args, lanes_axis)]
            result, flag = _call_kernel(kernel, part)
            values = list(result) if returns_tuple else [result]
            flag = _exact_ints(values, results, flag, stop - start)
            values = [r.lanes(v, stop - start) for r, v in zip(results, values)]
            with first:  # the first chunk done fixes the result shapes (the same for every chunk)
                if not outs:
                    outs.extend(np.empty((size, *v.shape[1:]), dtype=r.dtype) for r, v in zip(results, values))
            for out, value in zip(outs, values):
                out[start:stop] = value  # each thread copies its own chunk
            if flag is not None:
                flags[start:stop] = flag

        _map(one, starts)
        flag = flags
    else:
        result, flag = _call_kernel(kernel, args)
        values = list(result) if returns_tuple else [result]
        flag = _exact_ints(values, results, flag, size)
        outs = []
        for r, v in zip(results, values):
            arr = r.lanes(v, size)
            outs.append(arr.copy() if aliases(arr, (*args, *outs)) else arr)
    if flag is not None and np.any(flag):
        _patch(scalar, batch, np.flatnonzero(np.broadcast_to(flag, (size,))), outs, results, returns_tuple, qualname)
    shaped = [o.reshape(batch.shape + o.shape[1:]) for o in outs]
    if batch.shape == ():
        shaped = [o[()] for o in shaped]
    return tuple(shaped) if returns_tuple else shaped[0]


def _exact_ints(values, results, flag, size: int) -> object:
    """`flag`, plus the lanes of a mixed int/float result (stored as float64) where the kernel
    gives an int that float64 cannot hold exactly (a uniform branch keeps Python's int): the
    re-run refuses them (`_store`) unless a lane raises first, as a patched lane's is refused."""
    for value, r in zip(values, results):
        arr = np.asarray(value)
        if r.kind != "num" or r.rank or arr.dtype.kind not in "iu":
            continue
        arr = np.broadcast_to(arr, (size,))
        big = (arr > 2**53) | (arr < -(2**53))
        if not big.any():
            continue
        as_float = arr.astype(np.float64)  # exact where it converts back; 2**63 is not an int64
        big &= (as_float == 2.0**63) | (as_float.astype(np.int64) != arr)
        flag = big if flag is None else big | np.broadcast_to(flag, (size,))
    return flag


def lane_index(i: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(k) for k in np.unravel_index(i, shape)) if shape else ()


PATCH_BLOCK = 1 << 14  # lanes re-run per gathering: bounds the Python objects held at once


def _patch(scalar, batch: Batch, flagged, outs, results, returns_tuple, qualname) -> None:
    """Re-run the flagged lanes (flat indices, ascending) with the scalar function and store
    their values. The first lane that raises, in C order, raises; a value the result arrays
    cannot hold (complex, an int beyond int64...) is refused only when no lane raises, as the
    loop would raise that lane's exception before anything is stored.

    A lane costs about a scalar call: each block of lanes gathers its arguments with one
    `.tolist()` each, calls the function in a tight loop and stores the values with one
    assignment per result; messages are formatted only for the lane that raises."""
    refusal: Exception | None = None
    for at in range(0, len(flagged), PATCH_BLOCK):
        lanes = flagged[at:at + PATCH_BLOCK]
        columns = batch.columns(lanes)
        values = _rerun(scalar, batch, columns, lanes, qualname)
        if refusal is None:
            refusal = _store_block(values, lanes, outs, results, returns_tuple, qualname, batch)
    if refusal is not None:
        raise refusal


def _rerun(scalar, batch: Batch, columns: list[list[object]], lanes, qualname: str) -> list[object]:
    """The scalar function's value on each lane of `columns`; the first exception propagates
    with a note naming its lane."""
    code = getattr(scalar, "__code__", None)
    positional = code.co_argcount if code is not None else len(columns)
    iters = [iter(c) for c in columns]
    try:
        if columns and positional >= len(columns):
            return list(map(scalar, *iters))  # the loop in C: ~1.5x cheaper a lane than in Python
        values: list[object] = []
        keywords = batch.names[positional:]  # keyword-only parameters (after `*`) by name
        for lane in zip(*iters):
            values.append(scalar(*lane[:positional], **dict(zip(keywords, lane[positional:]))))
        if not columns:
            values.append(scalar())
        return values
    except Exception as exc:
        m = len(lanes) - 1 - iters[0].__length_hint__() if iters else 0  # the lane map was calling
        args = ", ".join(f"{n}={c[m]!r}" for n, c in zip(batch.names, columns))
        exc.add_note(f"{LANE_NOTE}{qualname} on {batch.where(int(lanes[m]))} ({args})")
        raise


def _store_block(values: list[object], lanes, outs, results, returns_tuple, qualname: str,
                 batch: Batch) -> Exception | None:
    """Store re-run values at `lanes`, or return the refusal of the first (in C order) that a
    result array cannot hold."""
    slots = [list(c) for c in zip(*values)] if returns_tuple else [values]
    if len(slots) == len(outs):
        fast = [_fast_column(c, r) for c, r in zip(slots, results)]
        if all(f is not None for f in fast):
            for out, f in zip(outs, fast):
                out[lanes] = f
            return None
    for m, value in enumerate(values):  # the general case, one lane at a time
        j = int(lanes[m])
        try:
            for out, v, r in zip(outs, list(value) if returns_tuple else [value], results):
                out[j] = _store(v, r.kind, qualname, j, batch)
        except (LaneValueError, LaneOverflowError) as exc:
            return exc
    return None


_FLOATS, _INTS = frozenset({float}), frozenset({int, bool})


def _fast_column(column: list[object], r: _Result) -> np.ndarray | None:
    """The values as an array of the result's dtype when each plainly fits (what `_store` would
    pass and store the same way), else None."""
    if r.rank:
        return None
    kinds = set(map(type, column))
    if r.kind == "bool":
        return np.array(column, dtype=np.bool_) if kinds <= {bool} else None
    if r.kind == "int":
        if not kinds <= _INTS:
            return None
        try:
            return np.array(column, dtype=np.int64)
        except OverflowError:  # an int beyond int64: refused, lane by lane
            return None
    if kinds <= _FLOATS:
        return np.array(column, dtype=np.float64)
    if kinds <= _FLOATS | _INTS and all(-(2**53) <= v <= 2**53 for v in column if type(v) is int):
        return np.array(column, dtype=np.float64)  # ints float64 holds exactly
    return None


def _store(value: object, kind: str, qualname: str, j: int, batch: Batch) -> object:
    """The value to store at flat lane `j`, or a refusal when the result array cannot hold it."""
    if isinstance(value, complex):
        raise LaneValueError(f"{qualname} returned a complex number ({value!r}) on lane {lane_index(j, batch.shape)}; "
                             "a batched result holds real numbers")
    if kind == "int" and isinstance(value, int) and not _INT64_MIN <= value <= _INT64_MAX:
        raise LaneOverflowError(f"{qualname} returned {value} on lane {lane_index(j, batch.shape)}, which does not "
                                "fit in int64 (Python ints are unbounded; the batched result is int64)")
    if kind in ("float", "num") and isinstance(value, int) and not isinstance(value, bool):
        try:
            exact = float(value) == value
        except OverflowError:  # beyond float64's range altogether
            exact = False
        if not exact:
            raise LaneOverflowError(f"{qualname} returned the int {value} on lane {lane_index(j, batch.shape)}, which "
                                    "float64 cannot hold exactly (the result mixes ints and floats)")
    return value
