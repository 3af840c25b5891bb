"""NumPy's own float64 inner loop of a ufunc, found in this process and checked, for lane code.

Lane code (the Numba backend) computes `np.sin(x)` of a number with the C library's `sin` where
NumPy calls it (core/numpy_kernels.py). Where NumPy runs its own SIMD kernel instead (exp, log,
sin... on AVX-512 CPUs, other last bits on some inputs), lane code calls that kernel itself:
NumPy's public C struct `PyUFuncObject` (numpy/_core/include/numpy/ufuncobject.h) holds, per type
signature, the loop function NumPy's CPU dispatch chose when it was imported,

    void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void *data)

and ufunclane.py calls the 'd->d' (or 'dd->d') one with one element. Nothing of the struct is
assumed: `find(name)` reads it with ctypes and uses the loop only where every check holds, else
says why not (and lane code keeps refusing the function):

* the struct's nin, nout, nargs, ntypes and name equal the ufunc's, and its type numbers, read
  as chars, are `ufunc.types`, one signature a row, with exactly one all-float64 signature;
* called through ctypes on one element at a time, the loop gives, on hostile arguments (NaN,
  ±inf, ±0.0, subnormals, DBL_MAX, huge arguments of sin, exp's and log's edges) and a few
  thousand random ones (uniform, log-uniform, random bit patterns), exactly `ufunc(x)`'s bits
  for each Python float `x` (what the scalar function computes: NumPy runs the loop on 0-d
  operands with every step 0, as lane code calls it, which keeps np.power's shortcuts for an
  exponent of -1, 0, 0.5, 1 or 2), and, called on the whole array, `ufunc(array)`'s bits (the
  loop is the one NumPy runs);
* `find(name, stepped=True)`, the loop called with one element but every step 8 (as NumPy runs
  it on an operand that is an array: a loop may look at the steps, np.power's takes its
  shortcuts only for an exponent of step 0), is checked the same way against the elements of
  `ufunc(array, array)`, of `ufunc(number, array)` (a broadcast base, step 0 in NumPy) and of
  `ufunc(number, one-element array)` (NumPy gives its one element a step of 8, measured: its
  np.power takes no shortcut there); lane code calls it for element k of `x ** table` and for
  `x ** np.atleast_1d(y)`.

The function pointer (and its `data` pointer, where it has one) belong to this process: CPU
dispatch picks the loop at import (NPY_DISABLE_CPU_FEATURES picks another), and addresses move
between processes. Lane code never holds them as constants: it calls a symbol that ufunclane.py
binds to this process's pointer when the generated module is imported, before any of its
functions compiles or loads from Numba's on-disk cache (whose machine code refers to the symbol
by name), as codegen/numba_helpers.py does for the C library's pow.
"""

from __future__ import annotations

import ctypes
import functools
import math
import sys
import sysconfig
from dataclasses import dataclass

import numpy as np

_DOUBLE = np.dtype(np.float64).num
_LOOP = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class _UFuncHead(ctypes.Structure):
    """The start of PyUFuncObject (a default build's PyObject_HEAD: no free threading, no
    Py_TRACE_REFS; the field checks catch another layout)."""

    _fields_ = [("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p),
                ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int), ("identity", ctypes.c_int),
                ("functions", ctypes.POINTER(ctypes.c_void_p)), ("data", ctypes.POINTER(ctypes.c_void_p)),
                ("ntypes", ctypes.c_int), ("reserved1", ctypes.c_int),
                ("name", ctypes.c_char_p), ("types", ctypes.POINTER(ctypes.c_char))]


@dataclass(frozen=True)
class Loop:
    """NumPy's float64 loop of `np.<name>` in this process: its address, its data pointer (0 for
    NULL) and its number of inputs."""

    name: str
    function: int
    data: int
    nin: int

    def call(self, *columns: np.ndarray) -> np.ndarray:
        """The loop on float64 arrays of one length (one call, n = their length)."""
        arrays = [np.ascontiguousarray(c, dtype=np.float64) for c in columns]
        out = np.empty(len(arrays[0]))
        pointers = (ctypes.c_void_p * (self.nin + 1))(*(a.ctypes.data for a in (*arrays, out)))
        dims = (ctypes.c_ssize_t * 1)(len(out))
        steps = (ctypes.c_ssize_t * (self.nin + 1))(*([8] * (self.nin + 1)))
        _LOOP(self.function)(pointers, dims, steps, self.data or None)
        return out

    def each(self, *columns: np.ndarray, step: int = 0) -> np.ndarray:
        """The loop called once an element (n = 1), as lane code calls it: every step 0, as
        NumPy's own call on numbers (0-d operands) runs it, or every step `step` (8: as NumPy
        runs it on arrays; n = 1, so no step moves a pointer)."""
        arrays = [np.ascontiguousarray(c, dtype=np.float64) for c in columns]
        out = np.empty(len(arrays[0]))
        bases = [a.ctypes.data for a in (*arrays, out)]
        pointers = (ctypes.c_void_p * (self.nin + 1))()
        dims = (ctypes.c_ssize_t * 1)(1)
        steps = (ctypes.c_ssize_t * (self.nin + 1))(*([step] * (self.nin + 1)))
        loop = _LOOP(self.function)
        for i in range(len(out)):
            for k, base in enumerate(bases):
                pointers[k] = base + 8 * i
            loop(pointers, dims, steps, self.data or None)
        return out


def find(name: str, stepped: bool = False) -> Loop | None:
    """NumPy's checked float64 loop for `np.<name>` here, or None (`unavailable` says why);
    `stepped`: checked for calls with every step 8 (array operands), not 0 (numbers)."""
    return (_stepped(name) if stepped else _found(name))[0]


def unavailable(name: str, stepped: bool = False) -> str:
    """Why lane code cannot call NumPy's loop for `np.<name>` here ("" where it can)."""
    return (_stepped(name) if stepped else _found(name))[1]


@functools.cache
def _stepped(name: str) -> tuple[Loop | None, str]:
    loop, why = _found(name)
    if loop is None:
        return None, why
    if loop.nin != 2:
        return None, f"np.{name} has one input (a stepped call is checked for the second input of two)"
    why = _stepped_differs(loop, getattr(np, name))
    return (None, why) if why else (loop, "")


@functools.cache
def _found(name: str) -> tuple[Loop | None, str]:
    ufunc = getattr(np, name, None)
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or ufunc.nin not in (1, 2):
        return None, f"np.{name} is not a ufunc of one or two inputs and one output"
    if sysconfig.get_config_var("Py_GIL_DISABLED") or hasattr(sys, "getobjects"):
        return None, "this Python's object header is not the default one, which the struct's layout is read with"
    head = _UFuncHead.from_address(id(ufunc))
    if (head.nin, head.nout, head.nargs, head.ntypes) != (ufunc.nin, ufunc.nout, ufunc.nargs, ufunc.ntypes):
        return None, "NumPy's PyUFuncObject does not have the layout of the header this reads it with"
    if head.name != name.encode() or ufunc.__name__ != name:
        return None, "NumPy's PyUFuncObject names another function"
    rows = [[np.dtype(c).num for c in sig.replace("->", "")] for sig in ufunc.types]
    table = bytes(head.types[: head.ntypes * head.nargs])
    if any(table[k * head.nargs:(k + 1) * head.nargs] != bytes(row) for k, row in enumerate(rows)):
        return None, "NumPy's PyUFuncObject's type table is not ufunc.types"
    # the first all-float64 row: NumPy's inner loop search takes the first that fits (np.exp lists
    # 'd->d' twice, its dispatched kernel first)
    found = [k for k, row in enumerate(rows) if row == [_DOUBLE] * head.nargs]
    if not found or not head.functions[found[0]]:
        return None, "NumPy has no float64 loop for it"
    loop = Loop(name, head.functions[found[0]], head.data[found[0]] or 0, head.nin)
    why = _differs(loop, ufunc)
    return (None, why) if why else (loop, "")


def _differs(loop: Loop, ufunc: np.ufunc) -> str:
    """"" where the loop gives ufunc's bits on the sample: one element a call those of the ufunc
    on each number, and on the whole array those of the ufunc on the array (the loop NumPy runs).
    Whether NumPy's value for a number is the one it gives inside an array is NumPy's own
    property (np.power's is not: its call on numbers takes x * x for an exponent of 2.0, its
    array call the kernel's pow), which lane code does not need: tests/backends/
    test_ufuncloops.py measures it."""
    columns = _sample(loop.nin)
    with np.errstate(all="ignore"):
        scalars = np.array([ufunc(*(float(c[i]) for c in columns)) for i in range(len(columns[0]))], dtype=np.float64)
        whole = ufunc(*columns)
        one, many = loop.each(*columns), loop.call(*columns)
    for what, got, expected in (("one element a call", one, scalars), ("the loop on the whole array", many, whole)):
        bad = np.flatnonzero(got.view(np.int64) != expected.view(np.int64))
        if bad.size:
            args = ", ".join(repr(float(c[bad[0]])) for c in columns)
            return (f"NumPy's float64 loop found for it gives other bits ({what}) than np.{ufunc.__name__} "
                    f"on the number(s) ({args})")
    return ""


def _stepped_differs(loop: Loop, ufunc: np.ufunc) -> str:
    """"" where the loop, one element a call with every step 8, gives the bits of each element
    of ufunc(array, array), of ufunc(number, array) and of ufunc(number, one-element array)."""
    x, y = _sample(2)
    pad = np.full(len(y), 1.5)
    with np.errstate(all="ignore"):
        got = loop.each(x, y, step=8).view(np.int64)
        cases = (("ufunc(array, array)", ufunc(x, y)),
                 ("ufunc(number, array)", np.array([ufunc(float(a), np.array([b, c]))[0] for a, b, c in zip(x, y, pad)])),
                 ("ufunc(number, one-element array)", np.array([ufunc(float(a), np.array([b]))[0] for a, b in zip(x, y)])))
    for what, expected in cases:
        bad = np.flatnonzero(got != expected.view(np.int64))
        if bad.size:
            return (f"NumPy's float64 loop found for it, called with every step 8, gives other bits than the elements "
                    f"of {what.replace('ufunc', 'np.' + ufunc.__name__)} on the numbers ({x[bad[0]]!r}, {y[bad[0]]!r})")
    return ""


def hostile() -> np.ndarray:
    """Arguments that reach every path of a float64 kernel: specials, edges, huge reductions."""
    tiny, big = 5e-324, sys.float_info.max
    edges = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, tiny, -tiny, 1e-310, -1e-310,
             sys.float_info.min, -sys.float_info.min, big, -big, 1e308, -1e308, 1e300, 1e22, -1e22,
             2.0 ** 53, 2.0 ** 1023, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-8, -1e-8, 1e-300, math.pi, -math.pi,
             math.pi / 2, math.pi / 4, 2 * math.pi, 1e5 * math.pi, 709.782712893384, 709.7827128933841,
             -708.3964185322641, -745.1332191019411, -745.1332191019412, 88.72283935546875, 1024.0, -1075.0,
             0.9999999999999999, 1.0000000000000002, -0.9999999999999999, 1e16, 3e9, 8.98846567431158e307]
    return np.array(edges, dtype=np.float64)


@functools.cache
def _sample(nin: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(20261206)  # fixed: the same arguments in every process
    count = 1500
    uniform = rng.uniform(-10.0, 10.0, count)
    magnitude = np.exp(rng.uniform(math.log(1e-310), math.log(1e308), count)) * rng.choice([-1.0, 1.0], count)
    bits = rng.integers(0, 2 ** 64, count, dtype=np.uint64).view(np.float64)  # any pattern: signaling NaNs too
    values = np.concatenate([hostile(), uniform, magnitude, bits])
    if nin == 1:
        return (values,)
    edges = hostile()
    x, y = np.meshgrid(edges, edges)
    return (np.concatenate([x.ravel(), values, rng.permutation(values)]),
            np.concatenate([y.ravel(), rng.permutation(values), values]))
