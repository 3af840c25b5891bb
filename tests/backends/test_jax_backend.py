"""backend="jax" (exact=False) on JAX's CPU backend, against the scalar loop (tests/oracle.py):
exceptions and discrete outcomes exact, floats within XLA's bounds. On XLA's CPU the blocked,
constant-opaque arithmetic measures CPython's bits (backends/jax/bounds.py), so functions without
transcendental calls must come out bit for bit, subnormals and flushes included.

The functions under test are defined at the top of this file (vectorizer reads their source).
PYTEST_DONT_REWRITE: the scalar functions' `assert`s must raise what a user's would.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="backend='jax' needs JAX: pip install '.[jax]'")

from oracle import check  # noqa: E402

from vectorizer import VectorizeError, vectorize  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = [0.0, -0.0, 1.0, -1.5, 5e-324, -1e-310, 2.2250738585072014e-308, 1e-300, 1e300, -1e308,
           math.inf, -math.inf, math.nan, 0.5, 3.0, 709.78, -745.2, 1e-160]


def jax_vf(f):
    return vectorize(f, backend="jax", exact=False, fallback="error")


# -- the scalar functions under test ---------------------------------------------------------
def branchy(x: float, y: float) -> float:
    if x > y:
        return x - y
    elif x == y:
        return 0.5 * x
    return y * 2.0 - x


def flushed(x: float) -> float:
    return x * 1e-300 * 1e300  # a subnormal intermediate for |x| < ~1e-8


def tiny_sign(x: float) -> int:
    if x * 1e-300 > 0.0:  # XLA's flush would make this 0 for small x
        return 1
    return -1


def exp_decides(x: float) -> int:
    if math.exp(x) > 2.0:  # near log(2), the bound decides: flag and re-run
        return 1
    return 0


def raises(x: float) -> float:
    if x < 0:
        raise ValueError(f"negative: {x}")
    return math.sqrt(x)


def domain(x: float) -> float:
    return math.log(x) + 1.0


def asserting(n: int) -> int:
    assert n != 3, "three"
    return n * 2


def loop_break(x: float, n: int) -> float:
    for _ in range(n):
        if x > 100.0:
            break
        x = x * 1.5 + 0.25
    return x


def early_return_loop(n: int) -> int:
    k = 0
    while k < 5000:
        k += 1
        if k * k > n:
            return k
    return -1


def divisions(a: float, b: float) -> float:
    return (a / 3.0 + (a + 1e308) - 1e308) / b


def int_ops(a: int, b: int) -> int:
    if b == 0:
        return a
    return a // b + a % b - (a << 2)


def mixed(x: float, n: int) -> float:
    total = 0.0
    for k in range(1, n + 1):
        total += x ** k / k
    return total


def helper(x: float) -> float:
    y = 0.0
    while y * y < x:
        y += 0.5
    return y


def calls_helper(x: float) -> float:
    if x > 4.0:
        return helper(x) + 1.0
    return helper(-x)


def uses_table(i: int) -> float:
    return TABLE[i % 3] * 2.0


TABLE = (1.5, -2.0, 4e-320)


def pair(x: float, n: int):
    if x > 0:
        return x * 2.0, n + 1
    return -x, n - 1


def sine_flag(x: float) -> bool:
    return math.sin(x) > 0.5 and x < 10


def recursive(n: int) -> int:
    if n < 2:
        return n
    return recursive(n - 1) + 1


def combinatorics(n: int) -> int:
    return math.comb(n, 2)


def rounding(x: float) -> int:
    return int(x * 10.0) + round(x)


# -- the contract ----------------------------------------------------------------------------
def test_exact_false_is_required():
    with pytest.raises(ValueError, match="exact=False"):
        vectorize(branchy, backend="jax")


def test_auto_never_chooses_jax():
    vf = vectorize(branchy, backend="auto")
    vf(np.arange(5.0), np.arange(5.0)[::-1].copy())
    assert vf.backend != "jax"


@pytest.mark.parametrize("f", [branchy, divisions])
def test_arithmetic_is_bit_exact(f):
    a = np.array(HOSTILE * len(HOSTILE))
    b = np.repeat(np.array(HOSTILE), len(HOSTILE))
    check(jax_vf(f), f, a, b)


def test_flushes_are_re_run():
    x = np.array([1e-10, 3.0, 1e-5, -2e-12, 5e-324, 0.0])
    check(jax_vf(flushed), flushed, x)
    check(jax_vf(tiny_sign), tiny_sign, x)


def test_transcendental_decisions_are_exact():
    near = math.log(2.0)
    x = np.array([np.nextafter(near, -1, dtype=float) * (1 + k * 1e-17) for k in range(-50, 50)] + [near, 0.0, 1.0])
    check(jax_vf(exp_decides), exp_decides, x)


@pytest.mark.parametrize("f, args", [
    (raises, ([1.0, 4.0, -2.0, -3.0],)),
    (domain, ([1.0, 0.0, -1.0],)),
    (asserting, ([1, 2, 3, 4],)),
])
def test_exceptions_are_the_first_lanes(f, args):
    check(jax_vf(f), f, *(np.array(a) for a in args))


def test_loops_breaks_and_early_returns():
    check(jax_vf(loop_break), loop_break, np.array(HOSTILE), np.array([0, 1, 3, 10, 40, 2] * 3))
    check(jax_vf(early_return_loop), early_return_loop, np.array([0, 1, 2, 15, 16, 17, 10**6, 10**7, -5]))


def test_ints_and_uniform_arguments():
    a = np.array([7, -7, 2**62, -(2**62), 0, 5])
    check(jax_vf(int_ops), int_ops, a, np.array([2, -3, 5, 0, 4, -1]))
    check(jax_vf(mixed), mixed, np.array([0.5, -1.25, 2.0, 1e-200]), 6, rel=1e-12)


def test_callees_and_tables():
    check(jax_vf(calls_helper), calls_helper, np.array([0.0, 3.0, 4.5, 100.0, -7.0, math.nan]))
    check(jax_vf(uses_table), uses_table, np.arange(-4, 5))


def test_tuples_and_bools():
    x = np.array([1.0, -2.0, 0.0, -0.0, math.nan, 1e300, 0.5235987755982989, 0.5235987755982988])
    check(jax_vf(pair), pair, x, np.arange(8))
    check(jax_vf(sine_flag), sine_flag, x)


def test_float_to_int_decisions():
    x = np.array([0.1, 0.15, 0.25, 1.05, 2.5, -0.35, 0.49999999999999994, 1e15])
    check(jax_vf(rounding), rounding, x)


def test_refusals_name_the_construct():
    with pytest.raises(VectorizeError, match="recursion") as info:
        jax_vf(recursive)(np.arange(5))
    assert "test_jax_backend.py" in str(info.value)
    with pytest.raises(VectorizeError, match="math.comb") as info:
        jax_vf(combinatorics)(np.arange(5))
    assert f"{Path(__file__).name}:" in str(info.value)


def test_source_is_readable_and_explained():
    vf = jax_vf(loop_break)
    vf(np.array([1.0, 200.0]), np.array([3, 3]))
    assert "_vz.while_loop(" in vf.source and "# line " in vf.source and "(JAX backend)" in vf.source
    assert "loop_break" in vf.explain()


def test_user_x64_setting_is_left_alone():
    before = jax.config.jax_enable_x64
    jax_vf(branchy)(np.arange(4.0), np.ones(4))
    assert jax.config.jax_enable_x64 == before


def test_anchor_kernels():
    """The benchmark's kernels: ints and bools exact, floats within each kernel's tolerance."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_kernels

    for k in bench_kernels.KERNELS:
        args = k.inputs(600, k.seed)
        check(jax_vf(k.func), k.func, *args, rel=0.0 if k.out != "float" else 1e-9)


SHARDED = textwrap.dedent("""
    import math, sys
    import numpy as np
    import jax
    from vectorizer import vectorize
    from vectorizer.backends.jax import driver
    sys.path.insert(0, {tests!r})
    from oracle import check
    driver.HOST_CHUNK = 1024  # several chunks, the last one padded
    def f(x, n):
        k = 0
        while x > 1.0 and k < n:
            x = x / 2.0 + 0.1
            k += 1
        if x < 0:
            raise ValueError("negative")
        return k
    vf = vectorize(f, backend="jax", exact=False, fallback="error")
    x = np.linspace(0.5, 1e4, 3001)
    check(vf, f, x, 40)
    kernel = vf._generations.current().kernels[vf._last].fn
    assert len(kernel.devices) == 4 and kernel.chunk_lanes() == 1024, (kernel.devices, kernel.chunk_lanes())
    assert kernel.timings.chunks == 3, kernel.timings
    x[2500] = -1.0
    check(vf, f, x, 40)
    print("ok", len(jax.devices()))
""")


def test_sharded_over_four_devices_in_chunks(tmp_path):
    """XLA_FLAGS fakes four CPU devices: the batch is split over them, in padded chunks."""
    script = tmp_path / "sharded.py"
    script.write_text(SHARDED.format(tests=str(ROOT / "tests")))
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ok 4" in done.stdout


def test_jax_is_imported_only_by_the_jax_backend():
    code = "import sys, numpy as np, vectorizer\nvectorizer.vectorize(lambda x: x + 1)(np.arange(3.0))\n" \
           "print('jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.stdout.strip() == "False", done.stderr


def test_docs_numbers_are_the_code_constants():
    """docs/jax.md states the chunk rule, the bound margin and the refusals: as the code has them."""
    from vectorizer.backends.jax import bounds, driver
    from vectorizer.passes.lanes_to_jax import exprs

    text = (ROOT / "docs" / "jax.md").read_text()
    assert driver.LIVE_FACTOR == 24 and driver.MEMORY_SHARE == 0.5 and "24 times" in text and "half of it" in text
    assert bounds.MARGIN_FACTOR == 2 and bounds.MARGIN_ULPS == 1 and "twice the measured value plus one" in text
    for name in exprs._NOT_IN_JAX.values():
        assert f"`{name.split('(')[0]}`" in text or name.startswith("pow("), name
    # the TPU figures docs/jax.md quotes are the run's (its table: kernel, flagged before, flagged
    # now, hand, vec_jax, ratio, first call)
    run = (ROOT / "docs" / "runs" / "jax-tpu-v5e-2026-12-06-float32-errors.md").read_text()
    rows = {cells[0]: cells for cells in ([c.strip() for c in line.strip("|").split("|")]
                                          for line in run.splitlines() if line.startswith("| ")) if len(cells) == 7}
    ratio = {k: float(r[5].strip("()×")) for k, r in rows.items() if r[5].strip("()×").replace(".", "").isdigit()}
    kept = {k: 100.0 - float(rows[k][2].rstrip("%")) for k in ("mandelbrot_escape", "black_scholes_call")}
    assert f"keeps {kept['mandelbrot_escape']:.1f}% of mandelbrot's lanes, {kept['black_scholes_call']:.1f}% of black_scholes's" in text
    ints = sorted(ratio[k] for k in ("collatz_steps", "is_prime"))
    assert f"and {ints[0]:.2f}-{ints[1]:.2f} times for kernels of ints" in text
    straight = sorted(ratio[k] for k in ("poly_horner", "haversine_km", "drag_coefficient", "softplus",
                                          "smoothstep", "black_scholes_call"))
    assert f"at {straight[0]:.1f}-{straight[-1]:.1f} times" in text
    loops = sorted(ratio[k] for k in ("mandelbrot_escape", "zeta_partial"))
    assert f"{math.floor(loops[0])}-{math.ceil(loops[1])} times for loops" in text


def test_measured_platforms():
    """XLA's CPU arithmetic is CPython's as the runtime writes it; the TPU's float64 is emulated
    (measured on a TPU v5e: a pair of float32, float32's exponent range, every value rounded on
    its way to the device), with finite bounds inside its range."""
    from vectorizer.backends.jax.bounds import Bounds

    cpu, tpu = Bounds("cpu"), Bounds("tpu")
    assert cpu.exact_arithmetic and not cpu.inexact and cpu.flushes and not cpu.emulated
    assert cpu.pair_error(0.1) == 0.0 and not cpu.outside(1e300)
    assert not tpu.exact_arithmetic and tpu.emulated and not tpu.flushes_inputs and not tpu.bitcasts
    assert not tpu.inexact  # add, sub, mul, div, sqrt have finite bounds inside the range
    assert 2.0 ** -100 < tpu.precise_low < 2.0 ** -80 and 2.0 ** 120 < tpu.high <= 2.0 ** 128
    # the model's range starts where error terms (>= 2**-52 |v|) stay float32 normals (bounds.py)
    assert tpu.low == 2.0 ** -70 and 2.0 ** -52 * tpu.low >= 2.0 ** -126 * 16
    assert tpu.outside(1e300) and tpu.outside(1e-30) and tpu.outside(1e-22) and not tpu.outside(1e30)
    assert not tpu.outside(0.0) and not tpu.outside(1e-20)
    assert 0 < tpu.entry < 64
    # a pair of float32 holds 0.5 and 3.0 exactly, 0.1 (53 bits) not: within 2**-48 of it
    assert tpu.pair_error(0.5) == tpu.pair_error(3.0) == 0.0 and 0 < tpu.pair_error(0.1) < 2.0 ** -48 * 0.1
    # a nonzero pair error is at least a rounding's, 2**-52 |c| (its products stay float32 normals)
    rng = np.random.default_rng(5)
    for c in rng.uniform(-1e6, 1e6, 200).tolist() + (2.0 ** rng.uniform(-70, 120, 200)).tolist():
        assert tpu.pair_error(c) == 0.0 or tpu.pair_error(c) >= 2.0 ** -52 * abs(c)
    assert all(rel < 1e4 and absolute < 1e4 for limit, rel, absolute in tpu.band("exp") if limit <= 2.0 ** 10)
    with pytest.raises(VectorizeError, match="not measured on 'gpu'"):
        Bounds("gpu")


WARM = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from test_jax_cached import f
    from vectorizer import vectorize
    out = vectorize(f, backend="jax", exact=False)(np.array([1.0, -2.0, 3.5]))  # fallback="error" would parse at once
    print(out.tolist(), "libcst" in sys.modules)
""")


def test_disk_cache_holds_the_jax_module(tmp_path):
    """The generated module is stored like the other backends': a second process loads it, without
    the compiler (libcst)."""
    (tmp_path / "test_jax_cached.py").write_text("def f(x):\n    return x * 2.0 if x > 0 else -x\n")
    script = tmp_path / "warm.py"
    script.write_text(WARM.format(tests=str(tmp_path)))
    env = dict(os.environ, VECTORIZER_CACHE_DIR=str(tmp_path / "cache"), JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr[-2000:]
    assert runs[0].stdout.split() == ["[2.0,", "2.0,", "7.0]", "True"], runs[0].stdout
    assert runs[1].stdout.split() == ["[2.0,", "2.0,", "7.0]", "False"], runs[1].stdout
