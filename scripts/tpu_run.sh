#!/usr/bin/env bash
# backend="jax" on a machine with an accelerator (a TPU, or any JAX device), from the repository
# root, with nothing installed but JAX, NumPy and libcst (no `pip install -e .`: PYTHONPATH=.):
#
#   bash scripts/tpu_run.sh            # results in bench-results/ (or $OUT)
#
# 1. scripts/measure_xla_ulp.py --write: XLA's float64 bounds and arithmetic facts on this
#    platform, merged into vectorizer/backends/jax/xla_bounds.json (commit it, and the table it
#    rewrites, docs/runs/xla-bounds.md); backend="jax" refuses a platform that is not in it.
#    Then scripts/probe_emulated_f64.py + scripts/emulated_f64.py --write: where the platform's
#    float64 is emulated (a TPU's), its range and the bounds inside it (the facts backend="jax"
#    models such a platform with); on an IEEE float64 it says so and writes nothing.
# 2. scripts/bench_jax.py: per kernel at 1e6 lanes, the share of lanes flagged (re-run on the
#    host) and the device compute time against the hand-written jax.jit(vmap), quickly.
# 3. scripts/bench.py, variants jax (hand-written jax.jit(vmap)), vec_jax_device (device compute
#    only) and vec_jax_transfer (transfers only), at 1e7 for the 16 kernels, then at 1e8 for four
#    of them; vec_jax (NumPy in and out, all included) for the kernels the probe flagged no lane
#    of. The log lines carry each kernel's ns/element as it finishes, so a run cut short still
#    reports what it measured.
# Each step has a time limit in seconds (MEASURE_S, PROBE_S, BENCH_S, TOTAL_S, BIG_S): about 16
# minutes in all; a session with less runs the steps apart (they read what the earlier ones wrote).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export VECTORIZER_CACHE_DIR="${VECTORIZER_CACHE_DIR:-$(mktemp -d)}"
OUT="${OUT:-bench-results}"
mkdir -p "$OUT"
python3 -c "import jax, numpy, libcst; print('JAX', jax.__version__, jax.devices())" || exit 1

timeout "${MEASURE_S:-240}" python3 scripts/measure_xla_ulp.py --samples "${SAMPLES:-4000}" --write 2>&1 | tee "$OUT/measure.log"
# an emulated float64 (a TPU's): its range, entry rounding and bounds inside the range (docs/jax.md)
timeout "${EMULATED_S:-300}" python3 scripts/probe_emulated_f64.py "$OUT/probe" && \
    python3 scripts/emulated_f64.py "$OUT/probe" --platform "$(python3 -c 'import jax; print(jax.devices()[0].platform)')" --write
cp vectorizer/backends/jax/xla_bounds.json docs/runs/xla-bounds.md "$OUT/"

timeout "${PROBE_S:-120}" python3 scripts/bench_jax.py "${PROBE_N:-1e6}" 2>&1 | tee "$OUT/probe.log"

# Device compute and transfers apart for every kernel; NumPy in and out (vec_jax, which includes
# the host's re-run of flagged lanes) only where the probe flags none: on a TPU v5e every lane that
# decides on a float was flagged (docs/jax.md), and re-running 1e7 of them in Python takes minutes.
SPLIT=jax,vec_jax_device,vec_jax_transfer
timeout "${BENCH_S:-300}" python3 scripts/bench.py --variants "$SPLIT" --sizes 1e7 --repeats 3 --budget 3 \
    --verify-lanes 500 --json "$OUT/bench-1e7.json" --markdown "$OUT/bench-1e7.md" 2>&1 | tee "$OUT/bench-1e7.log"
EXACT=$(awk '$2 == "flagged" && $3 == "0.00%" {printf "%s%s", sep, $1; sep=","}' "$OUT/probe.log")
if [ -n "$EXACT" ]; then
    timeout "${TOTAL_S:-150}" python3 scripts/bench.py --variants jax,vec_jax --sizes 1e7 --repeats 3 --budget 3 \
        --kernels "$EXACT" --verify-lanes 500 --json "$OUT/bench-total.json" --markdown "$OUT/bench-total.md" 2>&1 \
        | tee "$OUT/bench-total.log"
fi
timeout "${BIG_S:-150}" python3 scripts/bench.py --variants "$SPLIT" --sizes 1e8 --repeats 3 --budget 4 \
    --kernels mandelbrot_escape,black_scholes_call,haversine_km,smoothstep --verify-lanes 300 \
    --json "$OUT/bench-1e8.json" --markdown "$OUT/bench-1e8.md" 2>&1 | tee "$OUT/bench-1e8.log"
