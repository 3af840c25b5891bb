"""The README's first command: vectorize an escape-time fractal, time it against the Python loop,
check that every result is the loop's, and print the function's generated code.

    python examples/escape_time.py

Its output is in the README; tests/scripts/test_readme.py runs this file and checks that the
README shows this code and what it prints (timings aside).
"""

import ast
import time

import numpy as np

from vectorizer import vectorize


@vectorize
def escape_time(cr: float, ci: float, max_iter: int = 100) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def kernel(vf) -> str:
    """The function's own generated code (`vf.source` is the whole module, runtime helpers too):
    the function, and with Numba its per-lane kernel and drivers (`_lane_escape_time`...)."""
    module = ast.parse(vf.source)
    own = [f for f in module.body if getattr(f, "name", "").endswith(vf.__name__)]
    return "\n\n".join(ast.get_source_segment(vf.source, f) for f in own)


x = np.linspace(-2.0, 1.0, 200_000)
start = time.perf_counter()
counts = escape_time(x, 0.3)  # the first call generates the code (or loads it from the disk cache)
first = time.perf_counter() - start
start = time.perf_counter()
counts = escape_time(x, 0.3)
batched = time.perf_counter() - start
start = time.perf_counter()
looped = [escape_time.scalar(v, 0.3) for v in x.tolist()]  # the original function, point by point
loop = time.perf_counter() - start
assert counts.tolist() == looped, "the batched results differ from the loop's"

print(counts[::20_000], counts.dtype)
print(f"first call {first:.2f} s, then {batched * 1e3:.0f} ms a call; the Python loop {loop:.2f} s "
      f"({loop / batched:.0f}x slower); all {x.size:,} results identical")
print(f"route: {escape_time.backend} ({escape_time.backend.why})")
print(kernel(escape_time))
