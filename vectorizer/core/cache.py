"""The on-disk cache of generated modules: per-user, versioned, atomic; a bad entry is a miss.
The threat model (who may write where, what is trusted) is docs/security.md.

Layout. The root is ``$VECTORIZER_CACHE_DIR`` if set, else ``platformdirs.user_cache_dir
("vectorizer")``; it holds one directory per layout version, ``v<SCHEMA>/``. vectorizer marks a
root it creates, and ``v<SCHEMA>/``, with its ``CACHEDIR.TAG`` (backup tools skip them; `clean`
removes only what vectorizer wrote below a marked directory: cacheformat.py, cacheclear.py).
Each entry is a real module, ``v<SCHEMA>/vz_<key>.py``, with its compiled code beside it
(``vz_<key>.<cache tag>.code``, as a .pyc); Numba keeps its own cache of the module in
``v<SCHEMA>/__pycache__/``, checksummed by vectorizer (backends/numba/numbafiles.py).
Directories we create get mode 0o700, files 0o600.

Key. `cache_key` (cachekey.py) is the sha256 of length-prefixed UTF-8 parts: the caller's parts
(function source, options, ...) after SCHEMA and the versions of vectorizer, Python, NumPy, libcst
and Numba.

Entry format. Line 1 is ``# vectorizer-cache <key> <sha256 of the rest>``; the rest is the module
source. A MISS is: no directory or entry, an unreadable entry, a bad or foreign header, a checksum
mismatch, a body that is not UTF-8; and, for its user (engine/kernels.py), an entry that does not
load as the function's generated module (a forgery with a valid checksum). A miss never raises;
the caller regenerates and stores again.

Safety. Before every read and write the root and ``v<SCHEMA>/`` are ``lstat``-ed, and a file is
opened with ``O_NOFOLLOW`` and ``fstat``-ed (`_problem`): a real directory / regular file, owned
by ``os.getuid()``, no group or world write bit, and (files) no second hard link. Otherwise one
`CacheWarning` names the problem and the call is a miss: vectorizer runs uncached; we never chmod
or delete what we did not create. An unwritable directory (read-only mount, permissions) makes
`CodeCache.store` warn once and return None. On Windows only the type and symlink checks apply.
Nothing read depends on where the cache was first written: compiled code is re-targeted at the
entry's path in the directory in use (`_at`), so a moved, copied or re-mounted cache works.

Atomicity. Files are written to a ``mkstemp`` temp file in their own directory, then
``os.replace``-d onto the final name; no fsync (as for .pyc files): every file carries the sha256
of its contents, so one torn by a crash is a miss. Entries are content-addressed and written once:
processes storing a key at once write identical bytes, the last replace wins, a reader sees no
file or a complete one. A temp file left by a killed process is removed by `CodeCache.clean`.
A write that fails (a full disk) is one CacheWarning; the caller runs what it generated.

Size. ``VECTORIZER_CACHE_MAX_MB`` bounds the versioned directory (default 256 MB; a bad value is
a CacheWarning and the default); a write counts its bytes and, when the bound is passed, prunes
the least recently used entries (cachesize.py); a hit marks its entry used.
"""

from __future__ import annotations

import contextlib
import errno
import marshal
import os
import stat
import sys
import tempfile
import types
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from . import cacheformat, cachesize
from .cacheformat import HEX_DIGITS
from .cachekey import SCHEMA, cache_key, cache_root, sha256

if TYPE_CHECKING:
    from .cacheclear import Cleared

__all__ = ["HEX_DIGITS", "SCHEMA", "CacheWarning", "CodeCache", "cache_key", "cache_root", "default_cache",
           "make_private_dir", "problem", "sha256", "warn_once"]
_HEADER = cacheformat.ENTRY_HEADER  # then the key, a space, the body's sha256, a newline
_POSIX = hasattr(os, "getuid")
_warned: set[str] = set()  # warning kinds already shown in this process


class CacheWarning(UserWarning):
    """The disk cache is unsafe or unwritable; vectorizer runs uncached."""


def warn_once(kind: str, message: str) -> None:
    """One CacheWarning per kind of problem and process."""
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(CacheWarning(message), stacklevel=3)


def warned_unusable() -> bool:
    """Whether this process has already said the cache directory cannot be used (its users
    need not say it again: one cause, one warning)."""
    return not _warned.isdisjoint({"unsafe", "unwritable"})


def problem(st: os.stat_result, path: Path | str, want_dir: bool) -> str | None:
    """Why a path with this lstat/fstat result must not be trusted, or None if it is fine."""
    what = "cache directory" if want_dir else "cache entry"
    if stat.S_ISLNK(st.st_mode):
        return f"{what} {path} is a symlink"
    if not (stat.S_ISDIR(st.st_mode) if want_dir else stat.S_ISREG(st.st_mode)):
        return f"{what} {path} is not a {'directory' if want_dir else 'regular file'}"
    if _POSIX and st.st_uid != os.getuid():
        return f"{what} {path} is owned by uid {st.st_uid}, not by you (uid {os.getuid()})"
    if _POSIX and st.st_mode & 0o022:
        return f"{what} {path} is group- or world-writable (mode {stat.S_IMODE(st.st_mode):#o})"
    if not want_dir and st.st_nlink > 1:  # also reachable by a path we never checked
        return f"{what} {path} has {st.st_nlink} hard links"
    return None


def _unsafe(reason: str) -> None:
    warn_once("unsafe", f"{reason}; vectorizer runs uncached (fix it, remove it, or point "
                    "VECTORIZER_CACHE_DIR at a private directory)")


def make_private_dir(path: Path) -> bool:
    """Create `path` with mode 0o700 (umask-proof); True if we created it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return False
    os.chmod(path, 0o700)
    return True


class CodeCache:
    """Generated modules on disk, one ``vz_<key>.py`` per key (see the module docstring)."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else cache_root()

    def directory(self) -> Path:
        """The versioned directory that holds the entries (it may not exist yet)."""
        return self.root / f"v{SCHEMA}"

    def path_for(self, key: str) -> Path:
        """Where the module for `key` lives; the module name is ``vz_<key>``."""
        if len(key) != 64 or not HEX_DIGITS.issuperset(key):
            raise ValueError(f"not a cache key (64 lowercase hex digits): {key!r}")
        return self.directory() / f"vz_{key}.py"

    def _dirs_problem(self) -> str | None:
        """Why the root or versioned directory is unsafe; FileNotFoundError if one is missing."""
        for path in (self.root, self.directory()):
            reason = problem(os.lstat(path), path, want_dir=True)
            if reason:
                return reason
        return None

    def load(self, key: str) -> str | None:
        """The stored source for `key`, or None on a miss (see the module docstring)."""
        data = self._read(self.path_for(key))
        if data is None:
            return None
        start, end = len(_HEADER), len(_HEADER) + 64 + 1 + 64 + 1  # "<key> <sha256>\n"
        line = data[:end]
        if not (line.startswith(_HEADER) and line.endswith(b"\n") and line[start:start + 64] == key.encode()
                and line[start + 64:start + 65] == b" "):
            return None
        if sha256(data[end:]).hexdigest().encode() != line[start + 65:end - 1]:
            return None
        body = data[end:]
        with contextlib.suppress(UnicodeDecodeError):
            text = body.decode("utf-8")
            cachesize.touch(self.path_for(key))  # its last use, for the size bound's pruning
            return text
        return None

    def _read(self, path: Path) -> bytes | None:
        """A file's bytes if it and its directories are safe (ours, no symlink, no group/world
        write), else None (warned when unsafe)."""
        try:
            reason = self._dirs_problem() or problem(os.lstat(path), path, want_dir=False)
            if reason:
                _unsafe(reason)
                return None
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
            fd = os.open(path, flags)
        except OSError as exc:  # missing (a plain miss), or swapped for a symlink since lstat
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                _unsafe(f"cache entry {path} is a symlink")
            return None
        with os.fdopen(fd, "rb") as file:
            reason = problem(os.fstat(file.fileno()), path, want_dir=False)
            if reason:
                _unsafe(reason)
                return None
            try:
                return file.read()
            except OSError:
                return None

    def load_code(self, key: str) -> types.CodeType | None:
        """`load`, compiled under the entry's real filename with line numbers matching the file."""
        entry = self.load_entry(key)
        return entry[1] if entry is not None else None

    def load_entry(self, key: str) -> tuple[str, types.CodeType] | None:
        """The entry's source and its compiled code (`load_code`), from one read of the entry.

        The compiled code is kept beside the entry (``vz_<key>.<cache tag>.code``: the source's
        sha256, the marshalled code's sha256, the marshalled code), as .pyc files are: compiling
        a module with the erf tables costs ~2 ms of a warm start. It is read as safely as the
        entry and used only if it names the entry's source, is whole, and binds the source's
        top-level names (else it is compiled again); its file names are the entry's path here."""
        source = self.load(key)
        if source is None:
            return None
        code = self._compiled(key, source)
        return (source, code) if code is not None else None

    def _compiled(self, key: str, source: str) -> types.CodeType | None:
        text = "\n" + source  # the leading newline stands for the header line
        digest = sha256(text.encode("utf-8")).hexdigest().encode()
        code_path = self.path_for(key).with_suffix(f".{sys.implementation.cache_tag}.code")
        filename = str(self.path_for(key))
        code = _unmarshal(self._read(code_path), digest, source)
        if code is not None:
            if (moved := _at(code, filename)) is code:
                return code
            code = moved  # compiled in another directory: the cache was moved or copied
        else:  # missing, damaged, or not compiled from this source (its digests say so, its names not)
            try:
                code = compile(text, filename, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                return None
        dumped = marshal.dumps(code)
        self._write(code_path, digest + b" " + sha256(dumped).hexdigest().encode() + b"\n" + dumped, warn=False)
        return code

    def store(self, key: str, source: str) -> Path | None:
        """Atomically write `source` as the entry for `key`; its path, or None (warned) on failure."""
        body = source.encode("utf-8")
        data = _HEADER + f"{key} {sha256(body).hexdigest()}\n".encode() + body
        return self._write(self.path_for(key), data)

    def _upkeep(self, key: str, added: int) -> None:
        """The size bound (cachesize.py): count a write (an entry or its compiled code) of entry
        `key`; measure, and prune, when it is due."""
        limit = cachesize.bound_bytes()
        if limit is None:
            return
        usage = self.directory() / cachesize.USAGE
        recorded, writes = cachesize.read_usage(self._read(usage))
        due, recorded, writes = cachesize.plan(recorded, writes, added, limit)
        if due:
            recorded, writes = cachesize.upkeep(self.directory(), limit, keep=f"vz_{key}"), 0
        self._write(usage, cachesize.usage_bytes(recorded, writes), warn=False)

    def _write(self, path: Path, data: bytes, warn: bool = True) -> Path | None:
        """Atomically write `path` in the versioned directory (created private if missing)."""
        tmp: str | None = None
        try:
            reason = self.prepare()
            if reason:
                _unsafe(reason)
                return None
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".part", dir=self.directory())
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            os.replace(tmp, path)
            tmp = None
            if path.name != cachesize.USAGE:
                self._upkeep(path.name[3:67], len(data))
            return path
        except OSError as exc:
            if not warn:  # a convenience file (compiled code): the entry itself was written
                return None
            warn_once("unwritable", f"cannot write the vectorizer cache in {self.directory()}: {exc}; "
                                "vectorizer runs uncached (set VECTORIZER_CACHE_DIR to a writable "
                                "private directory)")
            return None
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    def prepare(self) -> str | None:
        """Create the root (marked, if we create it) and the versioned directory (marked), both
        private; why they are unsafe to use, or None. OSError if they cannot be created."""
        created = make_private_dir(self.root)
        reason = problem(os.lstat(self.root), self.root, want_dir=True)
        if reason:  # never create anything inside an unsafe root
            return reason
        if created:  # only a root we created is ours to remove (cacheclear.py)
            cacheformat.mark(self.root)
        make_private_dir(self.directory())
        reason = self._dirs_problem()
        if not reason:
            cacheformat.mark(self.directory())
        return reason

    def clean(self) -> Cleared:
        """Remove what vectorizer wrote under the root, and nothing else (cacheclear.py); what was
        removed and what was left. A root that is a symlink or not ours is refused (warned)."""
        from .cacheclear import clear  # not on the warm path

        cleared = clear(self.root)
        if cleared.refused:
            _unsafe(cleared.refused)
        return cleared


def _unmarshal(data: bytes | None, digest: bytes, source: str) -> types.CodeType | None:
    """The code in a compiled file if it names `digest`, is whole and binds the source's names."""
    if data is None or data[:65] != digest + b" " or data[129:130] != b"\n" \
            or sha256(data[130:]).hexdigest().encode() != data[65:129]:
        return None
    with contextlib.suppress(ValueError, EOFError, TypeError):
        code = marshal.loads(data[130:])
        if isinstance(code, types.CodeType) and _defined_names(source).issubset(code.co_names):
            return code
    return None


def _defined_names(source: str) -> set[str]:
    """Names a generated module binds at top level (``def f(`` and ``NAME = ``, from column 0)."""
    heads = (line[4:line.find("(")] if line.startswith("def ") else line.partition(" = ")[0] if " = " in line else ""
             for line in source.splitlines())
    return {head for head in heads if head.isidentifier()}


def _at(code: types.CodeType, filename: str) -> types.CodeType:
    """`code` with `filename` as the co_filename of it and of every code object nested in it, so
    tracebacks and Numba's cache see the directory in use. One compilation gives all its code
    objects one name: code that has it already is returned as it is, without a walk."""
    if code.co_filename == filename:
        return code
    consts = tuple(_at(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def default_cache() -> CodeCache:
    """The cache at `cache_root()` (re-reads ``VECTORIZER_CACHE_DIR`` on each call)."""
    return CodeCache()
