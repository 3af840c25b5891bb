"""The README's first command: vectorize an escape-time fractal and check it against the loop.

    python examples/escape_time.py
"""

import math
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


def main() -> None:
    re = np.linspace(-2.0, 0.6, 72)
    im = np.linspace(-1.2, 1.2, 28)[:, None]
    counts = escape_time(re, im, 60)  # broadcasts to a (28, 72) grid
    for row in counts:
        print("".join(" .:-=+*#%@"[min(int(c) // 6, 9)] for c in row))

    x = np.linspace(-2, 1, 200_000)
    start = time.perf_counter()
    escape_time(x, 0.3)  # the first call of these kinds compiles (or loads from the disk cache)
    t_first = time.perf_counter() - start
    start = time.perf_counter()
    batched = escape_time(x, 0.3)
    t_batched = time.perf_counter() - start
    start = time.perf_counter()
    looped = [escape_time.scalar(v, 0.3) for v in x.tolist()]
    t_loop = time.perf_counter() - start
    assert batched.tolist() == looped, "batched result differs from the scalar loop"
    print(f"\n{x.size:,} points: batched {t_batched * 1e3:.1f} ms (the first call {t_first * 1e3:.0f} ms), "
          f"Python loop {t_loop * 1e3:.1f} ms ({t_loop / t_batched:.0f}x), results identical: {batched.dtype}")
    print(f"scalar call still works: escape_time.scalar(0.1, 0.2) = {escape_time.scalar(0.1, 0.2)}")
    print(f"route: {escape_time.backend} ({escape_time.backend.why})")
    print("\nThe generated code (escape_time.source):\n")
    print(escape_time.source)
    assert math.isfinite(t_batched)


if __name__ == "__main__":
    main()
