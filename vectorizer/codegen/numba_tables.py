"""The reduction a Numba module carries as text where a lane reduces a uniform table
(passes/ops_to_lanes/tables.py): NumPy's pairwise summation of float64, the same additions in
the same order, so a lane's `np.sum` is bit for bit NumPy's.

NumPy (numpy/_core/src/umath/loops_utils.h.src, `pairwise_sum`): below 8 elements a sequential
sum from -0.0; up to 128, eight accumulators over strided blocks of 8, combined as
((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the rest added in order; above 128, the
two halves (the first a multiple of 8 long) summed recursively and added: that recursion is
unrolled where the sum is written (rules/tables.py's pairwise_sum; the table's length is known),
as Numba's on-disk cache crashes on loading a recursive function (numba/numba#6061). The add reduction
starts from its identity: np.sum(a) is 0.0 + pairwise_sum(a) (np.sum([-0.0]) is 0.0). No
fastmath: LLVM keeps the order of the additions as written.
"""

from __future__ import annotations

from collections.abc import Collection

PAIRWISE = '''
@numba.njit(cache=NUMBA_CACHE, error_model="numpy")
def _vz_pairwise_sum(a, lo, n):
    """NumPy's pairwise_sum of a[lo:lo + n] (float64, n <= 128), the same additions in the same order."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= 128:
        r0 = a[lo]
        r1 = a[lo + 1]
        r2 = a[lo + 2]
        r3 = a[lo + 3]
        r4 = a[lo + 4]
        r5 = a[lo + 5]
        r6 = a[lo + 6]
        r7 = a[lo + 7]
        i = 8
        whole = n - n % 8
        while i < whole:
            r0 += a[lo + i]
            r1 += a[lo + i + 1]
            r2 += a[lo + i + 2]
            r3 += a[lo + i + 3]
            r4 += a[lo + i + 4]
            r5 += a[lo + i + 5]
            r6 += a[lo + i + 6]
            r7 += a[lo + i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[lo + i]
            i += 1
        return res
    raise ValueError("_vz_pairwise_sum of more than 128 elements: add its halves (rules/tables.py)")
'''


def table_source(called: Collection[str]) -> str:
    """The pairwise sum if the lane functions call it (`called`: the names they call), else ""."""
    return PAIRWISE.strip("\n") if "_vz_pairwise_sum" in called else ""
