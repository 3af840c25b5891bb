"""The shared runtime file of `vectorizer generate`: `_vectorizer_runtime.py`, written once in
each directory that receives a generated module (standalone.runtime_module has its text).

It is an output like the modules: atomic writes, the checksum guard against hand edits, `--check`
and `--diff` report it missing or stale; it is counted on its own in the summary (it is no
source's output), and reported orphaned when no generated module is left beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from .cliio import RUNTIME_FILE, display_path, is_generated, plural
from .incremental import Records

__all__ = ["RUNTIME_FILE", "orphan_message", "orphaned", "summary", "update"]


def update(directories: Iterable[Path], write: Callable[[Path, str, str, str], bool], records: Records) -> None:
    """Bring the runtime file of each directory up to date through `write(output, text, source,
    counter prefix)` (Run._update: it counts, checks, diffs and writes). A runtime the incremental
    records show unchanged since it was written is left alone without building its text (~0.2 s)."""
    for folder in sorted(set(directories)):
        path = folder / RUNTIME_FILE
        if records.fresh(path, "", "runtime", path):
            continue
        from .standalone import (
            runtime_module,  # the compiler: only when the runtime must be built
        )

        text = runtime_module()
        if write(path, text, "the modules beside it", "runtime "):
            records.remember(path, "", "runtime", path, text)


def orphaned(path: Path) -> bool:
    """Whether `path`, a generated runtime file, has no generated module beside it."""
    return not any(
        is_generated(p) for p in path.parent.glob("*.py") if p.name != RUNTIME_FILE)


def summary(changed: int, would: str) -> str:
    """The summary's line for runtime files, "" when none changed."""
    if not changed:
        return ""
    return f"{plural(changed, 'runtime file')} ({RUNTIME_FILE}) {would}generated."


def orphan_message(path: Path) -> str:
    return (f"error: {display_path(path)} is orphaned: no generated module beside it imports it; "
            "vectorizer never deletes files: delete it")
