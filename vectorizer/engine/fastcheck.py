"""The argument checks of the NumPy backend's short paths, as straight-line code made per plan.

A short call at 1e3 lanes spends ~2 µs in its kernel; checking each argument in a loop (`zip`,
`a.flags`, `a.shape` tuples) cost ~0.5 µs more for two arrays on this VM. A function generated for
the plan's arity, with the plan's dtypes and types as defaults, does the same checks in ~0.25 µs:
`a0.dtype is d0 and a0.ndim == 1 and ...`, no loop and no tuple made. The texts depend only on the
arity (and on where the numbers are): each is compiled once and made into a function per plan.

NumPy kernels take arrays of any strides, writeable or not (the general path passes them as they
are: `Batch.kernel_arg` gives a 1-D argument of the batch's length as a view of itself), so these
checks do not look at the layout; the Numba backend's do (fastpath._run_numba).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from .inputs import INT64_MAX, INT64_MIN


@functools.lru_cache(maxsize=64)
def _array_maker(arity: int) -> Callable[..., Callable[[tuple], int]]:
    names = [f"a{i}" for i in range(arity)]
    dtypes = "".join(f", d{i}=d{i}" for i in range(arity))
    same = " and ".join(f"len({a}) == n" for a in names[1:]) or "True"
    text = (f"def make(nd, {', '.join(f'd{i}' for i in range(arity))}):\n"
            f"    def lanes(args, nd=nd{dtypes}):\n"
            f"        if len(args) != {arity}:\n            return 0\n"
            f"        {', '.join(names)}, = args\n"
            f"        if {' and '.join(f'type({a}) is nd and {a}.dtype is d{i} and {a}.ndim == 1' for i, a in enumerate(names))}:\n"
            f"            n = len(a0)\n"
            f"            if {same}:\n                return n\n"
            f"        return 0\n"
            f"    return lanes\n")
    env: dict = {}
    exec(compile(text, "<vectorizer fastcheck>", "exec"), env)  # noqa: S102 - no user text in it
    return env["make"]


def array_lanes(dtypes: tuple[np.dtype, ...]) -> Callable[[tuple], int]:
    """`lanes(args)`: n when `args` are len(dtypes) exact `np.ndarray`s, 1-D, of these very dtype
    objects and one length n; else 0 (as for n == 0: the general path's call)."""
    return _array_maker(len(dtypes))(np.ndarray, *dtypes)


@functools.lru_cache(maxsize=256)
def _mixed_maker(kinds: tuple[str, ...]) -> Callable[..., Callable[[tuple], tuple | None]]:
    """kinds: per argument "a" (an array), "n" (a number passed as it is), "c" (a number converted
    for the kernel) or "i" (a Python int: checked to fit int64, then converted)."""
    names = [f"a{i}" for i in range(len(kinds))]
    arrays = [a for a, k in zip(names, kinds) if k == "a"]
    tests, kargs = [], []
    for i, (a, k) in enumerate(zip(names, kinds)):
        if k == "a":
            tests.append(f"type({a}) is nd and {a}.dtype is w{i} and {a}.ndim == 1")
            kargs.append(a)
        else:
            tests.append(f"type({a}) is w{i}" + (f" and lo <= {a} <= hi" if k == "i" else ""))
            kargs.append(a if k == "n" else f"c{i}({a})")
    params = "".join(f", w{i}, c{i}" for i in range(len(kinds)))
    defaults = "".join(f", w{i}=w{i}, c{i}=c{i}" for i in range(len(kinds)))
    same = " and ".join(f"len({a}) == n" for a in arrays[1:]) or "True"
    text = (f"def make(nd, lo, hi{params}):\n"
            f"    def kernel_args(args, nd=nd, lo=lo, hi=hi{defaults}):\n"
            f"        if len(args) != {len(kinds)}:\n            return None\n"
            f"        {', '.join(names)}, = args\n"
            f"        if {' and '.join(tests)}:\n"
            f"            n = len({arrays[0]})\n"
            f"            if {same}:\n                return n, ({', '.join(kargs)},)\n"
            f"        return None\n"
            f"    return kernel_args\n")
    env: dict = {}
    exec(compile(text, "<vectorizer fastcheck>", "exec"), env)  # noqa: S102 - no user text in it
    return env["make"]


def mixed_args(slots: tuple[object, ...], converts: dict[type, type | None]) -> Callable[[tuple], tuple | None]:
    """`kernel_args(args)`: (n, the kernel's arguments) when each argument fits its slot (an array
    slot holds a dtype: an exact 1-D `np.ndarray` of that dtype, all of one length n; a number slot
    a type: a number of exactly that type, a Python int within int64, converted as `MixedPlan.call`
    converts it: `converts[type]`, None for a type passed as it is); else None."""
    kinds, values = [], []
    for want in slots:
        if isinstance(want, np.dtype):
            kinds.append("a")
            values += [want, None]
        else:
            convert = converts[want]  # type: ignore[index]
            kinds.append("n" if convert is None else "i" if want is int else "c")
            values += [want, convert]
    return _mixed_maker(tuple(kinds))(np.ndarray, INT64_MIN, INT64_MAX, *values)
