"""The reductions behind np.sum of a uniform table, bit for bit: NumPy's batched sum over the last
axis against its 1-D sum lane by lane (the NumPy backend), and the Numba modules' pairwise sum
(codegen/numba_tables.py) against np.sum (the Numba backend). Sizes cover each branch of NumPy's
pairwise_sum: below 8, 8 to 128 with and without a remainder, and the recursive halves."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from vectorizer.codegen import numba_tables
from vectorizer.rules.tables import pairwise_sum

SIZES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 40, 127, 128, 129, 130, 255, 256, 300, 1000]


def hostile(rng: np.random.Generator, lanes: int, size: int) -> np.ndarray:
    """Magnitudes over 24 decades, signs mixed, and some -0.0, subnormals, inf and nan."""
    a = rng.standard_normal((lanes, size)) * 10.0 ** rng.integers(-12, 12, (lanes, size))
    pick = rng.random((lanes, size))
    a[pick < 0.02] = -0.0
    a[(pick >= 0.02) & (pick < 0.03)] = 5e-324
    a[lanes // 2] = -0.0  # a lane of negative zeros only: NumPy's sum starts from +0.0
    a[lanes // 3, 0] = np.inf
    a[lanes // 4, -1] = np.nan
    return a


def bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64).view(np.int64)


@pytest.mark.parametrize("size", SIZES)
def test_last_axis_sum_is_the_1d_sum_of_each_lane(size: int) -> None:
    """np.sum(t, axis=1) of a C-contiguous (lanes, size) array equals np.sum(t[i]) for every i,
    bit for bit: the reduction runs the same pairwise loop over each row."""
    rng = np.random.default_rng(size)
    a = hostile(rng, 257, size)
    batched = np.sum(a, axis=1)
    single = np.array([np.sum(row) for row in a])
    assert np.array_equal(bits(batched), bits(single))
    # the NumPy backend's shape of it: a lane's number against the table, then the sum
    x, table = rng.standard_normal(257), a[0]
    assert np.array_equal(bits(np.sum(x[:, None] * table, axis=1)), bits([np.sum(v * table) for v in x.tolist()]))


@pytest.mark.numba
@pytest.mark.parametrize("size", SIZES)
def test_numba_pairwise_sum_is_numpys(size: int) -> None:
    numba = pytest.importorskip("numba")
    namespace = {"numba": numba, "NUMBA_CACHE": False}
    exec(numba_tables.PAIRWISE, namespace)  # noqa: S102 - the module text a Numba module carries
    expression = "0.0 + " + pairwise_sum("row", 0, size)  # the halves above 128, as the lanes write it
    rng = np.random.default_rng(1000 + size)
    for row in hostile(rng, 64, size):
        got = eval(expression, {**namespace, "row": row})  # noqa: S307 - the generated expression
        assert bits(np.array(got)) == bits(np.array(np.sum(row))), (size, got, np.sum(row))


@pytest.mark.numba
def test_pairwise_sum_loads_from_numbas_cache(tmp_path) -> None:
    """A kernel summing a table of more than 128 elements, compiled, then loaded from Numba's
    on-disk cache in a new process: it was a recursive function, which crashed there."""
    pytest.importorskip("numba")
    (tmp_path / "big_table.py").write_text("import numpy as np\nN = np.linspace(-3.0, 7.0, 300)\n\n\n"
                                           "def f(x):\n    return np.sum(N * x)\n")
    script = ("import sys, numpy as np\nsys.path.insert(0, sys.argv[1])\nimport big_table\n"
              "from vectorizer import vectorize\n"
              "vf = vectorize(big_table.f, backend='numba', fallback='error')\n"
              "x = np.array([1.0, -2.5, 3.0])\n"
              "assert vf.backend == 'numba' and (vf(x) == [big_table.f(v) for v in x.tolist()]).all()\n")
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": os.getcwd()}
    for _ in range(2):  # compiled, then loaded from the cache
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]


def test_pairwise_sum_is_carried_only_where_called() -> None:
    assert numba_tables.table_source("x = 1") == ""
    assert "_vz_pairwise_sum(a, lo, n)" in numba_tables.table_source("y = 0.0 + _vz_pairwise_sum(out, 0, 9)")


@pytest.mark.parametrize("size", SIZES)
def test_prod_is_the_sequential_product(size: int) -> None:
    """np.prod of float64 is a plain loop from 1.0 (what the Numba lanes compute), batched over
    the last axis as in 1-D."""
    rng = np.random.default_rng(2000 + size)
    a = 1.0 + 0.3 * rng.standard_normal((33, size))
    a[5, 0] = -0.0
    a[6, -1] = np.nan
    for row in a:
        acc = 1.0
        for v in row.tolist():
            acc *= v
        assert bits(np.array(np.prod(row))) == bits(np.array(acc))
    assert np.array_equal(bits(np.prod(a, axis=1)), bits([np.prod(row) for row in a]))
