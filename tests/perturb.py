"""A simulated AVX-512 NumPy: its transcendental functions move some results by 1-2 ulp.

NumPy's AVX-512 kernels for `power`, `exp`, `log`, `sin`... differ from the C library by an ulp
or two on a few percent of inputs, and which lanes differ depends on their position in the array.
This machine cannot run those kernels, so `PerturbedNumPy` stands in for `np` when a generated
kernel runs: the real function, then a pseudo-random, position-dependent subset of the finite
non-zero float64 results nudged by 1 or 2 ulp (within the contract's bound). Int results (an
int power) are untouched. `run_generated` executes a generated module's kernel with it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import types
from unittest import mock

import numpy as np

from vectorizer.api import prepare
from vectorizer.core.types import Val
from vectorizer.options import Options
from vectorizer.passes import ops_to_numpy
from vectorizer.pipeline import lower

PERTURBED = ("exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "power", "float_power", "sin", "cos",
             "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
             "arctanh", "hypot", "cbrt")


def nudge(values: np.ndarray, seed: int) -> np.ndarray:
    """`values` (float64) with about 3 in 8 finite non-zero elements moved by +2, +1 or -1 ulp,
    chosen by position and seed."""
    out = np.array(values, dtype=np.float64, copy=True)
    flat = out.reshape(-1)
    idx = np.arange(flat.size, dtype=np.uint64)
    pick = ((idx + np.uint64(seed)) * np.uint64(2654435761) >> np.uint64(7)) % np.uint64(8)
    ok = np.isfinite(flat) & (flat != 0)
    for moves, direction in ((pick <= 1, np.inf), (pick == 0, np.inf), (pick == 2, -np.inf)):
        at = ok & moves  # pick 0: +2 ulp, 1: +1 ulp, 2: -1 ulp
        flat[at] = np.nextafter(flat[at], direction)
    return out


class PerturbedNumPy:
    """`np` for a generated kernel: NumPy, with PERTURBED functions nudged (`nudge`)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self.calls = 0

    def __getattr__(self, name: str):
        real = getattr(np, name)
        if name not in PERTURBED:
            return real

        def perturbed(*args, **kwargs):
            result = real(*args, **kwargs)
            if np.asarray(result).dtype != np.float64:
                return result
            self.calls += 1
            if np.ndim(result) == 0:  # a uniform value: its bits pick the nudge
                seed = self._seed + int(np.float64(result).view(np.int64) % 8)
                return np.float64(nudge(np.asarray(result), seed)[()])
            return nudge(result, self._seed + self.calls)

        return perturbed


def source(f, params: dict[str, Val], analysis: bool = True) -> str:
    """The generated NumPy module of `f` for `params` with exact=False and no vector math (as
    the CLI's standalone modules are made: NumPy's functions, except where a value decides
    something); `analysis=False` lowers it as before the decisions analysis (every approximate
    operation on NumPy's functions)."""
    parsed, namespace = prepare(f)
    patch = contextlib.nullcontext() if analysis else mock.patch.object(ops_to_numpy, "decided", lambda *a: frozenset())
    with patch:
        return lower(parsed, namespace, params, Options(exact=False, vector_math=False)).source


@functools.lru_cache(maxsize=4)
def _compiled(text: str, name: str) -> types.CodeType:
    """The module's code, compiled once for the runs with several perturbations (a fresh
    namespace each run: `np` is rebound)."""
    return compile(text, f"<generated {name}>", "exec")


def run_generated(text: str, name: str, args: list, np_module: object) -> tuple[object, object]:
    """(result, flag) of the kernel `name` in the module `text`, run with `np` bound to `np_module`."""
    namespace: dict = {"__name__": "perturbed_kernel"}
    exec(_compiled(text, name), namespace)  # noqa: S102 - our own generated code
    namespace["np"] = np_module
    with np.errstate(all="ignore"):
        return namespace[name](*args)


def discrete_mismatches(f, text: str, args: list, np_module: object) -> list[tuple[int, object, object]]:
    """Lanes (index, expected, got) where the kernel's unflagged result differs from the scalar
    function's, or where the scalar function raises and the lane is not flagged. Flagged lanes
    are re-run by the runtime, so any value there is fine. The first argument is batched (1-d)."""
    result, flag = run_generated(text, f.__name__, args, np_module)
    n = len(args[0])
    flags = np.zeros(n, bool) if flag is None else np.broadcast_to(flag, (n,))
    got = np.broadcast_to(result, (n,))
    bad = []
    for i in range(n):
        lane = [a[i].item() if isinstance(a, np.ndarray) else a for a in args]
        try:
            expected = f(*lane)
        except Exception as exc:  # noqa: BLE001 - the scalar function's own exception: the lane must be flagged
            if not flags[i]:
                bad.append((i, type(exc).__name__, got[i].item()))
            continue
        value = got[i].item()
        if not flags[i] and (value != expected or type(value) is not type(expected)) \
                and not (isinstance(expected, float) and math.isnan(expected) and math.isnan(value)):
            bad.append((i, expected, value))
    return bad
