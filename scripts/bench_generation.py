#!/usr/bin/env python
"""Generation time of the NumPy route: `pipeline.lower` on every golden fixture and every function
of the first corpus, nothing else (no import, no disk cache, no run of the generated code).

    python scripts/bench_generation.py [--runs 7] [--no-corpus] [--json out.json] [--dump DIR]

Each function's `lower` call is timed `--runs` times in this process (CPU time of the process, so
that other processes on a shared machine count less) and its median kept; the report gives the
sum of the medians, and `tail`: the same less the analysis and the passes before `ops_to_numpy`
(what is left: the lowering, the passes after it and the module's emission, what issue 54's code
form changes).
The corpus needs its packages (`python scripts/corpus.py setup`, then run this with
.corpus-venv/bin/python); a corpus function's call is the one the engine makes, caught by calling
`vectorize(f, backend="numpy")` once on a few lanes with a fresh VECTORIZER_CACHE_DIR. Point
PYTHONPATH at another checkout to time that one (the before of a change); `--dump DIR` writes
each function's generated module (or its refusal) to DIR, to diff with the other checkout's.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import inspect
import json
import os
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = re.compile(r"# vectorize: (\w+)\((.*?)\)(?:\s+ints=(-?\d+)\.\.(-?\d+))?(\s+reassociate)?\s*$")
PARAM = re.compile(r"(\w+)\s*:\s*(float|int|bool)(\([\d,\s]*\))?(\[\])?")


def golden_calls() -> list[tuple[str, tuple, dict]]:
    """(case, lower's arguments, its keywords) for every fixture (tests/contract/test_golden.py's)."""
    from vectorizer.api import prepare
    from vectorizer.core.types import ArrayType, Val, type_of_dtype
    from vectorizer.errors import VectorizeError
    from vectorizer.options import Options
    from vectorizer.pipeline import Statics

    calls = []
    for case in sorted(d.name for d in (ROOT / "fixtures").iterdir() if (d / "input.py").exists()):
        path = ROOT / "fixtures" / case / "input.py"
        match = HEADER.match(path.read_text().splitlines()[0])
        assert match, path
        name, spec, _, _, reassociate = match.groups()
        params = {}
        for pname, ptype, shape, batched in PARAM.findall(spec):
            t = type_of_dtype({"float": "f", "int": "i", "bool": "b"}[ptype])
            dims = tuple(int(d) for d in shape.strip("()").split(",") if d.strip())
            params[pname] = Val(ArrayType(t, dims) if shape else t, bool(batched))
        module_spec = importlib.util.spec_from_file_location(f"fixture_{case}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        fn = getattr(module, name)
        defaults = {n: p.default for n, p in inspect.signature(fn).parameters.items() if n not in params}
        try:
            parsed, namespace = prepare(fn)
        except VectorizeError:
            continue  # refused before the passes: nothing to time
        calls.append((case, (parsed, namespace, params, Options(reassociate=bool(reassociate))),
                      {"statics": Statics(defaults, {})}))
    return calls


def corpus_calls() -> list[tuple[str, tuple, dict]]:
    """(id, lower's arguments, its keywords) as the engine calls it for each corpus function."""
    sys.path.insert(0, str(ROOT))
    import vectorizer.pipeline as pipeline
    from corpus.measure import Param, make_inputs
    from corpus.selection import load
    from vectorizer import vectorize

    caught: list[tuple[tuple, dict]] = []
    real = pipeline.lower

    def recording(*args, **kwargs):
        caught.append((args, kwargs))
        return real(*args, **kwargs)

    pipeline.lower = recording
    calls = []
    try:
        for entry in json.loads((ROOT / "corpus" / "functions.json").read_text()):
            caught.clear()
            try:
                f = load(entry)
                arrays = make_inputs([Param(*p) for p in entry["params"]], 8, seed=1, hostile_every=10**9)
                vectorize(f, backend="numpy", fallback="error")(*arrays)
            except Exception:  # noqa: BLE001, S112 - refused or raising: its lower call, if any, is still timed
                pass
            calls += [(entry["id"], args, kwargs) for args, kwargs in caught[:1]]
    finally:
        pipeline.lower = real
    return calls


def dump(calls: list[tuple[str, tuple, dict]], folder: Path) -> None:
    """Each call's generated module, or the first line of its refusal, in folder/<id>.py."""
    import vectorizer.pipeline as pipeline

    folder.mkdir(parents=True, exist_ok=True)
    for label, args, kwargs in calls:
        try:
            text = pipeline.lower(*args, **kwargs).source
        except Exception as exc:  # noqa: BLE001 - a refusal is an output too
            text = f"# {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}\n"
        (folder / f"{label}.py").write_text(text)


def timed(calls: list[tuple[str, tuple, dict]], runs: int) -> tuple[float, float]:
    """(sum of the median times of lower, the same for its tail), in seconds."""
    import vectorizer.pipeline as pipeline

    clock = time.process_time
    front = [0.0]
    names = [p.name for p in pipeline.NUMPY_PASSES]
    cut = names.index("ops_to_numpy")

    def clocked(run):
        def wrapper(*args, **kwargs):
            start = clock()
            try:
                return run(*args, **kwargs)
            finally:
                front[0] += clock() - start
        return wrapper

    saved, start_fn = list(pipeline.NUMPY_PASSES), pipeline.start
    for i in range(cut):
        pipeline.NUMPY_PASSES[i] = dataclasses.replace(saved[i], run=clocked(saved[i].run))
    pipeline.start = clocked(start_fn)  # the analysis before the passes
    total = tail = 0.0
    try:
        for _, args, kwargs in calls:
            whole, rest = [], []
            for _ in range(runs):
                front[0] = 0.0
                start = clock()
                try:
                    pipeline.lower(*args, **kwargs)
                except Exception:  # noqa: BLE001, S110 - a refusal costs time too
                    pass
                spent = clock() - start
                whole.append(spent)
                rest.append(spent - front[0])
            total += statistics.median(whole)
            tail += statistics.median(rest)
    finally:
        pipeline.NUMPY_PASSES[:] = saved
        pipeline.start = start_fn
    return total, tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args()
    os.environ["VECTORIZER_CACHE_DIR"] = tempfile.mkdtemp(prefix="vz-bench-generation-")
    warnings.simplefilter("ignore")
    import vectorizer

    sets = {"goldens": golden_calls()}
    if not args.no_corpus:
        sets["corpus"] = corpus_calls()
    out = {"vectorizer": os.path.dirname(vectorizer.__file__), "runs": args.runs}
    for label, calls in sets.items():
        if args.dump:
            dump(calls, args.dump / label)
        total, tail = timed(calls, args.runs)
        out[label] = {"functions": len(calls), "seconds": round(total, 4), "tail_seconds": round(tail, 4)}
        print(f"{label}: {len(calls)} functions, lower {total * 1e3:.1f} ms (sum of medians), "
              f"tail (ops_to_numpy on, and the module's emission) {tail * 1e3:.1f} ms")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
