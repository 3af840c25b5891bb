"""`vectorizer generate --jobs N`: generate modules in N worker processes, report as one process.

Generating a module (`standalone.generate_module`) is a pure function of the source text, the
selected names and the options, and it is where a run spends its time; everything else (reading,
the incremental records, comparing, writing, every message) stays in the main process, in file
order. So a parallel run is the sequential run with the generations computed ahead:

1. plan: the run's own per-file logic is replayed on a scratch `Run` (silent, nothing written)
   whose generation step only records what it would generate (fresh files, files that fail
   before generating, files with nothing selected ask for nothing);
2. the pool starts those generations, in file order;
3. the real run goes through the files as with one job; its generation step takes the worker's
   result (the module, or the `VectorizeError` it raised; warnings are re-issued then), falling
   back to generating in process for anything not planned.

Outputs, messages, their order and the exit code are those of `--jobs 1`. Workers are forked
where the platform has fork (they inherit the imported engine), else spawned.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import sys
import warnings
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ...options import Options
from .config import ConfigError
from .standalone import ModuleResult, generate_module


class _Planned(BaseException):
    """Raised by the planning run's generation step: not an Exception, so no handler takes it."""


class _Silent:
    """A reporter that shows nothing (the planning run)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _generate(text: str, filename: str, names: tuple[str, ...], fields: dict | None, shared: bool) -> tuple:
    """In a worker: (result or the exception raised, the warnings issued). `fields`: the
    Options' fields (an immutable Record does not pickle)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            options = None if fields is None else Options(**fields)
            outcome: ModuleResult | BaseException = generate_module(text, filename, names=names, options=options,
                                                                    shared=shared)
        except Exception as exc:  # noqa: BLE001 - re-raised in the main process, where the run reports it
            outcome = exc
    return outcome, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]


def workers(jobs: int) -> int:
    """`--jobs 0` means one per CPU; a negative count is a usage error."""
    if jobs < 0:
        raise ConfigError(f"--jobs must be 0 (one per CPU) or more, got {jobs}")
    return jobs if jobs > 0 else (os.cpu_count() or 1)


@contextlib.contextmanager
def parallel(run: Any, files: list[tuple[Path, str | None]], jobs: int) -> Iterator[None]:
    """Within the block, `run.generate` takes its results from `jobs` worker processes (with one
    job, or fewer than two files to generate, it stays as it is)."""
    wanted = _plan(run, files) if workers(jobs) > 1 else []
    if len(wanted) < 2:
        yield
        return
    method = "fork" if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(min(workers(jobs), len(wanted)), mp_context=multiprocessing.get_context(method))
    futures: dict[tuple, Future] = {}
    for request in wanted:
        text, filename, names, options, shared = request
        if request not in futures:
            futures[request] = pool.submit(_generate, text, filename, names,
                                           None if options is None else options.fields(), shared)
    direct = run.generate

    def generate(text: str, filename: str, *, names: tuple[str, ...] = (), options: Any = None,
                 shared: bool = False) -> ModuleResult:
        future = futures.pop((text, filename, tuple(names), options, shared), None)
        if future is None:  # not planned (a file changed under the run): generate here
            return direct(text, filename, names=names, options=options, shared=shared)
        outcome, issued = future.result()
        for message, category, file, line in issued:
            warnings.warn_explicit(message, category, file, line)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    run.generate = generate
    try:
        yield
    finally:
        run.generate = direct
        for future in futures.values():
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)


def _plan(run: Any, files: list[tuple[Path, str | None]]) -> list[tuple]:
    """The generations the run will ask for, in file order (a silent, non-writing replay)."""
    wanted: list[tuple] = []

    def record(text: str, filename: str, *, names: tuple[str, ...] = (), options: Any = None,
               shared: bool = False) -> ModuleResult:
        wanted.append((text, filename, tuple(names), options, shared))
        raise _Planned

    scratch = type(run).__new__(type(run))
    scratch.__dict__.update(run.__dict__)
    scratch.report, scratch.generate = _Silent(), record
    scratch.counts = type(run.counts)()
    scratch.runtime_dirs, scratch.runtimes_seen = set(), set()
    with contextlib.redirect_stdout(io.StringIO()):
        for path, skipped in files:
            if skipped:
                continue
            with contextlib.suppress(_Planned):
                scratch.source(path)
    return wanted
