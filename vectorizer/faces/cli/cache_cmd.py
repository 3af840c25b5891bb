"""`vectorizer cache`: the decorator's disk cache (core/cache.py) and its size bound (core/cachesize.py).

    vectorizer cache            location, size, number of entries, the bound
    vectorizer cache --prune    remove least recently used entries now, down to the bound's target
    vectorizer cache --clear    remove every entry (also `vectorizer cache clean`)
    vectorizer cache dir        print its location, nothing else

Only files in vectorizer's own formats, below a directory vectorizer marked, are counted and
removed (core/cacheformat.py, core/cacheclear.py); `--clear` says what it removed and what it left.
A bad VECTORIZER_CACHE_MAX_MB is named in a warning; the default bound applies.
Exit code 0; 1 when the cache directory is unsafe (the reason is printed, nothing is touched).
"""

from __future__ import annotations

import argparse
import os

from ...core import cacheformat, cachesize
from ...core.cache import default_cache, problem
from ...core.cacheclear import Cleared, clear
from .cliio import Reporter, plural

SHOWN = 10  # paths listed of what --clear left


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    cache = sub.add_parser("cache", parents=[common], help="the @vectorize disk cache: size, bound, --prune, --clear",
                           description="Show the disk cache of @vectorize (location, size, entries, bound).")
    cache.add_argument("action", nargs="?", choices=("dir", "clean", "info"), default="info",
                       help="dir: print its location; clean: same as --clear; info (default): show it")
    what = cache.add_mutually_exclusive_group()
    what.add_argument("--clear", action="store_true", help="remove every entry and record")
    what.add_argument("--prune", action="store_true",
                      help=f"remove least recently used entries now, down to {cachesize.TARGET:.0%} of the bound")


def entries(count: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'}"


def megabytes(size: int) -> str:
    mb = size / 1e6
    return f"{mb:,.1f} MB" if mb >= 10 else f"{mb:.2f} MB"


def bound_text() -> str:
    limit = cachesize.bound_bytes()
    given = os.environ.get("VECTORIZER_CACHE_MAX_MB", "").strip() and cachesize.bound_problem() is None
    source = "VECTORIZER_CACHE_MAX_MB" if given else "default"
    return f"none ({source})" if limit is None else f"{megabytes(limit)} ({source})"


def cleared_text(cleared: Cleared, root: os.PathLike) -> list[str]:
    """What `clear` did, truthfully: what went, what was left and why."""
    lines = [f"removed {entries(cleared.entries)} ({plural(cleared.files, 'file')}, {megabytes(cleared.size)}) "
             f"from {root}"]
    if cleared.kept:
        shown = ", ".join(cleared.kept[:SHOWN]) + (f", and {len(cleared.kept) - SHOWN} more" if len(cleared.kept) > SHOWN else "")
        lines.append(f"left {plural(len(cleared.kept), 'item')} vectorizer did not write or may not remove: {shown}")
    return lines


def run(args: argparse.Namespace, report: Reporter) -> int:
    cache = default_cache()
    if args.action == "dir":
        print(cache.directory())
        return 0
    if (bad_bound := cachesize.bound_problem()) is not None:
        report.warning(f"warning: {bad_bound}")
    if args.clear or args.action == "clean":
        cleared = clear(cache.root)
        if cleared.refused:
            report.error(f"error: {cleared.refused}; vectorizer leaves it alone (nothing removed)")
            return 1
        for line in cleared_text(cleared, cache.root):
            report.info(line)
        return 0
    directory = cache.directory()
    for path in (cache.root, directory):
        try:
            reason = problem(os.lstat(path), path, want_dir=True)
        except FileNotFoundError:
            reason = None
        except OSError as exc:  # a part of the path is a file (Not a directory), no permission...
            reason = f"cache directory {path} cannot be used: {exc.strerror or exc}"
        if reason:
            report.error(f"error: {reason}; vectorizer runs uncached and leaves it alone")
            return 1
    removed = 0
    if args.prune and (limit := cachesize.bound_bytes()) is not None and directory.exists():
        if not (cacheformat.marked(directory) or cacheformat.marked(cache.root)):
            report.warning(f"warning: {directory} is not marked as vectorizer's (no {cacheformat.TAG_NAME} of "
                           "vectorizer's in it or its root): nothing pruned")
        removed = cachesize.prune(directory, int(limit * cachesize.TARGET))[0]
    usage = cachesize.measure(directory)
    modules = sum(g.key.startswith("vz_") and any(p.name == f"{g.key}.py" for p in g.files) for g in usage.groups)
    files = sum(len(g.files) for g in usage.groups)
    if args.prune:
        report.info(f"pruned {entries(removed)}")
    print(f"location: {directory}")
    print(f"size:     {megabytes(usage.total)} in {plural(files, 'file')}")
    print(f"entries:  {modules} generated modules")
    if usage.others:
        print(f"other:    {plural(len(usage.others), 'file')} vectorizer did not write (never counted or removed)")
    print(f"bound:    {bound_text()}")
    return 0
