"""The NumPy helpers generated kernels call: `where`, `power`, `masked`, `Compaction`, `BranchLanes`.

Each is self-contained (NumPy only): a generated module carries a copy of exactly the ones it calls
(codegen/carry.py), named `_vz_<name>`, so that it imports nothing of vectorizer.
"""

from __future__ import annotations

import numpy as np


def where(cond, yes, no):
    """np.where(cond, yes, no), without a branch per lane for 8-byte numbers on a mixed `cond`.

    np.where copies each element behind a branch: ~3 ns a lane when `cond` is random (a
    mispredicted branch every other lane), 0.6 ns when it is nearly all one way. Selecting the
    bits instead, ((yes ^ no) * cond) ^ no on their int64 views, costs ~1 ns a lane whatever
    `cond` holds, and keeps every bit (NaN payloads, -0.0) as np.where does. It makes one new
    array and writes it in place: each array made is memory the OS may have to map afresh, which
    on a VM costs more than the arithmetic. A side that is the number 0 (0.0, not -0.0: all 64
    bits clear; `max(x, 0.0)`) needs no xor: `yes * cond` or `no * ~cond`. Under 4096 lanes
    set-up costs more.
    """
    if not isinstance(cond, np.ndarray) or cond.dtype != np.bool_ or cond.size < 4096:
        return np.where(cond, yes, no)
    kind = np.result_type(yes, no)
    taken = np.count_nonzero(cond)
    if kind.itemsize != 8 or kind.kind not in "fi" or min(taken, cond.size - taken) * 32 < cond.size:
        return np.where(cond, yes, no)  # nearly all one way: its branch predicts well
    yes_bits = np.asarray(yes, kind).view(np.int64)
    no_bits = np.asarray(no, kind).view(np.int64)
    if no_bits.ndim == 0 and no_bits == 0:
        return np.multiply(yes_bits, cond).view(kind)  # 0 off the lanes of `cond`
    if yes_bits.ndim == 0 and yes_bits == 0:
        return np.multiply(no_bits, ~cond).view(kind)  # 0 on them
    bits = np.bitwise_xor(yes_bits, no_bits)
    if bits.shape == np.broadcast_shapes(bits.shape, cond.shape):
        np.multiply(bits, cond, out=bits)  # in place: one new array fewer
    else:
        bits = np.multiply(bits, cond)
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


def array_power(x, y):
    """`x ** y` where each lane's x is a 0-d float array (np.asarray of a number) and y a number
    that differs per lane: NumPy's array `**`, which takes np.square, np.sqrt or np.reciprocal
    of x where the exponent is 2, 0.5 or -1, and np.power elsewhere (whose kernel gives a lane
    the same bits alone or in a batch)."""
    r = np.power(x, y, dtype=np.float64)
    for exponent, shortcut in ((2, np.square), (0.5, np.sqrt), (-1, np.reciprocal)):
        hit = y == exponent
        if np.any(hit):
            r = np.where(hit, shortcut(x), r)
    return r


def stepped_power(x, y):
    """`x ** y` where each lane's y is a one-element array (np.atleast_1d of a number): NumPy runs
    its power loop there with the exponent's step 8, where it takes no shortcut (pow, not x * x,
    for 2.0; not 1.0 / x for -1.0). An exponent broadcast over the lanes would have step 0, and
    the shortcuts: it is copied into an array of the lanes' shape first."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return np.power(x, np.array(np.broadcast_to(y, shape)))


def numpy_power(x, y):
    """np.power(x, y) of numbers where the exponent differs per lane, with each lane's value of
    the scalar function's call on numbers: NumPy runs its power loop there with the exponent's
    step 0, where the loop takes 1.0 / x for an exponent of -1, 1.0 for 0, sqrt for 0.5, x for 1
    and x * x for 2 (numpy/_core/src/umath/loops_umath_fp.dispatch.c.src, POWER_FAST_PATH);
    on an array of exponents it runs its kernel's pow for them, whose bits differ on some lanes."""
    r = np.power(x, y)
    if not isinstance(r, np.ndarray) or r.dtype != np.float64:
        return r
    v = np.asarray(x, dtype=np.float64)
    for exponent, shortcut in ((-1.0, lambda: 1.0 / v), (0.0, lambda: np.ones_like(v)), (0.5, lambda: np.sqrt(v)),
                               (1.0, lambda: v), (2.0, lambda: v * v)):
        hit = y == exponent
        if np.any(hit):
            r = np.where(hit, shortcut(), r)
    return r


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


# NumPy functions a kernel may call that cost like a libm call a lane (engine/chunks.py splits the
# kernels calling them into threads earlier).
HEAVY_CALLS = frozenset({
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "power", "float_power", "sin", "cos",
    "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
    "arctanh", "hypot", "cbrt", "_vz_erf", "_vz_erfc", "_vz_power", "_vz_array_power", "_vz_stepped_power",
    "_vz_numpy_power",
    "erf", "erfc",  # vecmath.py's, with vector_math=True
})  # np.vectorize (gamma, lgamma) holds the GIL: a second thread would only wait for it


class BranchLanes:
    """A costly batched branch run on the lanes that take it alone (passes/ops_to_numpy/branch_lanes.py).

    `BranchLanes(mask)` finds the branch's lanes; `gather(*values)` gives the per-lane values the
    branch reads restricted to them (a number, the same for every lane, stays as it is);
    `scatter(*values)` gives them back full size, the gathered names first, in gather's order,
    then the names the branch binds first: a value the branch did not rebind is its full array
    again, one it rebound is the full value it entered with (zeros, for a name it first binds)
    with the branch's lanes written over, in the dtype the branch gave it. Each
    lane computes the same operations on the same values as when the branch runs on every lane,
    so the bits are the same; the lanes outside it keep what they had, as the merges
    `where(mask, new, old)` keep it.

    It gathers when the mask is a 1-D bool array of at least MIN_LANES lanes and at most FRACTION
    of them take the branch; when none does, the branch runs on empty arrays (about a
    microsecond an operation) instead of on every lane.
    """

    MIN_LANES = 2048  # below this, gathering costs more than the operations it saves
    FRACTION = 0.875  # a branch costly enough to be gathered (passes decide) is worth it up to here

    def __init__(self, mask):
        self.index = None  # the branch's lanes in the full arrays; None: no gathering
        self.size = self.lanes = np.size(mask)
        self.full = ()
        if isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.ndim == 1 \
                and mask.size >= self.MIN_LANES and np.count_nonzero(mask) <= self.FRACTION * mask.size:
            self.index = np.flatnonzero(mask)
            self.lanes = self.index.size

    def gather(self, *values):
        """The values restricted to the branch's lanes: those it rebinds, then those it reads."""
        self.full = values
        if self.index is None:
            return values
        for v in values:
            if np.ndim(v) and np.shape(v) != (self.size,):
                raise ValueError(f"a branch's lanes: a value of shape {np.shape(v)}, not ({self.size},)")
        return tuple(v[self.index] if np.ndim(v) else v for v in values)

    def scatter(self, *values, fresh=0):
        """The rebound values (gather's first ones, in its order, then `fresh` the branch bound
        first) full size, then the values it only read as they entered."""
        kept = len(values) - fresh
        if self.index is None:
            return (*values, *self.full[kept:])
        out = []
        for i, v in enumerate(values):
            old = self.full[i] if i < kept else None
            if np.ndim(v) == 0:
                out.append(v)  # one number for every lane
                continue
            if np.shape(v) != (self.index.size,):
                raise ValueError(f"a branch's lanes: a value of shape {np.shape(v)}, not ({self.index.size},)")
            # A merge's value already has the dtype `where` gives it and the old value; one that
            # does not fit is an assignment no lane outside the branch reads.
            full = np.zeros(self.size, v.dtype) if old is None or np.result_type(old, v) != v.dtype \
                else np.array(np.broadcast_to(old, (self.size,)), dtype=v.dtype)
            full[self.index] = v
            out.append(full)
        return (*out, *self.full[kept:])
