"""Lane code's call of NumPy's own float64 ufunc loop (ufuncloops.py), as a Numba intrinsic.

A generated Numba module whose lane code computes `np.sin(x)` of a number with NumPy's kernel
carries (codegen/numba_ufuncs.py)

    from vectorizer.backends.numba.ufunclane import lane_loop as _vz_ufunc_loop
    _vz_ufunc_sin = _vz_ufunc_loop("sin", False)

and its lanes call `_vz_ufunc_sin(x)`. `lane_loop` runs when the module is imported, before any
of its functions compiles or loads from Numba's on-disk cache: it finds and checks this
process's loop (ufuncloops.find) and binds the symbol `vz_ufunc_sin` to its address
(`llvmlite.binding.add_symbol`), and `vz_ufunc_sin_data` to its data pointer where the loop has
one (`data`: the text says which, from the process that generated it; a module made for a NumPy
whose loop differs there is refused at import, not run). The machine code calls the symbol by
name, so a kernel from Numba's cache calls the loop of the process that loads it, which may be
another CPU dispatch's (NPY_DISABLE_CPU_FEATURES) or sit at another address.

The intrinsic calls the loop with one element: the arguments and the result in a stack array
(allocated once, in the function's entry block), `args` pointing into it, dimensions {1}, every
step 0, as NumPy's own call on numbers (0-d operands) runs it. `_vz_ufunc_stepped_power =
_vz_ufunc_loop("power", False, stepped=True)` gives every step 8 instead, as NumPy runs the loop
on array operands (element k of `x ** table`): np.power's loop takes its shortcuts (x * x for an
exponent of 2.0...) only for an exponent of step 0 (ufuncloops.py checks both calls). Measured on the shared 2-core
AVX-512 VM while loaded (scripts/probe_ufuncloops.py, 1 thread, noisy): exp 36-84 ns a call,
against 7-9 for the C library's exp and ~1 ns a lane for np.exp on an array (NumPy's SIMD
kernels pay a fixed cost a call that one element cannot spread); sin and cos about the C
library's cost (60-80 ns there, loaded), log 45-110, tanh 155, arctan2 190.
"""

from __future__ import annotations

import functools
from typing import Any

from .ufuncloops import find, unavailable


@functools.cache
def lane_loop(name: str, data: bool, stepped: bool = False) -> Any:
    """A Numba intrinsic: NumPy's float64 loop of `np.<name>` on one element (float operands),
    every step 0 (numbers), or 8 where `stepped` (array operands)."""
    loop = find(name, stepped)
    if loop is None:
        raise ImportError(f"vectorizer: NumPy's float64 loop of np.{name} cannot be called from lane code "
                          f"here{' with array steps' if stepped else ''}: {unavailable(name, stepped)}")
    if bool(loop.data) != data:
        raise ImportError(f"vectorizer: this module was generated for a NumPy whose loop of np.{name} "
                          f"{'has' if data else 'has no'} data pointer; this one's differs")
    import llvmlite.binding as llvm
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    symbol = f"vz_ufunc_{name}"
    llvm.add_symbol(symbol, loop.function)
    if data:
        llvm.add_symbol(symbol + "_data", loop.data)
    nin, nargs = loop.nin, loop.nin + 1
    step = 8 if stepped else 0  # bytes: a float64 array's (n = 1: no pointer moves)

    def codegen(context, builder, signature, args):
        double, byte_pointer = ir.DoubleType(), ir.IntType(8).as_pointer()
        intp = context.get_value_type(types.intp)
        kind = ir.FunctionType(ir.VoidType(), [byte_pointer.as_pointer(), intp.as_pointer(), intp.as_pointer(),
                                               byte_pointer])
        function = cgutils.get_or_insert_function(builder.module, kind, symbol)
        function.attributes.add("nounwind")
        slots = cgutils.alloca_once(builder, double, size=nargs)
        pointers = cgutils.alloca_once(builder, byte_pointer, size=nargs)
        steps = cgutils.alloca_once(builder, intp, size=nargs)
        dims = cgutils.alloca_once(builder, intp, size=1)
        builder.store(ir.Constant(intp, 1), dims)
        for k in range(nargs):
            slot = builder.gep(slots, [ir.Constant(ir.IntType(32), k)])
            if k < nin:
                builder.store(context.cast(builder, args[k], signature.args[k], types.float64), slot)
            builder.store(builder.bitcast(slot, byte_pointer), builder.gep(pointers, [ir.Constant(ir.IntType(32), k)]))
            builder.store(ir.Constant(intp, step), builder.gep(steps, [ir.Constant(ir.IntType(32), k)]))
        extra = ir.Constant(byte_pointer, None)
        if data:  # its address, declared as a function's: resolved like the loop's, by name
            marker = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                    symbol + "_data")
            extra = builder.bitcast(marker, byte_pointer)
        builder.call(function, [pointers, dims, steps, extra])
        return builder.load(builder.gep(slots, [ir.Constant(ir.IntType(32), nin)]))

    def typed(*args):
        if not all(isinstance(a, types.Float | types.Integer | types.Boolean) for a in args):
            return None
        return types.float64(*args), codegen

    if nin == 1:  # Numba's intrinsics take named parameters, not *args
        def typer(typingctx, x):
            return typed(x)
    else:
        def typer(typingctx, x, y):
            return typed(x, y)
    typer.__name__ = typer.__qualname__ = f"_vz_ufunc_{'stepped_' if stepped else ''}{name}"
    return intrinsic(typer)
