"""A generated JAX module's kernel: its lane function under `jax.vmap` and `jax.jit`, run over a
batch on every local device of JAX's default backend, in chunks, with the transfers overlapped.

* x64: every trace and call runs inside `jax.enable_x64(True)`, a context (thread-local), so a
  user's own JAX configuration (`jax_enable_x64` off, the default) is left as it was.
* Sharding: the lanes axis is split over the local devices (`NamedSharding` on a 1-D mesh); one
  device is the trivial case. Arguments with one value for every lane are replicated.
* Chunks: a batch runs in chunks of `chunk_lanes()` lanes, from the device's memory and the bytes
  a lane holds (its arguments, results and flag, times `LIVE_FACTOR` for the loop carries and
  error bounds XLA keeps live). Chunk i + 1 is put on the devices and dispatched (asynchronously)
  before chunk i's results are copied back, so transfers overlap compute. A last, short chunk is
  padded to one of 16 sizes per octave (its own compilation; a few lanes computed twice).
* The flag: lanes to re-run on the host (engine/patch.py). Only its `any` comes back unless set.
  On an emulated float64 (a TPU's) the host adds the lanes whose float arguments lie outside the
  range the device holds them in (`outside_range`).
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from ...core.types import BOOL, FLOAT, INT, NUM, ResultKind
from .approx import _Active
from .bounds import Bounds

LIVE_FACTOR = 24  # a lane's bytes in flight, as a multiple of its arguments' and results' bytes
MEMORY_SHARE = 0.5  # of the device memory one chunk may fill
HOST_CHUNK = 1 << 22  # lanes per chunk where the device reports no memory (the CPU backend)
MAX_CHUNK = 1 << 25
DTYPES = {FLOAT: np.float64, NUM: np.float64, INT: np.int64, BOOL: np.bool_}  # a result kind's element -> its storage


def x64():
    """The x64 context: `jax.enable_x64(True)`, or the older `jax.experimental.enable_x64()`."""
    if hasattr(jax, "enable_x64") and callable(jax.enable_x64):
        return jax.enable_x64(True)
    from jax.experimental import enable_x64  # pragma: no cover - JAX before 0.5

    return enable_x64()


@dataclass
class Timings:
    """Seconds the last call spent (wall clock; stages overlap): for benchmarks."""

    calls: int = 0
    chunks: int = 0
    lanes: int = 0
    extra: dict[str, float] = field(default_factory=dict)


class Kernel:
    """`kernel(*args) -> (result, flag)` as engine/execute.py calls a generated module's entry:
    batched arguments are 1-D arrays (the lanes), the others scalars."""

    def __init__(self, lane: Callable, name: str, batched: tuple[bool, ...], result: tuple[str, ...],
                 returns_tuple: bool) -> None:
        # a call where every argument is uniform runs as one lane of a batch (vmap needs an axis)
        self.lane, self.name, self.batched = lane, name, batched if any(batched) else (True,) * len(batched)
        self.uniform_call = not any(batched)
        self.result = tuple(ResultKind.parse(t) for t in result)  # the module's VECTORIZER_RESULT
        self.returns_tuple = returns_tuple
        self.devices = jax.local_devices()
        self.platform = self.devices[0].platform
        # refuses an unmeasured platform now, not at the first call; VECTORIZER_JAX_BOUNDS=tpu
        # models another platform's float64 here (tests of the TPU's model on a CPU)
        self.bounds = Bounds(os.environ.get("VECTORIZER_JAX_BOUNDS") or self.platform)
        if self.bounds.inexact and not self.bounds.emulated:
            warnings.warn(f"backend='jax' on {self.platform}: XLA's float64 here is not IEEE's binary64 (measured "
                          f"without a finite bound: {', '.join(self.bounds.inexact)}; docs/jax.md): every decision "
                          "on a float is unsure, so lanes that make one run on the host", RuntimeWarning, stacklevel=3)
        self.mesh = Mesh(np.array(self.devices), ("lanes",))
        self.lanes_sharding = NamedSharding(self.mesh, PartitionSpec("lanes"))
        self.replicated = NamedSharding(self.mesh, PartitionSpec())
        self._lock = threading.Lock()
        self._jitted: Callable | None = None
        self.timings = Timings()

    # -- the compiled function -------------------------------------------------------------------
    def _traced_lane(self, zero, *args):
        _Active.bounds = self.bounds  # the bounds of this platform, read while the lane is traced
        _Active.zero = zero  # this lane's -0.0, which XLA cannot fold (arith.py)
        try:
            return self.lane(*args)
        finally:
            _Active.bounds = _Active.zero = None

    def compiled(self) -> Callable:
        """The jitted batch function: device arrays in, (results, flag, any flag) out."""
        if self._jitted is None:
            vmapped = jax.vmap(self._traced_lane, in_axes=(0, *(0 if b else None for b in self.batched)))
            first = self.batched.index(True)

            def batch(*args):
                lanes = jnp.asarray(args[first], jnp.float64)
                zero = -0.0 * (lanes == lanes).astype(jnp.float64)  # -0.0 on every lane, opaque to XLA
                value, flag = vmapped(zero, *args)
                return value, flag, jnp.any(flag)

            shardings = tuple(self.lanes_sharding if b else self.replicated for b in self.batched)
            self._jitted = jax.jit(batch, in_shardings=shardings,
                                   out_shardings=(self.lanes_sharding, self.lanes_sharding, self.replicated))
        return self._jitted

    # -- chunks ----------------------------------------------------------------------------------
    def lane_bytes(self) -> int:
        ins = 8 * sum(self.batched)
        outs = sum(np.dtype(DTYPES[t.elem]).itemsize for t in self.result) + 1
        return max(ins + outs, 8) * LIVE_FACTOR

    def chunk_lanes(self) -> int:
        try:
            limit = self.devices[0].memory_stats()["bytes_limit"] * len(self.devices)
        except (AttributeError, KeyError, TypeError, RuntimeError):
            limit = None
        lanes = HOST_CHUNK if limit is None else int(limit * MEMORY_SHARE) // self.lane_bytes()
        lanes = min(max(lanes, 1024), MAX_CHUNK)
        n = len(self.devices)
        return max(n, lanes // n * n)

    def padded(self, lanes: int) -> int:
        """A short chunk's compiled size: 16 sizes per octave, a multiple of the device count."""
        step = max(1, 1 << max(0, lanes.bit_length() - 5))
        size = -(-lanes // step) * step
        n = len(self.devices)
        return -(-size // n) * n

    def put(self, args: tuple, start: int, stop: int, size: int) -> list:
        """Chunk [start, stop) of the arguments on the devices (padded to `size` lanes), async."""
        out = []
        for a, b in zip(args, self.batched):
            if not b:
                out.append(a)
                continue
            part = a[start:stop]
            if size > stop - start:
                part = np.concatenate([part, np.broadcast_to(part[:1], (size - (stop - start),))])
            out.append(jax.device_put(np.ascontiguousarray(part), self.lanes_sharding))
        return out

    # -- a call ----------------------------------------------------------------------------------
    def __call__(self, *args):
        if self.uniform_call:
            args = tuple(np.reshape(a, (1,)) for a in args)
        with x64(), self._lock:
            return self._run(args)

    def _run(self, args: tuple):
        size = next((a.shape[0] for a, b in zip(args, self.batched) if b), 1)
        args = tuple(np.asarray(a) if b else _scalar(a) for a, b in zip(args, self.batched))
        outs = [np.empty(size, dtype=DTYPES[t.elem]) for t in self.result]
        flags: np.ndarray | None = None
        fn = self.compiled()
        chunk = self.chunk_lanes()
        pending: list = []
        starts = range(0, size, chunk) if size else ()
        for start in starts:
            stop = min(start + chunk, size)
            lanes = stop - start
            padded = chunk if lanes == chunk else self.padded(lanes)
            device_args = self.put(args, start, stop, padded) if any(self.batched) else list(args)
            pending.append((start, stop, fn(*device_args)))  # dispatched: runs while we copy the last one
            if len(pending) > 1:
                flags = self._collect(pending.pop(0), outs, flags, size)
        while pending:
            flags = self._collect(pending.pop(0), outs, flags, size)
        lost = self.outside_range(args, size)
        if lost is not None and lost.any():
            flags = lost if flags is None else flags | lost
        self.timings.calls += 1
        self.timings.chunks += len(starts)
        self.timings.lanes += size
        result = tuple(outs) if self.returns_tuple else outs[0]
        return result, flags

    def outside_range(self, args: tuple, size: int) -> np.ndarray | None:
        """The lanes with a float argument an emulated float64 cannot hold with its precision
        (bounds.py: outside its range; told apart here, as on the device such a number is already
        0 or inf): re-run on the host. None on an IEEE float64."""
        if not self.bounds.emulated:
            return None
        lost = None
        for a, batched in zip(args, self.batched):
            arr = np.asarray(a)
            if arr.dtype.kind != "f":
                continue
            m = np.abs(arr)
            with np.errstate(invalid="ignore"):
                out = (m != 0) & np.isfinite(m) & ~((m >= self.bounds.low) & (m < self.bounds.high))
            out = out if batched else np.broadcast_to(out, (size,))
            lost = out if lost is None else lost | out
        return lost

    def _collect(self, item, outs: list[np.ndarray], flags, size: int):
        start, stop, (value, flag, any_flag) = item
        lanes = stop - start
        values = value if self.returns_tuple else (value,)
        for out, v in zip(outs, values):
            out[start:stop] = np.asarray(v)[:lanes]
        if bool(any_flag):
            if flags is None:
                flags = np.zeros(size, dtype=np.bool_)
            flags[start:stop] = np.asarray(flag)[:lanes]
        return flags


def _scalar(a):
    """A uniform argument as a NumPy scalar of its dtype (a Python number would be weakly typed)."""
    arr = np.asarray(a)
    return arr.reshape(()) if arr.ndim else arr
