"""A short path's whole call as one function made for its plan: checks, kernel, result, one frame.

A call at 1e3 lanes that takes a short path spends 1-8 µs in its kernel. Reaching the kernel
through the wrapper's method, `fastpath.run`, the plan's method and its argument checks cost
~2.6 µs a call on an AMD EPYC (d1(spot, 100.0, 0.2, t, 0.01) on the NumPy backend: kernel
7.4 µs, call 10.1); most of it is frames, attribute reads and tuples, not checks. The function
made here does the same checks in one frame, the plan's values bound as defaults:

    def go(args, ...):
        if len(args) != 5:
            return MISS
        a0, a1, a2, a3, a4, = args
        if not (type(a0) is nd and a0.dtype is w0 and a0.ndim == 1 and type(a1) is w1 and ...):
            return MISS
        n = len(a0)
        if not (len(a3) == n) or n < 1 or (n > maxl and not also0 <= n <= also1) \\
                or env.get(key) not in off or not fresh():
            return MISS
        ...  # the kernel under NumPy's quiet error state (fastpath._quietly)
        P.last = U
        if type(result) is nd and result.base is None and ... and result is not a0 and ...:
            return result  # the common result: a new array of NumPy's, no lane flagged
        return finish(args, (a0, c1(a1), c2(a2), a3, c4(a4),), result, flag, n)

Per argument (`kinds`): "a" an array (on the Numba backend C-contiguous and writeable too: Numba
compiles for the layout), "n" a number passed as it is, "c" a number converted for the kernel
(a Python float to np.float64), "i" a Python int, checked to fit int64 and converted. The texts
depend only on the kinds and the backend: each is compiled once and made into a function per
plan. `env.get(key) not in off` is `options.disabled()` (VECTORIZER_DISABLE), inlined.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..options import disable_lookup
from .inputs import INT64_MAX, INT64_MIN

_OFF = (None, b"", b"0", "", "0")  # VECTORIZER_DISABLE unset or off: options.disabled()


def _text(kinds: tuple[str, ...], numpy_backend: bool, one_result: bool, state: bool) -> str:
    names = [f"a{i}" for i in range(len(kinds))]
    arrays = [a for a, k in zip(names, kinds) if k == "a"]
    tests, kargs = [], []
    for i, (a, k) in enumerate(zip(names, kinds)):
        if k == "a":
            layout = "" if numpy_backend else f" and (f{i} := {a}.flags).c_contiguous and f{i}.writeable"
            tests.append(f"type({a}) is nd and {a}.dtype is w{i} and {a}.ndim == 1{layout}")
            kargs.append(a)
        else:
            tests.append(f"type({a}) is w{i}" + (f" and lo <= {a} <= hi" if k == "i" else ""))
            kargs.append(a if k == "n" else f"c{i}({a})")
    params = "".join(f", w{i}, c{i}" for i in range(len(kinds)))
    defaults = ", ".join(["nd=nd", "lo=lo", "hi=hi", "MISS=MISS", "fn=fn", "fresh=fresh", "S=S", "fp=fp", "quiet=quiet",
                          "env=env", "key=key", "off=off", "P=P", "U=U", "finish=finish", "anyf=anyf", "maxl=maxl",
                          "also0=also0", "also1=also1", "rd=rd", "quietly=quietly"] + [f"w{i}=w{i}, c{i}=c{i}" for i in range(len(kinds))])
    same = " and ".join(f"len({a}) == n" for a in arrays[1:]) or "True"
    call = f"fn({', '.join(kargs)})"
    lines = [
        f"def make(nd, lo, hi, MISS, fn, fresh, S, fp, quiet, env, key, off, P, U, finish, anyf, maxl, also0, also1, rd, quietly{params}):",
        f"    def go(args, {defaults}):",
        f"        if len(args) != {len(kinds)}:",
        "            return MISS",
        f"        {', '.join(names)}, = args",
        f"        if not ({' and '.join(tests)}):",
        "            return MISS",
        f"        n = len({arrays[0]})",
        f"        if not ({same}) or n < 1 or (n > maxl and not also0 <= n <= also1) or env.get(key) not in off \\",
        "                or not fresh():",
        "            return MISS",
    ]
    inline = numpy_backend and state  # fastpath._quietly, inlined (NumPy's error state is a context variable)
    if inline:
        lines += ["        state = S.get()", "        q = fp._QUIET",
                  "        token = S.set((q if q[0] is state else quiet(state))[1])"]
    elif numpy_backend:
        call = f"quietly(fn, ({', '.join(kargs)},))"
    lines += ["        try:", f"            result, flag = {call}", "        except MemoryError:", "            raise",
              "        except Exception:  # a kernel never raises for a lane: the general path reports it",
              "            return MISS"]
    if inline:
        lines += ["        finally:", "            S.reset(token)"]
    lines.append("        P.last = U")
    if numpy_backend and one_result:  # fastpath.fresh_result's checks, for the common result
        distinct = "".join(f" and result is not {a}" for a in arrays)
        lines += ["        if type(result) is nd and result.base is None and (flag is None or not anyf(flag)) \\",
                  "                and result.dtype is rd and result.ndim == 1 and len(result) == n \\",
                  f"                and result.flags.writeable{distinct}:",
                  "            return result"]
    elif not numpy_backend:  # the Numba entry point's own fresh arrays (fastpath.plan)
        lines += ["        if flag is None or not anyf(flag):", "            return result"]
    lines += [f"        return finish(args, ({', '.join(kargs)},), result, flag, n)", "    return go", ""]
    return "\n".join(lines)


@functools.lru_cache(maxsize=256)
def _maker(kinds: tuple[str, ...], numpy_backend: bool, one_result: bool, state: bool) -> Callable[..., Callable[[tuple], object]]:
    env: dict = {}
    exec(compile(_text(kinds, numpy_backend, one_result, state), "<vectorizer fastentry>", "exec"), env)  # noqa: S102 - no user text in it
    return env["make"]


def entry(slots: tuple[object, ...], converts: dict[type, type | None], *, fn: Callable[..., Any],
          numpy_backend: bool, one_result: bool, result_dtype: np.dtype | None, fresh: Callable[[], bool],
          max_lanes: int, also: tuple[int, int], last: object, used: object,
          finish: Callable[[tuple, tuple, object, object, int], object], miss: object,
          state: Any, quiet_module: Any, quiet: Callable[[object], tuple], quietly: Callable[..., Any],
          any_flag: Callable[[object], bool]) -> Callable[[tuple], object]:
    """`go(args)`: the plan's call for these arguments, or `miss`. `slots` per argument: a dtype (an
    array of it), or a type (a number of exactly that type, converted with `converts[type]`, None
    for a type passed as it is); at least one array. On success it sets `last.last = used`; a call
    with a flagged lane or another result goes through `finish(args, kernel arguments, result, flag, n)`.
    NumPy kernels run with floating-point warnings off: `state` is NumPy's context variable of the
    error state (set as `quiet_module._QUIET` and `quiet` make it), or None (`quietly(fn, args)`)."""
    env, key = disable_lookup()
    kinds, values = [], []
    for want in slots:
        if isinstance(want, np.dtype):
            kinds.append("a")
            values += [want, None]
        else:
            convert = converts[want]  # type: ignore[index]
            kinds.append("n" if convert is None else "i" if want is int else "c")
            values += [want, convert]
    make = _maker(tuple(kinds), numpy_backend, one_result, state is not None)
    return make(np.ndarray, INT64_MIN, INT64_MAX, miss, fn, fresh, state, quiet_module, quiet, env, key, _OFF, last, used,
                finish, any_flag, max_lanes, also[0], also[1], result_dtype, quietly, *values)
