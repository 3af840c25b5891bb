"""A size bound on the user cache, kept by pruning the least recently used entries.

Bound. ``VECTORIZER_CACHE_MAX_MB`` (megabytes of 10**6 bytes, default 256; ``0`` means no bound)
caps the bytes of the versioned directory in use, ``v<SCHEMA>/``: entries, their compiled code,
Numba's files in ``__pycache__/`` and the CLI's incremental records, the files in vectorizer's own
formats (cacheformat.py); anything else there is never counted or removed (`measure` counts it
apart). A value that is not a finite number >= 0 is named in one CacheWarning and the default
applies. Other layout versions are never read; `vectorizer cache --clear` removes them.

Use. An entry's last use is the access time of its ``vz_<key>.py``. A hit sets it explicitly
(`touch`, at most once a minute per entry), so the order holds on ``noatime`` and ``relatime``
mounts; the modification time is left alone.

Cheap upkeep. Reads never scan. `CodeCache._write` adds the bytes of each file it writes (an
entry, its compiled code) to a recorded total in ``v<SCHEMA>/.usage``; when the total passes the bound, or after
`RESCAN_WRITES` writes (Numba writes files the store never sees), the directory is measured again
and, above the bound, entries are removed, least recently used first, down to `TARGET` of the
bound. An entry goes with all its files (``vz_<key>.*`` here and in ``__pycache__/``). The entry
just written and entries used in the last `RECENT` seconds (another process may be loading them)
are kept. The safety rules of docs/security.md hold: nothing is done in a directory that fails
`cache.problem`, symlinks are unlinked, never followed, and files of another owner are left.
A lost race between processes costs a miss (the entry is generated again), never a wrong read.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

from . import cacheformat

DEFAULT_MB = 256
TARGET = 0.8  # prune down to this fraction of the bound: a full cache is not pruned at every write
RESCAN_WRITES = 32
RECENT = 120.0  # seconds: an entry used this recently is never pruned (another process may be loading it)
TOUCH_EVERY = 60.0  # seconds: a hit re-stamps an entry's access time at most this often (< RECENT)
USAGE = ".usage"
_POSIX = hasattr(os, "getuid")


def bound_problem() -> str | None:
    """Why ``VECTORIZER_CACHE_MAX_MB`` is not a bound (a finite number of megabytes >= 0), or None."""
    text = os.environ.get("VECTORIZER_CACHE_MAX_MB", "").strip()
    try:
        mb = float(text) if text else DEFAULT_MB
    except ValueError:
        mb = math.nan
    if math.isfinite(mb) and mb >= 0:
        return None
    return (f"VECTORIZER_CACHE_MAX_MB={text!r} is not a number of megabytes >= 0 (0 for no bound); "
            f"the cache is bounded to the default, {DEFAULT_MB} MB")


def bound_bytes() -> int | None:
    """The bound from ``VECTORIZER_CACHE_MAX_MB`` (None: no bound); a bad value (not a finite
    number >= 0: "lots", nan, inf, 1e400, -3) gives the default, with one CacheWarning."""
    problem = bound_problem()
    if problem is not None:
        from .cache import warn_once  # cache.py imports this module

        warn_once("bound", problem)
        return DEFAULT_MB * 1_000_000
    text = os.environ.get("VECTORIZER_CACHE_MAX_MB", "").strip()
    mb = float(text) if text else DEFAULT_MB
    return None if mb == 0 else int(mb * 1_000_000)


def touch(path: Path, now: float | None = None) -> None:
    """Mark the entry at `path` used now (its access time), unless it was marked in the last hour.
    A read-only cache cannot be marked: that costs nothing but the order."""
    now = time.time() if now is None else now
    with contextlib.suppress(OSError):
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and now - st.st_atime > TOUCH_EVERY:
            os.utime(path, ns=(int(now * 1e9), st.st_mtime_ns), follow_symlinks=False)


class Group(NamedTuple):
    """One entry's files (or one other file: a record, a stray temp file), its bytes, last use."""

    key: str
    files: list[Path]
    size: int
    used: float


class Usage(NamedTuple):
    total: int
    groups: list[Group]
    others: list[Path] = []  # files there that vectorizer did not write: never counted or removed


def key_of(name: str) -> str:
    """The entry a file belongs to: ``vz_<key>`` for every file of an entry, else the name."""
    return name[:67] if name.startswith("vz_") and len(name) > 67 else name


def measure(directory: Path) -> Usage:
    """The bytes of vectorizer's files under `directory` (no symlink followed) grouped by entry,
    least recently used first; the other files apart."""
    groups: dict[str, list] = {}
    others: list[Path] = []
    for folder in (directory, directory / "__pycache__", directory / "cli"):
        with contextlib.suppress(OSError), os.scandir(folder) as found:
            for item in found:
                if folder == directory and item.name in cacheformat.FOLDERS and item.is_dir(follow_symlinks=False):
                    continue
                what = cacheformat.kind(folder.name if folder != directory else "", item.name)
                if what is None or not item.is_file(follow_symlinks=False):
                    others.append(Path(item.path))
                    continue
                if what in ("usage", "tag"):
                    continue
                with contextlib.suppress(OSError):
                    st = item.stat(follow_symlinks=False)
                    key = key_of(item.name) if folder != directory / "cli" else f"cli/{item.name}"
                    group = groups.setdefault(key, [[], 0, 0.0])
                    group[0].append(Path(item.path))
                    group[1] += st.st_size
                    if folder == directory or key.startswith("cli/"):  # the entry's own file dates it
                        group[2] = max(group[2], st.st_atime, st.st_mtime)
    listed = [Group(k, files, size, used) for k, (files, size, used) in groups.items()]
    listed.sort(key=lambda g: (g.used, g.key))
    return Usage(sum(g.size for g in listed), listed, sorted(others))


def prune(directory: Path, limit: int, keep: str = "", now: float | None = None) -> tuple[int, int]:
    """Remove least recently used entries until `directory` holds at most `limit` bytes;
    (entries removed, bytes left). `keep`: an entry key (``vz_<key>``) never removed. Nothing
    is removed unless `directory` or its root is marked as vectorizer's (cacheformat.py)."""
    now = time.time() if now is None else now
    usage = measure(directory)
    total, removed = usage.total, 0
    if not (cacheformat.marked(directory) or cacheformat.marked(directory.parent)):
        return 0, total
    for group in usage.groups:
        if total <= limit:
            break
        if group.key == keep or now - group.used < RECENT or group.key.startswith("cli/"):
            continue  # in use, or the CLI's records (pruned by their own rule, incremental.py)
        freed, entry = _remove(group.files)
        total -= freed
        removed += entry
    return removed, total


def _remove(files: list[Path]) -> tuple[int, bool]:
    """Unlink what we own of `files` that is in vectorizer's format (an entry by its header), the
    entry's source last (it dates the group); (bytes freed, whether an entry's source went)."""
    freed, entry = 0, False
    for path in sorted(files, key=lambda p: p.suffix == ".py"):
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            folder = path.parent.name if path.parent.name in cacheformat.FOLDERS[1:] else ""
            if _POSIX and st.st_uid != os.getuid() or cacheformat.verified_kind(folder, path) is None:
                continue
            os.unlink(path)  # never follows a symlink
            freed += st.st_size
            entry = entry or (folder == "" and path.suffix == ".py")
    return freed, entry


def read_usage(data: bytes | None) -> tuple[int, int]:
    """(recorded bytes, writes since the last measure) from the ``.usage`` file's bytes."""
    with contextlib.suppress(ValueError, TypeError, AttributeError):
        loaded = json.loads(data or b"")
        return max(int(loaded["bytes"]), 0), max(int(loaded["writes"]), 0)
    return -1, 0  # unknown: measure


def usage_bytes(total: int, writes: int) -> bytes:
    return json.dumps({"bytes": total, "writes": writes}).encode()


def plan(recorded: int, writes: int, added: int, limit: int | None) -> tuple[bool, int, int]:
    """After a write of `added` bytes: (measure now?, new recorded bytes, new write count)."""
    if limit is None:
        return False, max(recorded, 0) + added, 0
    recorded = recorded + added if recorded >= 0 else -1
    writes += 1
    return recorded < 0 or recorded > limit or writes >= RESCAN_WRITES, recorded, writes


def upkeep(directory: Path, limit: int, keep: str) -> int:
    """Measure `directory`; above `limit` bytes prune it to `TARGET` of it; the bytes left."""
    total = measure(directory).total
    if total > limit:
        total = prune(directory, int(limit * TARGET), keep=keep)[1]
    return total
