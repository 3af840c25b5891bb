"""`vector_math=True` on the Numba backend: lane code whose libm calls LLVM vectorizes to libmvec.

The Numba backend's lane code calls `_vz_lm.exp(x)` where it would call `math.exp(x)`
(passes/lane_vector_math.py). Each function here is a Numba intrinsic that calls a small LLVM
function, `vz_exp(double)`, which runs glibc's 4-lane AVX2 `_ZGVdN4v_exp` on four copies of its
argument and returns the first. Its declaration carries the `vector-function-abi-variant`
attribute, `_ZGV_LLVM_N4v_vz_exp(_ZGVdN4v_exp)`, which tells LLVM's loop vectorizer that four
calls of it are one call of `_ZGVdN4v_exp`. The driver loops (codegen/numba_module.py) then run
four lanes an iteration, one libmvec call for four `exp`s, where scalar libm costs 2-10x more a
lane (scripts/probe_libmvec.py). A lane's value is the vector function's whether or not its loop
was vectorized (the scalar path calls the same function), so it does not depend on the batch.

Two settings make LLVM take the vector loop, measured on the benchmark's kernels (LLVM 22): the
lane functions are inlined into the drivers (`inline="always"`: a call to one is opaque to the
vectorizer), and a vectorization factor of 4 is forced while these modules compile (LLVM's cost
model does not know that the vector call is cheaper and keeps haversine_km scalar). The factor is
an LLVM command-line option, global to the process: it is set only for the duration of a Numba
compilation of a function that uses this module (Numba compiles one function at a time, under
its global compiler lock), through Numba's compile events.

Import this module only where `vecmath.unavailable()` is "" (Numba, AVX2, libmvec): the
generated code does not name it otherwise (passes/lane_vector_math.py), and elsewhere the import
raises ImportError.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

import llvmlite.binding as llvm
from llvmlite import ir
from numba.core import cgutils, event, types
from numba.extending import intrinsic

from .vecmath import FUNCTIONS, libmvec, unavailable

# Generated code names this module only where vector math can run; a module generated elsewhere
# (a cache shared between machines) gets an ImportError here, not a SIGILL in a kernel.
if unavailable():
    raise ImportError(f"vectorizer.lanemath: {unavailable()}")
llvm.load_library_permanently(libmvec()[0])

_DOUBLE = ir.DoubleType()
_FOUR = ir.VectorType(_DOUBLE, 4)
_USED = "llvm.compiler.used"


def _keep(module: ir.Module, fn: ir.Function) -> None:
    """List `fn` in llvm.compiler.used: the vectorizer maps calls only to functions the module
    declares, and an unused declaration would be dropped before it runs."""
    ptr = ir.IntType(8).as_pointer()
    old = module.globals.get(_USED)
    items = list(old.initializer.constant) if old is not None else []
    if old is not None:
        del module.globals[_USED]
        module.scope._useset.discard(_USED)  # llvmlite has no API to replace a global
    array = ir.ArrayType(ptr, len(items) + 1)
    used = ir.GlobalVariable(module, array, _USED)
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(array, [*items, fn.bitcast(ptr)])


def _scalar(module: ir.Module, name: str, arity: int) -> ir.Function:
    """`vz_<name>`: one lane through the 4-lane function, with its vector mapping."""
    symbol, vector = f"vz_{name}", f"_ZGVdN4{'v' * arity}_{name}"
    fn = cgutils.get_or_insert_function(module, ir.FunctionType(_DOUBLE, [_DOUBLE] * arity), symbol)
    if not fn.is_declaration:
        return fn
    vfn = cgutils.get_or_insert_function(module, ir.FunctionType(_FOUR, [_FOUR] * arity), vector)
    fn.linkage = "linkonce_odr"
    builder = ir.IRBuilder(fn.append_basic_block())
    splats = []
    for arg in fn.args:
        four = ir.Constant(_FOUR, ir.Undefined)
        for lane in range(4):
            four = builder.insert_element(four, arg, ir.Constant(ir.IntType(32), lane))
        splats.append(four)
    builder.ret(builder.extract_element(builder.call(vfn, splats), ir.Constant(ir.IntType(32), 0)))
    for attribute in ("nounwind", "noinline", "readnone"):
        fn.attributes.add(attribute)
    # A string attribute, which llvmlite's attribute set does not list: added as the text it prints.
    set.add(fn.attributes, f'"vector-function-abi-variant"="_ZGV_LLVM_N4{"v" * arity}_{symbol}({vector})"')
    _keep(module, vfn)
    return fn


def _intrinsic(name: str, arity: int):
    def codegen(context, builder, signature, args):
        return builder.call(_scalar(builder.module, name, arity), args)

    def typed(*args):
        if not all(isinstance(a, types.Float | types.Integer | types.Boolean) for a in args):
            return None
        return types.float64(*args), _cast(codegen, args)

    if arity == 1:  # Numba's intrinsics take named parameters, not *args
        def typer(typingctx, x):
            return typed(x)
    else:
        def typer(typingctx, x, y):
            return typed(x, y)
    typer.__name__ = name
    return intrinsic(typer)


def _cast(codegen, argtypes):
    """The codegen with each argument converted to float64 first (lane code passes ints too)."""
    def cast(context, builder, signature, args):
        doubles = [context.cast(builder, a, t, types.float64) for a, t in zip(args, argtypes)]
        return codegen(context, builder, signature, doubles)
    return cast


for _mvec, _arity, _ in FUNCTIONS.values():
    globals()[_mvec] = _intrinsic(_mvec, _arity)


class _ForceFour(event.Listener):
    """While Numba compiles a function of a module that uses lanemath: vectorize loops by 4.

    LLVM reports every loop it then cannot vectorize (a lane's own `while` loop, the parallel
    driver's scheduling loop) on the process's stderr, whatever remarks were asked for. Those
    lines are dropped: file descriptor 2 goes to a temporary file during the compilation, and
    everything else written there is copied back to stderr at its end."""

    def __init__(self) -> None:
        self.depth = 0
        self.saved_fd = -1
        self.captured = None

    def _ours(self, ev) -> bool:
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        py_func = getattr(dispatcher, "py_func", None)
        return getattr(py_func, "__globals__", {}).get("_vz_lm") is _THIS

    def on_start(self, ev) -> None:
        if self.depth == 0 and not self._ours(ev):
            return
        self.depth += 1
        if self.depth == 1:
            sys.stderr.flush()
            self.captured = tempfile.TemporaryFile()
            self.saved_fd = os.dup(2)
            os.dup2(self.captured.fileno(), 2)
            llvm.set_option("", "-force-vector-width=4")

    def on_end(self, ev) -> None:
        if self.depth == 0:
            return
        self.depth -= 1
        if self.depth == 0:
            llvm.set_option("", "-force-vector-width=0")  # 0: LLVM's own choice again
            sys.stderr.flush()
            os.dup2(self.saved_fd, 2)
            os.close(self.saved_fd)
            self.captured.seek(0)
            text = self.captured.read().decode(errors="replace")
            self.captured.close()
            kept = [line for line in text.splitlines(keepends=True) if not _LLVM_REMARK.match(line)]
            if kept:
                sys.stderr.write("".join(kept))


_LLVM_REMARK = re.compile(r"remark: .*(loop not vectorized|the cost-model indicates|vectorized loop)")
_THIS = sys.modules[__name__]
event.register("numba:compile", _ForceFour())
