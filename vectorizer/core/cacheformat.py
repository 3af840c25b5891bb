"""Which files of a cache directory vectorizer wrote: the one list of the names and formats of what
cache.py, cachesize.py, the Numba backend (its checksummed files) and the CLI's records write, so
that `vectorizer cache --clear` and the size bound remove those and nothing else (cacheclear.py).

Marks. vectorizer writes a ``CACHEDIR.TAG`` (the cache-directory tag standard: backup tools skip
the directory) into a root it creates and into each ``v<digits>/`` it keeps entries in. A
directory holding that exact file, regular and owned by the current user, is *marked*. Nothing is
removed outside a marked directory, and a root is removed only if marked (vectorizer created it).

Formats, in a ``v<digits>/`` folder (`kind` by name, `verified_kind` by content too):

* ``vz_<key>.py``: an entry, if its first line is ``# vectorizer-cache <key> <sha256>``;
* ``vz_<key>.<tag>.code``: its compiled code;
* ``.usage``: the size bound's count; ``.tmp-*.part``: a temp file of an unfinished write;
* ``__pycache__/vz_<key>.<function>.nbi`` / ``.nbc``: Numba's files of an entry (their format:
  backends/numba/numbafiles.py); ``vz_<key>.*.tmp.*``: their temp files;
* ``cli/<32 hex>.json``: `vectorizer generate`'s records; ``cli/.<32 hex>.json.*.tmp``: their temps.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

TAG_NAME = "CACHEDIR.TAG"
TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# vectorizer cache: safe to delete.\n"
ENTRY_HEADER = b"# vectorizer-cache "  # then the key, a space, the body's sha256, a newline
HEX_DIGITS = frozenset("0123456789abcdef")  # a set, not a regex: `re` costs ~0.4 ms of every start-up
FOLDERS = ("", "__pycache__", "cli")  # the folders of a v<digits>/ directory that hold our files
_POSIX = hasattr(os, "getuid")


def is_key(text: str) -> bool:
    return len(text) == 64 and HEX_DIGITS.issuperset(text)


def is_versioned(name: str) -> bool:
    """A layout directory's name: ``v`` and digits."""
    return name[:1] == "v" and name[1:].isascii() and name[1:].isdigit()


def mark(directory: Path) -> None:
    """Write vectorizer's CACHEDIR.TAG into `directory` unless one is there (best effort: an
    unwritable directory stays unmarked, and is then never cleared)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    with contextlib.suppress(OSError):
        fd = os.open(directory / TAG_NAME, flags, 0o600)
        with os.fdopen(fd, "wb") as tag:
            tag.write(TAG)


def marked(directory: Path) -> bool:
    """Whether `directory` holds vectorizer's CACHEDIR.TAG (regular, ours, exactly its bytes)."""
    path = directory / TAG_NAME
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or (_POSIX and st.st_uid != os.getuid()) or st.st_size != len(TAG):
            return False
        with open(path, "rb") as file:
            return file.read(len(TAG) + 1) == TAG
    except OSError:
        return False


def kind(folder: str, name: str) -> str | None:
    """What file `name` in `folder` ("", "__pycache__" or "cli" of a v<digits>/) is by its name:
    "entry", "code", "usage", "temp", "tag", "numba", "record"; None if none of vectorizer's."""
    if folder == "":
        if name[:3] == "vz_" and is_key(name[3:67]):
            rest = name[67:]
            if rest == ".py":
                return "entry"
            if rest[:1] == "." and rest.endswith(".code") and "/" not in rest and len(rest) > 6:
                return "code"
            return None
        if name == ".usage":
            return "usage"
        if name.startswith(".tmp-") and name.endswith(".part"):
            return "temp"
        return "tag" if name == TAG_NAME else None
    if folder == "__pycache__":
        if not (name[:3] == "vz_" and is_key(name[3:67]) and name[67:68] == "." and len(name) > 68):
            return None
        if name.endswith((".nbi", ".nbc")):
            return "numba"
        return "temp" if ".tmp." in name[68:] else None
    if folder == "cli":
        stem = name[1:33] if name.startswith(".") else name[:32]
        if not (len(stem) == 32 and HEX_DIGITS.issuperset(stem)):
            return None
        if name == stem + ".json":
            return "record"
        return "temp" if name.startswith(f".{stem}.json.") and name.endswith(".tmp") else None
    return None


def verified_kind(folder: str, path: Path) -> str | None:
    """`kind`, for a regular file (never a symlink), and for an entry or a tag only if its first
    bytes are in its format: a file merely named like an entry is not taken for one."""
    found = kind(folder, path.name)
    if found is None:
        return None
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        if found not in ("entry", "tag"):
            return found
        with open(path, "rb") as file:
            head = file.read(len(ENTRY_HEADER) + 65 + len(TAG))
    except OSError:
        return None
    if found == "entry":
        return found if head.startswith(ENTRY_HEADER + path.name[3:67].encode() + b" ") else None
    return found if head == TAG else None
