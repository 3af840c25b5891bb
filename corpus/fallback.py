"""The fallback ratio of a function the vectorizer refuses (issue 51).

`vectorize(f)` with the default fallback="warn" runs a refused function element by element; the
ratio is its time over the time of the loop a user would write instead: a list comprehension over
`.tolist()` of the arguments broadcast to one shape. 1.0 is loop speed; the issue's target is 1.2.
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np


def broadcast_loop(f, arrays: list[np.ndarray]) -> list:
    """The user's loop: `[f(*t) for t in zip(*[broadcast .ravel().tolist() ...])]`."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    return [f(*t) for t in zip(*[np.broadcast_to(a, shape).ravel().tolist() for a in arrays])]


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fallback_ratio(f, arrays: list[np.ndarray], backend: str, repeats: int = 3, vectorize=None) -> dict:
    """Median over `repeats` runs (the two interleaved, after one warm-up call each) of the time of
    `vectorize(f, backend=backend)(*arrays)` over that of `broadcast_loop(f, arrays)`; with the
    first call's time (decoration, the warning, any compilation tried) and the warning it gave."""
    if vectorize is None:
        from vectorizer import vectorize
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vf = vectorize(f, backend=backend)
        first = _timed(lambda: vf(*arrays))
    _timed(lambda: broadcast_loop(f, arrays))
    fallback_times, loop_times = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(repeats):
            fallback_times.append(_timed(lambda: vf(*arrays)))
            loop_times.append(_timed(lambda: broadcast_loop(f, arrays)))
    fallback, loop = statistics.median(fallback_times), statistics.median(loop_times)
    warning = next((f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught), "no warning")
    lanes = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in arrays))))
    return {"lanes": lanes,
            "fallback_seconds": fallback, "loop_seconds": loop, "ratio": fallback / loop,
            "first_call_seconds": first, "warning": warning[:200]}
