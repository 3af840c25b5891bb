"""`vectorizer cache --clear`: remove what vectorizer wrote under the cache root, and nothing else.

Only below a marked directory (cacheformat.py): each ``v<digits>/`` of the root that is marked, or
every one when the root itself is marked (vectorizer created it). There, only the files
`cacheformat.verified_kind` recognizes, regular and owned by the current user, are unlinked;
folders are removed with `rmdir` (so only when empty), never a tree; symlinks are neither followed
nor removed. A marked ``v<digits>/`` left with nothing but its tag loses the tag and goes (one
still holding a file of yours keeps it: it is still the cache's). The root loses its tag (backup
tools must not skip what is left in it: yours) and goes if that leaves it empty; a root that is not
marked never goes. A root that is a symlink or another user's is refused (cache.problem).
What was left is reported (`Cleared.kept`), with the reason, as is what was removed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import NamedTuple

from . import cacheformat

_POSIX = hasattr(os, "getuid")


class Cleared(NamedTuple):
    """What `clear` did: entries (generated modules) and files removed, their bytes, and what it
    left, each with the reason; `refused` says why it did nothing at all."""

    entries: int = 0
    files: int = 0
    size: int = 0
    kept: tuple[str, ...] = ()
    refused: str | None = None


class _Tally:
    def __init__(self) -> None:
        self.entries = self.files = self.size = 0
        self.kept: list[str] = []

    def unlink(self, path: Path, st: os.stat_result, what: str) -> bool:
        try:
            os.unlink(path)  # never follows a symlink
        except FileNotFoundError:
            return True  # another process removed it: gone all the same, not counted
        except OSError as exc:
            self.kept.append(f"{path} ({exc.strerror or exc})")
            return False
        self.files += 1
        self.size += st.st_size
        self.entries += what == "entry"
        return True


def clear(root: Path) -> Cleared:
    """Remove vectorizer's files under `root` (see the module docstring); what was done."""
    from .cache import problem

    try:
        reason = problem(os.lstat(root), root, want_dir=True)
        if reason and "writable" not in reason:  # a symlink, not a directory, or not ours: hands off
            return Cleared(refused=reason)
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return Cleared()
    except OSError as exc:  # a part of the path is a file (Not a directory), no permission...
        return Cleared(refused=f"cache directory {root} cannot be used: {exc.strerror or exc}")
    tally = _Tally()
    root_marked = cacheformat.marked(root)
    for name in names:
        path = root / name
        if not cacheformat.is_versioned(name) or not _own_directory(path):
            if root_marked and name != cacheformat.TAG_NAME:
                tally.kept.append(f"{path} (not vectorizer's)")
            continue
        if not (root_marked or cacheformat.marked(path)):
            tally.kept.append(f"{path} (not marked by vectorizer: no {cacheformat.TAG_NAME} of vectorizer's in it "
                              f"or in {root})")
            continue
        _clear_versioned(path, tally)
    if root_marked:
        with contextlib.suppress(OSError):
            os.unlink(root / cacheformat.TAG_NAME)
        with contextlib.suppress(OSError):
            os.rmdir(root)  # only if empty
    return Cleared(tally.entries, tally.files, tally.size, tuple(tally.kept))


def _own_directory(path: Path) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and not (_POSIX and st.st_uid != os.getuid())


def _clear_versioned(directory: Path, tally: _Tally) -> None:
    for folder in cacheformat.FOLDERS:
        place = directory / folder if folder else directory
        if folder and not _own_directory(place):
            continue
        try:
            names = sorted(os.listdir(place))
        except OSError:
            continue
        for name in names:
            path = place / name
            if not folder and name in cacheformat.FOLDERS[1:] and _own_directory(path):
                continue  # cleared in its own turn
            what = cacheformat.verified_kind(folder, path)
            with contextlib.suppress(FileNotFoundError):
                st = os.lstat(path)
                if what is None or what == "tag" or (_POSIX and st.st_uid != os.getuid()):
                    if what != "tag":
                        tally.kept.append(f"{path} ({'not written by vectorizer' if what is None else 'not yours'})")
                    continue
                tally.unlink(path, st, what)
        if folder:
            with contextlib.suppress(OSError):
                os.rmdir(place)  # only if empty
    _remove_if_only_tag(directory, tally)


def _remove_if_only_tag(directory: Path, tally: _Tally) -> None:
    """Remove `directory` if all that is left in it is vectorizer's tag."""
    try:
        left = os.listdir(directory)
    except OSError:
        return
    if left == [cacheformat.TAG_NAME] and cacheformat.marked(directory):
        with contextlib.suppress(OSError):
            os.unlink(directory / cacheformat.TAG_NAME)
    with contextlib.suppress(OSError):
        os.rmdir(directory)
