"""The real-code corpus (issue 30): vectorize real functions from public packages and classify them.

    python scripts/corpus.py setup      # .corpus-venv/: the pinned packages (corpus/requirements.txt),
                                        # Numba, and this checkout's vectorizer through a .pth file
    python scripts/corpus.py select     # corpus/functions.json: the functions (corpus/selection.py)
    python scripts/corpus.py run        # measure every function on both backends; writes
                                        # corpus/results/results.json and results.md
    python scripts/corpus.py run --only fluids.core.Reynolds --backend numpy --lanes 20000
    python scripts/corpus.py --corpus second setup|select|run [--workers 2]   # the second corpus (issue 51):
                                        # corpus/second/ (its own rule, requirements, results and
                                        # excluded.md), installed into .corpus-venv-second

Each UNSUPPORTED function's fallback ratio is measured too: `vectorize(f)` with the default
fallback="warn" against a list comprehension over `.tolist()` of the broadcast arguments.

`select` and `run` re-run themselves inside .corpus-venv. Each function runs in a worker process
with a per-function timeout; a worker that hangs or dies is replaced and the function is recorded
as CRASH. Not part of the test suite (tests/scripts/test_corpus_tool.py tests the classifier).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# corpus name -> (its folder, its venv, its selection module)
CORPORA = {"first": (ROOT / "corpus", ROOT / ".corpus-venv", "corpus.selection"),
           "second": (ROOT / "corpus" / "second", ROOT / ".corpus-venv-second", "corpus.second.selection")}
VENV = VPY = FUNCTIONS = RESULTS = REQUIREMENTS = EXCLUDED = Path()
SELECTION = ""


def use(name: str) -> None:
    """Point the paths at one corpus (scripts/corpus.py --corpus NAME)."""
    global VENV, VPY, FUNCTIONS, RESULTS, REQUIREMENTS, EXCLUDED, SELECTION
    folder, VENV, SELECTION = CORPORA[name]
    VPY = VENV / "bin" / "python"
    FUNCTIONS, RESULTS, REQUIREMENTS = folder / "functions.json", folder / "results", folder / "requirements.txt"
    EXCLUDED = folder / "excluded.md"


def setup(_args: argparse.Namespace) -> None:
    if not VPY.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(VPY), "-m", "pip", "install", "-q", "-r", str(REQUIREMENTS)], check=True)
    site = subprocess.run([str(VPY), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "vectorizer-checkout.pth").write_text(f"{ROOT}\n")  # this checkout, in this venv only
    (VENV / ".gitignore").write_text("*\n")  # git never sees the venv (as Python 3.13's venv does)
    print(f"ready: {VENV}")


def _in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def _reexec() -> None:
    if not _in_venv():
        if not VPY.exists():
            sys.exit("no .corpus-venv: run `python scripts/corpus.py setup` first")
        os.execv(str(VPY), [str(VPY), *sys.argv])


def _quiet() -> None:
    import logging
    import warnings

    logging.disable(logging.WARNING)  # pymap3d logs on import
    warnings.simplefilter("ignore")


def select(_args: argparse.Namespace) -> None:
    _reexec()
    sys.path.insert(0, str(ROOT))
    _quiet()
    import importlib

    selection = importlib.import_module(SELECTION)
    if hasattr(selection, "select_with_exclusions"):
        from corpus.report import excluded_markdown

        chosen, excluded = selection.select_with_exclusions()
        EXCLUDED.write_text(excluded_markdown(chosen, excluded, selection.__doc__))
        print(f"{len(excluded)} excluded -> {EXCLUDED}")
    else:
        chosen = selection.select()
    FUNCTIONS.write_text(json.dumps(chosen, indent=1) + "\n")
    print(f"{len(chosen)} functions, {len({c['package'] for c in chosen})} packages -> {FUNCTIONS}")


class Timeout(BaseException):  # not an Exception: the classifier's handlers must not catch it
    pass


def _alarm(_signum, _frame):
    raise Timeout


def measure_one(entry: dict, backends: list[str], lanes: int, timeout: int, fallback_lanes: int,
                loop_budget: float) -> dict:
    """The record of one function: its oracle, each backend's verdict, and where a backend refuses
    it, the fallback ratio on that backend (on a tenth of the lanes, at most `fallback_lanes`).
    A function whose loop would take more than `loop_budget` seconds on `lanes` lanes (timed on
    1000) is measured on fewer lanes, a multiple of 1000, as its record says."""
    import importlib

    import numpy as np

    from corpus.fallback import fallback_ratio
    from corpus.measure import (
        Param,
        Verdict,
        classify,
        first_line,
        make_inputs,
        run_oracle,
    )

    load = importlib.import_module(SELECTION).load

    record = {k: entry[k] for k in ("id", "package", "field", "module", "qualname", "params", "options") if k in entry}
    signal.signal(signal.SIGALRM, _alarm)
    try:
        signal.alarm(timeout)
        f = load(entry)
        params, seed = [Param(*p) for p in entry["params"]], zlib.crc32(entry["id"].encode())
        per_lane = run_oracle(f, make_inputs(params, min(lanes, 1000), seed=seed), {}).seconds / min(lanes, 1000)
        if per_lane * lanes > loop_budget:
            lanes = max(1000, int(loop_budget / per_lane) // 1000 * 1000)
        arrays = make_inputs(params, lanes, seed=seed)
        oracle = run_oracle(f, arrays, {})
        clean = np.flatnonzero(oracle.clean())
        lists = [a[clean].tolist() for a in arrays]
        start = time.perf_counter()
        for lane in zip(*lists):
            f(*lane)
        loop = time.perf_counter() - start
        signal.alarm(0)
    except Timeout:
        record["error"] = f"oracle took longer than {timeout} s"
        return record
    bad = oracle.first_bad()
    record.update(lanes=lanes, clean_lanes=len(clean), raising_lanes=sum(e is not None for e in oracle.raised),
                  refused_lanes=sum(oracle.refused), loop_seconds=loop,
                  first_bad=None if bad is None else [bad[0], type(bad[1]).__name__ if bad[1] else "no real result"],
                  backends={})
    for backend in backends:
        signal.alarm(timeout)
        try:
            verdict = classify(f, arrays, oracle, backend, loop_seconds=loop)
        except Timeout:
            verdict = Verdict("CRASH", f"timeout: more than {timeout} s")
        except BaseException as exc:  # noqa: BLE001 - the classifier's own failure is a CRASH too
            verdict = Verdict("CRASH", f"classifier: {first_line(exc)}")
        finally:
            signal.alarm(0)
        record["backends"][backend] = verdict.__dict__
        if verdict.cls == "UNSUPPORTED" and len(clean):
            signal.alarm(timeout)
            try:
                sample = [a[clean[:min(fallback_lanes, max(100, lanes // 10))]] for a in arrays]
                record["backends"][backend]["fallback"] = fallback_ratio(f, sample, backend)
            except Timeout:
                record["backends"][backend]["fallback"] = {"error": f"timeout: more than {timeout} s"}
            except Exception as exc:  # noqa: BLE001 - the fallback raising is recorded, not fatal
                record["backends"][backend]["fallback"] = {"error": first_line(exc)}
            finally:
                signal.alarm(0)
    return record


def work(args: argparse.Namespace) -> None:
    """Worker: measure the listed ids, appending one JSON line each to args.out."""
    sys.path.insert(0, str(ROOT))
    _quiet()
    entries = {e["id"]: e for e in json.loads(FUNCTIONS.read_text())}
    with open(args.out, "a") as out:
        for fid in args.ids:
            out.write(json.dumps(measure_one(entries[fid], args.backend, args.lanes, args.timeout,
                                             args.fallback_lanes, args.loop_budget)) + "\n")
            out.flush()


def _meta(backends: list[str], lanes: int, threads: int | None, corpus: str, fallback_lanes: int,
          loop_budget: float) -> dict:
    from importlib.metadata import version

    entries = json.loads(FUNCTIONS.read_text())
    versions = {"stdlib": f"Python {platform.python_version()}"}
    for pkg in {e["package"] for e in entries} - {"stdlib"}:
        versions[pkg] = version(pkg)
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h", "--", "vectorizer"],  # the code measured
                            capture_output=True, text=True).stdout.strip()
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), platform.processor())
    import numba
    import numpy

    return {"backends": backends, "lanes": lanes, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": commit, "versions": versions, "corpus": corpus, "fallback_lanes": fallback_lanes,
            "loop_budget": loop_budget,
            "machine": f"{cpu}, {os.cpu_count()} cores (shared with other jobs while measured), Linux; "
                       f"{threads or '?'} thread(s) a backend (VECTORIZER_THREADS, NUMBA_NUM_THREADS); "
                       f"Python {platform.python_version()}, NumPy {numpy.__version__}, Numba {numba.__version__}"}


def _drive(todo: list[str], jsonl: Path, total: int, args: argparse.Namespace, env: dict, entries: list[dict]) -> None:
    """Measure `todo` into `jsonl` with one worker process at a time; a hang or death costs the
    function it was on (recorded as CRASH) and a new worker takes the rest."""
    jsonl.write_text("")
    while todo:
        cmd = [str(VPY), __file__, "--corpus", args.corpus, "_work", "--out", str(jsonl), "--lanes", str(args.lanes),
               "--timeout", str(args.timeout), "--fallback-lanes", str(args.fallback_lanes),
               "--loop-budget", str(args.loop_budget),
               *sum([["--backend", b] for b in args.backend], []), "--", *todo]
        proc = subprocess.Popen(cmd, env=env)
        seen, last = len(jsonl.read_text().splitlines()), time.monotonic()
        while proc.poll() is None:
            time.sleep(1)
            n = len(jsonl.read_text().splitlines())
            if n != seen:
                seen, last = n, time.monotonic()
                print(f"[{jsonl.name}: {n}; {total} in all]", flush=True)
            elif time.monotonic() - last > args.timeout * (2 + 2 * len(args.backend)):  # oracle, backends, fallbacks
                proc.kill()
                proc.wait()
        finished = {json.loads(line)["id"] for line in jsonl.read_text().splitlines()}
        todo = [i for i in todo if i not in finished]
        if todo and proc.returncode != 0:
            stuck = todo.pop(0)
            with open(jsonl, "a") as out:
                verdict = {"cls": "CRASH", "detail": f"worker died or hung (exit {proc.returncode})"}
                e = next(e for e in entries if e["id"] == stuck)
                out.write(json.dumps({**{k: e[k] for k in ("id", "package", "module", "qualname", "params", "options")},
                                      "backends": {b: verdict for b in args.backend}}) + "\n")


def run(args: argparse.Namespace) -> None:
    _reexec()
    sys.path.insert(0, str(ROOT))
    entries = json.loads(FUNCTIONS.read_text())
    ids = [e["id"] for e in entries if not args.only or e["id"] in args.only or e["package"] in args.only]
    RESULTS.mkdir(parents=True, exist_ok=True)
    jsonl = Path(args.jsonl or VENV / "results.jsonl")
    leftovers = sorted(jsonl.parent.glob(f"{jsonl.stem}.part*.jsonl"))  # of a run that was stopped
    if args.resume and leftovers:
        with open(jsonl, "a") as out:
            for part in leftovers:
                out.write(part.read_text())
    for part in leftovers:
        part.unlink()
    done = {json.loads(line)["id"] for line in jsonl.read_text().splitlines()} if args.resume and jsonl.exists() else set()
    if not args.resume:
        jsonl.write_text("")
    todo = [i for i in ids if i not in done]
    # One thread a backend by default, as the loop has: on a shared, oversubscribed machine Numba's
    # parallel kernels measured 40 ms where one thread takes 0.1 ms (fluids.core.Mach, 1e5 lanes).
    threads = str(args.threads)
    env = dict(os.environ, VECTORIZER_CACHE_DIR=tempfile.mkdtemp(prefix="corpus-cache-"),
               VECTORIZER_THREADS=threads, NUMBA_NUM_THREADS=threads)
    # --workers N: N drivers, each with its own worker process and part file, merged at the end
    parts = [jsonl.with_name(f"{jsonl.stem}.part{k}.jsonl") for k in range(args.workers)]
    drivers = [threading.Thread(target=_drive, args=(todo[k::args.workers], part, len(ids), args, env, entries))
               for k, part in enumerate(parts)]
    for d in drivers:
        d.start()
    for d in drivers:
        d.join()
    with open(jsonl, "a") as out:
        for part in parts:
            out.write(part.read_text())
            part.unlink()
    report(args)


def report(args: argparse.Namespace) -> None:
    _reexec()
    sys.path.insert(0, str(ROOT))
    from corpus.report import clean, markdown, summarize

    jsonl = Path(args.jsonl or VENV / "results.jsonl")
    order = {e["id"]: k for k, e in enumerate(json.loads(FUNCTIONS.read_text()))}
    records = sorted((r for r in map(json.loads, jsonl.read_text().splitlines()) if r["id"] in order),  # the corpus's only
                     key=lambda r: order[r["id"]])
    options = {e["id"]: e["options"] for e in json.loads(FUNCTIONS.read_text())}
    for r in records:  # the entry's options as selected now (no object addresses); no machine paths
        r["options"] = options[r["id"]]
        for v in r.get("backends", {}).values():
            v["detail"] = clean(v["detail"])
            v["notes"] = [clean(n) for n in v.get("notes", [])]
    meta = _meta(args.backend, args.lanes, getattr(args, "threads", None), args.corpus, args.fallback_lanes,
                 args.loop_budget)
    if args.note:
        meta["note"] = args.note
    meta["machine"] += f"; {args.workers} function(s) measured at once (--workers)"
    summary = {b: summarize(records, b).get("all") for b in args.backend}
    (RESULTS / "results.json").write_text(json.dumps({"meta": meta, "summary": summary, "functions": records}, indent=1) + "\n")
    (RESULTS / "results.md").write_text(markdown(records, meta))
    print((RESULTS / "results.md").read_text().split("## Per package")[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="first")
    sub = parser.add_subparsers(dest="cmd", required=True)
    for name, fn in (("setup", setup), ("select", select)):
        sub.add_parser(name).add_argument("--corpus", choices=sorted(CORPORA), default=argparse.SUPPRESS)
        sub.choices[name].set_defaults(fn=fn)
    for name, fn in (("run", run), ("report", report), ("_work", work)):
        p = sub.add_parser(name)
        p.add_argument("--corpus", choices=sorted(CORPORA), default=argparse.SUPPRESS, help="which corpus (default first)")
        p.add_argument("--fallback-lanes", type=int, default=10_000,
                       help="at most this many lanes (a tenth of the function's, the first non-raising ones) "
                            "on which an UNSUPPORTED function's fallback ratio is timed")
        p.add_argument("--note", help="a sentence for the results' header (what this run is)")
        p.add_argument("--workers", type=int, default=1, help="functions measured at once (one process each)")
        p.add_argument("--loop-budget", type=float, default=10.0,
                       help="seconds the oracle's loop may take; a slower function is measured on fewer lanes")
        p.add_argument("--backend", action="append", choices=["numpy", "numba"])
        p.add_argument("--lanes", type=int, default=100_000)
        p.add_argument("--timeout", type=int, default=180, help="seconds a function (oracle, or one backend)")
        p.add_argument("--threads", type=int, default=1, help="VECTORIZER_THREADS and NUMBA_NUM_THREADS (run)")
        p.add_argument("--jsonl", help="the raw results, one line a function (default results.jsonl in the corpus's venv)")
        p.add_argument("--results", help="the folder for results.json and results.md (default the corpus's results/)")
        if name == "run":
            p.add_argument("--only", nargs="*", help="function ids or package names")
            p.add_argument("--resume", action="store_true", help="keep the results already in the jsonl")
        if name == "_work":
            p.add_argument("--out", required=True)
            p.add_argument("ids", nargs="*")
        p.set_defaults(fn=fn)
    args = parser.parse_args()
    use(args.corpus)
    if getattr(args, "results", None):
        global RESULTS
        RESULTS = Path(args.results).resolve()
    if getattr(args, "backend", "x") is None:
        args.backend = ["numpy", "numba"]
    args.fn(args)


if __name__ == "__main__":
    main()
