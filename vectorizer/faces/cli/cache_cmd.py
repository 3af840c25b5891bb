"""`vectorizer cache`: the decorator's disk cache (core/cache.py) and its size bound (core/cachesize.py).

    vectorizer cache            location, size, number of entries, the bound
    vectorizer cache --prune    remove least recently used entries now, down to the bound's target
    vectorizer cache --clear    remove every entry (also `vectorizer cache clean`)
    vectorizer cache dir        print its location, nothing else

Exit code 0; 1 when the cache directory is unsafe (the reason is printed, nothing is touched).
"""

from __future__ import annotations

import argparse
import os

from ...core import cachesize
from ...core.cache import default_cache, problem
from .cliio import Reporter, plural


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
    source = "VECTORIZER_CACHE_MAX_MB" if os.environ.get("VECTORIZER_CACHE_MAX_MB", "").strip() else "default"
    return f"none ({source})" if limit is None else f"{megabytes(limit)} ({source})"


def run(args: argparse.Namespace, report: Reporter) -> int:
    cache = default_cache()
    if args.action == "dir":
        print(cache.directory())
        return 0
    if args.clear or args.action == "clean":
        report.info(f"removed {entries(cache.clean())} from {cache.directory()}")
        return 0
    directory = cache.directory()
    for path in (cache.root, directory):
        try:
            reason = problem(os.lstat(path), path, want_dir=True)
        except FileNotFoundError:
            reason = None
        if reason:
            report.error(f"error: {reason}; vectorizer runs uncached and leaves it alone")
            return 1
    removed = 0
    if args.prune and (limit := cachesize.bound_bytes()) is not None and directory.exists():
        removed = cachesize.prune(directory, int(limit * cachesize.TARGET))[0]
    usage = cachesize.measure(directory)
    modules = sum(g.key.startswith("vz_") and any(p.name == f"{g.key}.py" for p in g.files) for g in usage.groups)
    files = sum(len(g.files) for g in usage.groups)
    if args.prune:
        report.info(f"pruned {entries(removed)}")
    print(f"location: {directory}")
    print(f"size:     {megabytes(usage.total)} in {plural(files, 'file')}")
    print(f"entries:  {modules} generated modules")
    print(f"bound:    {bound_text()}")
    return 0
