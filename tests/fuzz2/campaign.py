"""A fuzz2 run: programs from consecutive seeds, each checked on every backend named, with
counts by outcome, refusal reason and failure class, seconds and programs/second per backend.

    python tests/fuzz2 --programs 2000 --backends numpy,numba --jobs 2 --seed 0
    python tests/fuzz2 --minutes 30

A failure whose kind an open regression file already shows is counted as known (the run goes on);
another is shrunk (reduce.py) and written to regressions/ (unless --no-write). With --jobs N the
seeds are interleaved over N processes at a time (seed + i + N*j), each slot with its own
vectorizer cache; a run of more than CHUNK programs runs them in worker processes of CHUNK
programs each (a process that compiled thousands of kernels would hold gigabytes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import regressions
from .check import check
from .inputs import batch
from .program import generate
from .reduce import reduce

REDUCE_SECONDS = {"numpy": 150.0, "numba": 420.0}
SUMMARIES: list[list[str]] = []  # the summary of each run in this process (pytest prints them at the end)


@dataclass
class Stats:
    programs: int = 0
    outcomes: Counter = field(default_factory=Counter)  # "backend status" -> n
    refusals: Counter = field(default_factory=Counter)  # "backend: reason" -> n
    kinds: Counter = field(default_factory=Counter)  # "backend: failure class" -> n
    known: Counter = field(default_factory=Counter)  # "backend: class (file)" -> n
    known_seeds: list = field(default_factory=list)
    failures: list = field(default_factory=list)  # new disagreements: dicts
    fell_back: int = 0
    seconds: Counter = field(default_factory=Counter)  # backend -> seconds spent checking

    def merge(self, other: dict) -> None:
        self.programs += other["programs"]
        for name in ("outcomes", "refusals", "kinds", "known", "seconds"):
            getattr(self, name).update(other[name])
        self.known_seeds += other["known_seeds"]
        self.failures += other["failures"]
        self.fell_back += other["fell_back"]

    def as_json(self) -> dict:
        return {k: dict(v) if isinstance(v, Counter) else v for k, v in self.__dict__.items()}

    def summary(self) -> list[str]:
        backends = sorted({k.split()[0] for k in self.outcomes})
        lines = [f"fuzz2: {self.programs} programs; new disagreements: {len(self.failures)}; "
                 f"known: {sum(self.known.values())}"]
        for b in backends:
            n = sum(v for k, v in self.outcomes.items() if k.startswith(b + " "))
            rate = n / self.seconds[b] if self.seconds[b] else 0.0
            lines.append(f"  {b}: {n} checked ({self.outcomes[b + ' pass']} agree, {self.outcomes[b + ' refused']} refused, "
                         f"{self.outcomes[b + ' fail']} disagree) in {self.seconds[b]:.0f}s: {rate:.2f} programs/s")
        if self.fell_back:
            lines.append(f"  Numba could not compile, NumPy ran it (a JitWarning): {self.fell_back}")
        for title, counter in (("refusals by reason", self.refusals), ("disagreements by class", self.kinds),
                               ("known disagreements", self.known)):
            if counter:
                lines.append(f"  {title}:")
                lines += [f"    {n:5d}  {what}" for what, n in counter.most_common(40)]
        lines += [f"  NEW: seed {f['seed']} {f['backend']}: {f['kind']} -> {f['file']}" for f in self.failures]
        return lines


def run(seeds, backends: tuple[str, ...], *, write: bool = True, deadline: float | None = None,  # noqa: ANN001
        progress=None) -> Stats:  # noqa: ANN001
    stats = Stats()
    for seed in seeds:
        if deadline is not None and time.monotonic() > deadline:
            break
        program = generate(seed)
        args = batch(random.Random(seed), program.params)
        stats.programs += 1
        for backend in backends:
            start = time.monotonic()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                outcome = check(program.source, args, backend)
            stats.seconds[backend] += time.monotonic() - start
            stats.outcomes[f"{backend} {outcome.status}"] += 1
            stats.fell_back += outcome.fell_back
            if outcome.status == "refused":
                stats.refusals[f"{backend}: {outcome.kind}"] += 1
            elif outcome.status == "fail":
                stats.kinds[f"{backend}: {outcome.kind}"] += 1
                _failure(stats, seed, program, args, backend, outcome, write)
        if progress and stats.programs % 25 == 0:
            progress(stats)
    return stats


def _failure(stats: Stats, seed: int, program, args: list, backend: str, outcome, write: bool) -> None:  # noqa: ANN001
    path = regressions.known(backend, outcome.kind, program.static_kinds)
    if path is not None:
        stats.known[f"{backend}: {outcome.kind} ({path.name})"] += 1
        stats.known_seeds.append((seed, backend, outcome.kind))
        return
    entry = {"seed": seed, "backend": backend, "kind": outcome.kind, "file": None, "detail": outcome.detail[:2000]}
    if write:
        source, small = reduce(program.source, args, backend, outcome.kind, REDUCE_SECONDS[backend])
        again = check(source, small, backend)
        detail = again.detail if again.status == "fail" else outcome.detail
        entry["file"] = str(regressions.write(source, small, backend, outcome.kind, detail, f"seed {seed}"))
    stats.failures.append(entry)


# -- the command line ---------------------------------------------------------------------------
CHUNK = 100  # programs per worker process: compiled kernels are never freed, so a process is not kept long


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/fuzz2", description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=0, help="programs in all (0: until --minutes)")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop starting programs after this long")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--backends", default="numpy,numba")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("VECTORIZER_FUZZ2_JOBS", 1)))
    parser.add_argument("--step", type=int, default=1, help=argparse.SUPPRESS)  # a worker's seed stride
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # run here, in this process
    parser.add_argument("--json", help="write the counts here as JSON")
    parser.add_argument("--no-write", action="store_true", help="write no regression file")
    opts = parser.parse_args(argv)
    if not opts.programs and not opts.minutes:
        parser.error("give --programs N or --minutes M")
    start = time.monotonic()
    if opts.worker or opts.jobs == 1 and 0 < opts.programs <= CHUNK:
        seeds = range(opts.seed, opts.seed + (opts.programs or 10**9) * opts.step, opts.step)
        deadline = start + opts.minutes * 60 if opts.minutes else None
        stats = run(seeds, tuple(b for b in opts.backends.split(",") if b), write=not opts.no_write, deadline=deadline,
                    progress=lambda s: print(f"[{time.monotonic() - start:6.0f}s] {s.summary()[0]}", flush=True))
    else:
        stats = _workers(opts, start)
    if opts.json:
        Path(opts.json).write_text(json.dumps(stats.as_json(), indent=1))
    print("\n".join(stats.summary()), flush=True)
    return 1 if stats.failures else 0


def _workers(opts: argparse.Namespace, start: float) -> Stats:
    """--jobs slots at once; slot i runs seeds seed + i + jobs*k in worker processes of CHUNK
    programs each, one after another, with a vectorizer cache of its own."""
    stats = Stats()
    per = [opts.programs // opts.jobs + (i < opts.programs % opts.jobs) if opts.programs else 10**9
           for i in range(opts.jobs)]
    root = Path(tempfile.mkdtemp(prefix="fuzz2-run-"))
    next_chunk = [0] * opts.jobs
    running: dict[int, tuple] = {}
    while True:
        for slot in range(opts.jobs):
            left = opts.minutes * 60 - (time.monotonic() - start) if opts.minutes else 1.0
            first = next_chunk[slot] * CHUNK
            if slot in running or first >= per[slot] or left <= 0:
                continue
            out = root / f"slot{slot}-chunk{next_chunk[slot]}.json"
            cmd = [sys.executable, str(Path(__file__).parent), "--worker", "--backends", opts.backends,
                   "--seed", str(opts.seed + slot + opts.jobs * first), "--step", str(opts.jobs),
                   "--programs", str(min(CHUNK, per[slot] - first)), "--json", str(out)]
            cmd += ["--minutes", f"{left / 60:.3f}"] * bool(opts.minutes) + ["--no-write"] * opts.no_write
            env = dict(os.environ, VECTORIZER_CACHE_DIR=str(root / f"cache{slot}"), VECTORIZER_FUZZ2_JOBS="1")
            running[slot] = (subprocess.Popen(cmd, env=env), out)  # noqa: S603 - our own interpreter and script
            next_chunk[slot] += 1
        if not running:
            return stats
        time.sleep(1.0)
        for slot, (proc, out) in list(running.items()):
            if proc.poll() is None:
                continue
            del running[slot]
            if out.exists():
                stats.merge(json.loads(out.read_text()))
                print(f"[{time.monotonic() - start:6.0f}s] all workers: {stats.summary()[0]}", flush=True)
            else:
                stats.failures.append({"seed": None, "backend": "-", "kind": f"worker exited {proc.returncode}",
                                       "file": None, "detail": ""})
