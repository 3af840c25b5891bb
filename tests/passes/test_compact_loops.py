"""passes/compact_loops.py: a masked loop goes on with its active lanes alone once few are left,
carrying the flag and the loop's batched values."""

from __future__ import annotations

import numpy as np
from oracle import check
from passcase import F, after, body

from vectorizer import vectorize
from vectorizer.options import Options


def halvings(x: float) -> int:
    n = 0
    while x > 1.0:
        x = x / 2.0
        n = n + 1
    return n


def test_the_loop_compacts_and_expands_its_carried_names():
    assert body(after("compact_loops", halvings, x=F)) == (
        "flag = np.zeros(len(x), dtype=bool)\n"
        "n = 0\n"
        "active = (x > 1.0) & ~flag\n"
        "n = np.int64(n)\n"
        "lanes = _vz_Compaction()\n"
        "while np.any(active):\n"
        "    if lanes.worth(active):\n"
        "        active, flag, n, x = lanes.compact(active, flag, n, x)\n"
        "    x = x / 2.0\n"
        "    n = _vz_where(active, n + 1, n)\n"
        "    active = active & (x > 1.0) & ~flag\n"
        "flag, n, x = lanes.expand(flag, n, x)\n"
        "return (n, flag)\n"
    )


def test_compact_false_leaves_the_loop_as_ops_to_numpy_wrote_it():
    options = Options(compact=False)
    assert after("compact_loops", halvings, options=options, x=F) == after("ops_to_numpy", halvings, options=options, x=F)


def test_a_long_tail_keeps_the_contract():
    x = np.concatenate([np.full(5000, 2.0), [1e300, np.nan, -0.0, 5e-324, 2.0**1000]])  # (inf never halves to 1)
    check(vectorize(halvings, fallback="error"), halvings, x)
