"""The lanes of one call (`Batch`); the loop over them is engine/loop.py's `per_element`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .inputs import lane_index


class UnknownResultError(ValueError):
    """An empty batch ran element by element, and nothing says what the function returns."""


class Batch:
    """The lanes of one call: each argument's leading dimensions broadcast to `shape` (the lanes);
    its trailing `example_ndim` dimensions are one lane's own array (0 for a number per lane)."""

    def __init__(self, names: Sequence[str], arrays: Sequence[np.ndarray], example_ndims: Sequence[int] | None = None) -> None:
        self.names, self.arrays = list(names), list(arrays)
        self.ndims = list(example_ndims) if example_ndims is not None else [0] * len(self.arrays)
        leading = [a.shape[: a.ndim - k] for a, k in zip(self.arrays, self.ndims)]
        distinct = set(leading) - {()}
        if len(distinct) <= 1:  # one shape, and numbers: nothing to work out (np.broadcast_shapes: ~2 µs)
            self.shape: tuple[int, ...] = distinct.pop() if distinct else ()
        else:
            try:
                self.shape = np.broadcast_shapes(*leading)
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


def call_lane(scalar: Callable[..., object], names: Sequence[str], lane: Sequence[object]) -> object:
    """Call the scalar function on one lane as a loop would: its positional parameters by
    position, its keyword-only parameters (after `*`) by name."""
    code = getattr(scalar, "__code__", None)
    positional = code.co_argcount if code is not None else len(lane)
    return scalar(*lane[:positional], **dict(zip(names[positional:], lane[positional:])))


# Lanes per kernel call: each chunk's loops end when its own lanes finish, and its temporaries
# stay in cache. Measured on 2 cores at 1e6 lanes (ms, 32K / 64K / 128K / 256K lanes a chunk):
# mandelbrot 336/277/197/317, is_prime 449/260/158/164, poly_horner 6.0/4.8/3.1/2.8, haversine
# 30/29/38/78, softplus 8.0/6.9/7.1/8.4. Fewer, larger chunks pay for the Python-level cost of each
# masked-loop iteration; too few leave a thread idle. Kernels with a masked loop (`while
# np.any(...)`) take CHUNK_LOOP: each iteration costs every chunk ~1 µs an operation, whatever its
# lanes, and a long tail of a few lanes runs as many iterations in each chunk (ms, 128K / 256K /
