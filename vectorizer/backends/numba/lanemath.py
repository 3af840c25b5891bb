"""`vector_math=True` on the Numba backend: lane code whose libm calls LLVM vectorizes to libmvec.

The Numba backend's lane code calls `_vz_lm.exp(x)` where it would call `math.exp(x)`
(passes/lane_vector_math.py). Each function here is a Numba intrinsic (jit.py) that calls a small
LLVM function, `vz_exp(double)`, which runs glibc's 4-lane AVX2 `_ZGVdN4v_exp` on four copies of
its argument and returns the first. Its declaration carries the `vector-function-abi-variant`
attribute, `_ZGV_LLVM_N4v_vz_exp(_ZGVdN4v_exp)`, which tells LLVM's loop vectorizer that four
calls of it are one call of `_ZGVdN4v_exp`. The driver loops (codegen/numba_module.py) then run
four lanes an iteration, one libmvec call for four `exp`s, where scalar libm costs 2-10x more a
lane (scripts/probe_libmvec.py). A lane's value is the vector function's whether or not its loop
was vectorized (the scalar path calls the same function), so it does not depend on the batch,
and it is the value the NumPy backend's vector math gives (vecmath.py calls the same functions).

Two settings make LLVM take the vector loop, measured on the benchmark's kernels (LLVM 22): the
lane functions are inlined into the drivers (`inline="always"`: a call to one is opaque to the
vectorizer), and a vectorization factor of 4 is forced while these modules compile
(`jit.force_vector_width`).

Only generated Numba code imports this module, and only where `vecmath.unavailable()` is ""
(Numba, AVX2, libmvec: passes/lane_vector_math.py); elsewhere the import raises ImportError (a
module generated on another machine gets that, not a SIGILL in a kernel).
"""

from __future__ import annotations

from . import jit
from .vecmath import FUNCTIONS, libmvec, unavailable

_why = unavailable()
if _why:
    raise ImportError(f"vectorizer.backends.numba.lanemath: {_why}")

globals().update(jit.vector_call_intrinsics(libmvec()[0], {mvec: arity for mvec, arity, _ in FUNCTIONS.values()}))
jit.force_vector_width("_vz_lm", __name__)
