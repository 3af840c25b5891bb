"""The `vec_jax` variants of scripts/bench.py: vectorizer's JAX backend, timed whole and split.

    vec_jax           vectorize(f, backend="jax", exact=False): NumPy arrays in, NumPy arrays out
                      (transfers, device compute, the host's re-run of flagged lanes)
    vec_jax_device    the same kernel's device compute alone: its compiled function over the
                      batch's chunks, inputs already on the devices (as the `jax` variant's)
    vec_jax_transfer  the transfers alone: the chunks put on the devices and results of the
                      kernel's size copied back

Only JAX and NumPy are needed (and vectorizer from this checkout, with libcst where the kernel
is not in the disk cache yet).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def kernel_of(vf: Any) -> Any:
    """The JAX kernel (backends/jax/driver.Kernel) of the specialization `vf` ran last."""
    found = vf._generations.current().kernels[vf._last]
    return found.fn


def chunks(kernel: Any, arrays: tuple[np.ndarray, ...]) -> list[tuple[int, int, int]]:
    """(start, stop, compiled size) of each chunk the kernel runs a batch of this size in."""
    size = arrays[0].shape[0]
    step = kernel.chunk_lanes()
    out = []
    for start in range(0, size, step):
        stop = min(start + step, size)
        out.append((start, stop, step if stop - start == step else kernel.padded(stop - start)))
    return out


def device_inputs(vf: Any, arrays: tuple[np.ndarray, ...]) -> tuple[Any, list[list[Any]]]:
    """(kernel, each chunk's arguments on the devices), after a call on a few lanes that makes the
    kernel (not on all of them: where most lanes are flagged, their re-run on the host is long)."""
    from vectorizer.backends.jax.driver import x64

    vf(*(a[:1024] for a in arrays))
    kernel = kernel_of(vf)
    with x64():
        placed = [kernel.put(arrays, start, stop, size) for start, stop, size in chunks(kernel, arrays)]
        for args in placed:
            for a in args:
                if hasattr(a, "block_until_ready"):
                    a.block_until_ready()
    return kernel, placed


def compute(kernel: Any, placed: list[list[Any]]) -> Any:
    """The device compute of every chunk, dispatched back to back, waited for."""
    from vectorizer.backends.jax.driver import x64

    with x64():
        fn = kernel.compiled()
        outs = [fn(*args) for args in placed]
        for value, _, _ in outs:
            for v in value if isinstance(value, tuple) else (value,):
                v.block_until_ready()
    return outs


def transfer(kernel: Any, arrays: tuple[np.ndarray, ...], results: list[Any]) -> None:
    """The chunks put on the devices, and `results` (device arrays of a call) copied back."""
    from vectorizer.backends.jax.driver import x64

    with x64():
        for (start, stop, size) in chunks(kernel, arrays):
            for a in kernel.put(arrays, start, stop, size):
                if hasattr(a, "block_until_ready"):
                    a.block_until_ready()
        for value, _, _ in results:
            for v in value if isinstance(value, tuple) else (value,):
                np.asarray(v)


def probe(n: int, names: list[str] | None = None) -> None:
    """Per kernel at n lanes: the share of lanes the device flags (re-run on the host), and the
    device compute time against the hand-written jax.jit(jax.vmap(f)), inputs on the device."""
    import time

    import bench_kernels
    import jax

    from vectorizer import VectorizeError, vectorize
    from vectorizer.backends.jax.driver import x64

    def best(run, reps: int = 3) -> float:
        run()
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    print(f"# probe at n={n:,} on {jax.devices()[0].device_kind}: ns/element, device compute only")
    for k in bench_kernels.KERNELS:
        if names and k.name not in names:
            continue
        arrays = k.inputs(n, k.seed)
        started = time.perf_counter()
        try:
            vf = vectorize(k.func, backend="jax", exact=False, fallback="error")
            kernel, placed = device_inputs(vf, arrays)
        except VectorizeError as exc:
            print(f"{k.name:20} refused: {exc.message}", flush=True)
            continue
        outs = compute(kernel, placed)
        first = time.perf_counter() - started  # generation, tracing and XLA's compile, one call
        with x64():
            flagged = sum(int(np.asarray(flag).sum()) for _, flag, _ in outs)
            hand = jax.jit(jax.vmap(k.jax))
            on_device = [jax.device_put(a) for a in arrays]
            try:
                t_hand = best(lambda hand=hand, on_device=on_device: hand(*on_device).block_until_ready())
            except jax.errors.JaxRuntimeError as exc:  # quadratic_root's jnp.copysign on a TPU
                print(f"{k.name:20} hand-written version failed: {str(exc).splitlines()[0][:100]}", flush=True)
                t_hand = float("nan")
        t_vec = best(lambda kernel=kernel, placed=placed: compute(kernel, placed))
        print(f"{k.name:20} flagged {flagged / n:8.2%}  hand {t_hand / n * 1e9:8.3f}  vec_jax {t_vec / n * 1e9:8.3f}"
              f"  ratio {t_vec / t_hand:6.2f}  first call {first:6.1f} s  {verify(vf, k.func, arrays)}", flush=True)


def verify(vf: Any, scalar: Any, arrays: tuple[np.ndarray, ...], lanes: int = 20_000) -> str:
    """The whole call (device, then the host's re-run of flagged lanes) on the first `lanes` lanes
    against the scalar function lane by lane: ints and bools equal, floats within 1e-9 relative
    (XLA's functions are not the C library's), exceptions of the same type."""
    sample = [a[:lanes] for a in arrays]
    try:
        want = [scalar(*lane) for lane in zip(*(a.tolist() for a in sample))]
    except Exception as exc:  # noqa: BLE001 - the loop's exception is what the call must raise
        try:
            vf(*sample)
        except Exception as got:  # noqa: BLE001 - compared by type
            return f"verify: both raise {type(exc).__name__}" if type(got) is type(exc) else \
                f"verify: WRONG, loop raises {type(exc).__name__}, call {type(got).__name__}"
        return f"verify: WRONG, loop raises {type(exc).__name__}, call returns"
    got = vf(*sample)
    columns = list(zip(*want)) if isinstance(want[0], tuple) else [want]
    outs = got if isinstance(got, tuple) else (got,)
    wrong = 0
    for column, out in zip(columns, outs):
        w, g = np.asarray(column), np.asarray(out)
        if w.dtype.kind == "f":
            close = np.isclose(g, w, rtol=1e-9, atol=0.0) | (np.isnan(g) & np.isnan(w)) | (g == w)
            wrong += int((~close).sum())
        else:
            wrong += int((g != w).sum())
    return f"verify {len(want):,} lanes: {'exact outcomes' if not wrong else f'WRONG on {wrong}'}"


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    probe(int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000, sys.argv[2].split(",") if len(sys.argv) > 2 else None)
