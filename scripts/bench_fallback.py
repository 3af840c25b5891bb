"""The element-by-element path against the loop a user would write (issue 51 section 1).

    PYTHONPATH=$PWD python scripts/bench_fallback.py [--sizes 1000 100000 1000000] [--rounds 7]
                                                     [--bare] [--cpu] [--only one pair ...] [--json out.json]

Each case is a vectorized call that runs the scalar function lane by lane, timed against

    np.array([f(*t) for t in zip(*[np.broadcast_to(a, shape).ravel().tolist() for a in args])])

(then reshaped to the broadcast shape; with --bare, the list alone, as scripts/corpus.py times the
loop: issue 51's measure), on the same arguments. Three ways in:

* refused: the function is defined by `exec` of a text no file or linecache holds, so its source
  cannot be read and the default fallback="warn" runs it element by element (one FallbackWarning,
  caught before timing);
* disabled: VECTORIZER_DISABLE=1, on functions defined in this file (their code is never made);
  Their results are floats, and (zerod, pair, mixed, flag, raises) a 0-d array on every lane, a
  tuple, ints and floats mixed, bools, and a ValueError on the last lane (both sides raise it);
* objects: arguments that are not numbers (an object array with None on some lanes, a str
  option), which a plain `vectorize(f)` runs on the same loop.

Functions of 1 to 4 arguments, arrays and scalars mixed, broadcasting ((m, 1) with (1, k)). The
bodies are cheap on purpose: the cheaper a lane, the more the path's own costs show. Rounds are
interleaved (every case once per round, the two timings of a case back to back in alternating
order) and the medians of the rounds are reported, with the load average before and after: on
a shared machine the ratio of medians is the figure, not the times; --cpu times the process's CPU
time instead of the wall clock, which leaves out the time it waited for a core.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import warnings
from functools import partial

import numpy as np

from vectorizer import FallbackWarning, vectorize

SOURCES = {
    "one": "def one(x):\n    return x * 2.0 + 1.0 if x > 0.5 else -x\n",
    "two": "def two(x, k):\n    return x * k if x > k else k - x\n",
    "three": "def three(x, y, t):\n    return x + y * t if x < y else x - t\n",
    "four": "def four(a, n, c, d):\n    return (a + c) * d if n > 0 else a - c\n",
    # result kinds: a 0-d array on every lane, a tuple, ints and floats mixed, bools, and a raise
    "zerod": "def zerod(x):\n    return np.asarray(x * 2.0) if x > 0.5 else np.asarray(-x)\n",
    "pair": "def pair(x, k):\n    return (x * k, 0) if x > k else (0, k - x)\n",
    "mixed": "def mixed(x):\n    return 1 if x < 0.5 else x * 2.0\n",
    "flag": "def flag(x, k):\n    return x > k\n",
    "raises": "def raises(x):\n    if x > 2.0:\n        raise ValueError(f'x={x} is too large')\n    return x * 2.0\n",
}


def one(x):
    return x * 2.0 + 1.0 if x > 0.5 else -x


def four(a, n, c, d):
    return (a + c) * d if n > 0 else a - c


def missing(x, unit):
    if x is None:
        return -1.0
    return x * 1000.0 if unit == "km" else x


def refused(name: str):
    """The function of `SOURCES[name]`, defined where no source can be read."""
    namespace: dict = {"np": np}
    exec(compile(SOURCES[name], f"<bench {name}>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace[name]


def arguments(name: str, n: int, rng: np.random.Generator) -> tuple:
    """Arguments of `n` lanes in all: arrays and scalars, broadcasting for `three`."""
    if name in ("one", "zerod", "mixed"):
        return (rng.random(n),)
    if name in ("two", "pair", "flag"):
        return (rng.random(n), 0.5)
    if name == "raises":
        x = rng.random(n)
        x[-1] = 3.0  # the last lane raises: every lane runs first
        return (x,)
    if name == "three":
        m = int(math.isqrt(n))
        while n % m:
            m -= 1
        return (rng.random((m, 1)), rng.random((1, n // m)), 0.25)
    if name == "four":
        return (rng.random(n), 3, rng.random(n), 1.5)
    x = rng.random(n).astype(object)  # "missing": None on a tenth of the lanes, a str option
    x[rng.random(n) < 0.1] = None
    return (x, "km")


def the_loop(f, args: tuple, bare: bool = False):
    """The loop's results as arrays (a tuple of them for tuples); its exception where a lane
    raises. `bare`: the list itself, as scripts/corpus.py times the loop (corpus/fallback.py)."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    columns = [np.broadcast_to(a, shape).ravel().tolist() for a in args]
    try:
        values = [f(*t) for t in zip(*columns)]
    except ValueError as exc:
        return exc
    if bare:
        return values
    if isinstance(values[0], tuple):
        return tuple(np.array(c).reshape(shape) for c in zip(*values))
    return np.array(values).reshape(shape)


def same(got, expected) -> bool:
    """The same arrays (dtype and values), or exceptions of one type and message."""
    if isinstance(expected, BaseException):
        return type(got) is type(expected) and str(got) == str(expected)
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and all(map(same, got, expected))
    return isinstance(got, np.ndarray) and got.dtype == expected.dtype and np.array_equal(got, expected)


def cases(sizes: list[int]) -> list[tuple[str, str, int, object, object, tuple]]:
    """(way, function, lanes, vectorized, scalar, arguments) for every case."""
    rng = np.random.default_rng(0)
    out = []
    for n in sizes:
        for name in SOURCES:
            f = refused(name)
            out.append(("refused", name, n, vectorize(f), f, arguments(name, n, rng)))
        for f in (one, four):
            out.append(("disabled", f.__name__, n, vectorize(f), f, arguments(f.__name__, n, rng)))
        out.append(("objects", "missing", n, vectorize(missing), missing, arguments("missing", n, rng)))
    return out


def timed(call, number: int, clock=time.perf_counter) -> float:
    start = clock()
    for _ in range(number):
        call()
    return (clock() - start) / number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000, 1_000_000])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--bare", action="store_true",
                        help="time the loop without its conversion to arrays (its list, as scripts/corpus.py does)")
    parser.add_argument("--cpu", action="store_true",
                        help="time with the process's CPU time (time.process_time), not the wall clock: on a machine "
                             "shared with other jobs, the time this process waited for a core is left out")
    parser.add_argument("--only", nargs="+", help="these functions only (one, zerod, pair, missing...)")
    parser.add_argument("--json", help="write the results here as JSON")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    all_cases = [c for c in cases(args.sizes) if not args.only or c[1] in args.only]
    calls = [(partial(_run, way, vf, a), partial(the_loop, f, a, args.bare)) for way, _, _, vf, f, a in all_cases]
    samples: dict[int, tuple[list[float], list[float]]] = {i: ([], []) for i in range(len(all_cases))}
    numbers = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)  # each function's one warning, at its first call
        for i, (ours, loop) in enumerate(calls):  # warm up, check, and size each sample (~20 ms)
            got, expected = ours(), the_loop(*loop.args[:2])  # arrays, --bare or not
            if not same(got, expected):
                way, name, n = all_cases[i][:3]
                raise SystemExit(f"{way} {name} at {n}: the path's result is not the loop's")
            numbers[i] = max(1, int(0.02 / max(timed(loop, 1), 1e-6)))
        for r in range(args.rounds):
            for i, pair in enumerate(calls):
                order = zip(samples[i], pair) if r % 2 == 0 else reversed(list(zip(samples[i], pair)))
                for into, call in order:
                    into.append(timed(call, numbers[i], time.process_time if args.cpu else time.perf_counter))
    load_after = os.getloadavg()
    rows = []
    for i, (way, name, n, *_rest) in enumerate(all_cases):
        ours, loop = samples[i]
        rows.append({"way": way, "function": name, "lanes": n, "path_s": statistics.median(ours),
                     "loop_s": statistics.median(loop), "ratio": statistics.median(ours) / statistics.median(loop),
                     "ratio_of_rounds": statistics.median(o / lp for o, lp in zip(ours, loop))})
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} "
          f"{load_after[1]:.2f} ({os.cpu_count()} CPUs); {args.rounds} interleaved rounds, medians"
          + ("; the loop's list, not arrays (--bare)" if args.bare else "") + ("; CPU time (--cpu)" if args.cpu else ""))
    print(f"{'way':9s} {'function':9s} {'lanes':>8s} {'path ms':>9s} {'loop ms':>9s} {'ratio':>6s}")
    for row in rows:
        print(f"{row['way']:9s} {row['function']:9s} {row['lanes']:8d} {row['path_s'] * 1e3:9.3f} "
              f"{row['loop_s'] * 1e3:9.3f} {row['ratio']:6.2f}")
    worst = max(rows, key=lambda row: row["ratio"])
    print(f"largest ratio {worst['ratio']:.2f} ({worst['way']} {worst['function']} at {worst['lanes']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"load_before": load_before, "load_after": load_after, "cpus": os.cpu_count(),
                       "rounds": args.rounds, "rows": rows}, out, indent=1)
    return 0


def _run(way: str, vf, args: tuple):
    if way != "disabled":
        try:
            return vf(*args)
        except ValueError as exc:  # "raises": its last lane's
            return exc
    os.environ["VECTORIZER_DISABLE"] = "1"
    try:
        return vf(*args)
    finally:
        del os.environ["VECTORIZER_DISABLE"]


if __name__ == "__main__":
    sys.exit(main())
