"""A small function for `vectorizer explain` (docs/explain.md): a uniform and a batched `if`, a
`while` loop whose trip count differs per lane, a division (a check) and a power whose value
decides a branch (computed exactly).

    vectorizer explain examples/explain_demo.py::demo --range x=-50:50 --html report.html
"""

import math


def demo(x: float, y: float, n: int = 5) -> float:
    scale = 2.0
    if n > 3:
        scale = 3.0
    if x > 0.0:
        r = x / y
    else:
        r = -x
    k = 0
    while r > 1.0:
        r = r / scale
        k += 1
    v = math.exp(r) ** 2
    if v > 10.0:
        k += 1
    return r + k
