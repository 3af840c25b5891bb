"""Numba's cache of vectorizer's generated modules: where its files go (our locator), and how they
are written and read (checksummed by vectorizer, verified before Numba unpickles them).

Where. Numba picks a "locator" per function from the file its code names: NUMBA_CACHE_DIR, then
the __pycache__ beside the file, then ~/.cache/numba; none knows our checks. Ours goes first and
claims every entry (``vz_<64 hex>.py``): its files go in the ``__pycache__`` of the directory in
use, and only for entries jit.load has just checked (`checked`); any other entry is refused.

What. Numba's files are pickles holding machine code: a flipped byte crashed every later process
(SIGSEGV, ``LLVM ERROR``), and Numba reads them with a plain `open`. For vectorizer's entries,
`install` puts `checked_file_class` in Numba's place: it writes each index (``.nbi``) and data
file (``.nbc``) as one line, ``# vectorizer-numba <sha256 of the file's name, NUL, the rest>``,
then Numba's bytes, atomically (a private temp file, then ``os.replace``), the data file before
the index that names it. It reads a file once (``O_NOFOLLOW``, ``fstat``-checked as the cache's
files are) and hands Numba those bytes only if the line matches: a damaged, truncated or
unchecksummed file (Numba's own format) is a miss, which Numba compiles and writes again. A write
that fails (a full disk) is one CacheWarning; the compiled code runs all the same. Other files
are Numba's business: the class behaves as Numba's own for them.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import pickle
import stat
import tempfile
from pathlib import Path

from ...core import cache

HEADER = b"# vectorizer-numba "
LOCATOR = f"{__package__}.jit.NumbaCacheLocator"  # the name NUMBA_CACHE_LOCATOR_CLASSES may give
checked: set[str] = set()  # entry paths whose Numba files jit._cache_allowed found safe


class CacheRefused(RuntimeError):
    """Numba was asked to cache an entry that is not in the cache directory in use, or unchecked."""


def install() -> None:
    """Our locator first in Numba's list, and our file class in place of Numba's (idempotent)."""
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in Numba 0.62
    ours = locator_class()
    if impl._locator_classes[:1] != [ours]:  # the list itself, so subclasses sharing it see ours
        impl._locator_classes.insert(0, ours)
    caching.IndexDataCacheFile = checked_file_class()  # Cache.__init__ looks the name up per function


def locator_override() -> str | None:
    """The value of NUMBA_CACHE_LOCATOR_CLASSES (which replaces Numba's list of locators) unless
    it names ours first: then vectorizer's entries are not cached by Numba."""
    from numba.core import config

    for value in (os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES", ""), getattr(config, "CACHE_LOCATOR_CLASSES", "")):
        if value and value.strip() and value.split(",")[0].strip() != LOCATOR:
            return value
    return None


def numba_cache_problem(path: Path | str) -> tuple[bool, str] | None:
    """Why Numba must not keep its cache for entry `path` in the ``__pycache__`` beside it (first
    True if that is unsafe, False if merely unusable), or None: ``__pycache__`` (created private
    if missing) and the module's files in it (``vz_<key>.*.nb[ic]``) must pass `cache.problem`
    (else one CacheWarning), and ``__pycache__`` must accept a new file. Nothing is changed."""
    path = Path(path)
    pycache = path.parent / "__pycache__"
    try:
        cache.make_private_dir(pycache)
        st = os.lstat(pycache)
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):  # unusable, not a risk
            return False, f"{pycache} is not a directory"
        reason = cache.problem(st, pycache, want_dir=True)
        with os.scandir(pycache) as found:
            for item in found:
                if reason is None and item.name.startswith(path.stem + ".") and item.name.endswith((".nbi", ".nbc")):
                    reason = cache.problem(os.lstat(item.path), item.path, want_dir=False)
        if reason:
            _unsafe(reason)
            return True, reason
        with tempfile.TemporaryFile(dir=pycache):
            return None
    except OSError as exc:
        return False, f"cannot use {pycache}: {exc}"


def _unsafe(reason: str) -> None:
    cache.warn_once("unsafe-numba", f"{reason.replace('cache entry', 'Numba cache file')}; Numba "
                    "compiles vectorizer's kernels without its cache (fix it or remove it)")


def _is_entry(py_file: str) -> bool:
    name = os.path.basename(py_file)
    return len(name) == 70 and name[:3] == "vz_" and name[67:] == ".py" and cache.HEX_DIGITS.issuperset(name[3:67])


@functools.lru_cache(maxsize=1)
def locator_class() -> type:
    from numba.core.caching import _CacheLocator

    class NumbaCacheLocator(_CacheLocator):
        """vectorizer's cache entries: their Numba files in the ``__pycache__`` beside them."""

        def __init__(self, py_func, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno  # as Numba's: the same file names
            self._cache_path = os.path.join(os.path.dirname(py_file), "__pycache__")

        @classmethod
        def from_function(cls, py_func, py_file: str):
            if not _is_entry(py_file):
                return None  # not ours: Numba's own locators decide
            directory = str(cache.default_cache().directory())
            if os.path.dirname(py_file) != directory or py_file not in checked:
                raise CacheRefused(f"Numba was asked to cache {py_file}, which is not a checked entry "
                                   f"of the cache directory in use ({directory})")
            return cls(py_func, py_file)

        def ensure_cache_path(self) -> None:  # before each save; the file class checks it again
            with contextlib.suppress(OSError):
                cache.make_private_dir(Path(self._cache_path))

        def get_cache_path(self) -> str:
            return self._cache_path

        def get_source_stamp(self) -> bytes:  # Numba's stamp: the source file's sha256
            fd = os.open(self._py_file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as file:
                return cache.sha256(file.read()).digest()

        def get_disambiguator(self) -> str:
            return str(self._lineno)

    NumbaCacheLocator.__qualname__ = "NumbaCacheLocator"
    return NumbaCacheLocator


def digest(name: str, body: bytes) -> bytes:
    """The checksum line's value for a file called `name` holding `body` (a file copied under
    another entry's name does not verify)."""
    return cache.sha256(name.encode() + b"\0" + body).hexdigest().encode()


@functools.lru_cache(maxsize=1)
def checked_file_class() -> type:
    from numba.core import caching

    numbas = caching.IndexDataCacheFile
    while getattr(numbas, "vectorizer_checked", False):  # installed already: Numba's is its base
        numbas = numbas.__base__
    log = getattr(caching, "_cache_log", lambda *args: None)  # NUMBA_DEBUG_CACHE=1 prints it

    class CheckedCacheFile(numbas):
        """Numba's index and data files, checksummed for vectorizer's entries (module docstring)."""

        vectorizer_checked = True

        def __init__(self, cache_path: str, filename_base: str, source_stamp) -> None:
            super().__init__(cache_path, filename_base, source_stamp)
            self._ours = _is_entry(os.path.join(cache_path, filename_base.split(".", 1)[0] + ".py"))

        def save(self, key, data) -> None:
            if not self._ours:
                return super().save(key, data)
            try:
                reason = cache.problem(os.lstat(self._cache_path), self._cache_path, want_dir=True)
                if reason:  # changed since jit.load checked it: write nothing there
                    return _unsafe(reason)
                overloads = self._load_index()
                name = overloads.get(key)
                if name is None:
                    taken = set(overloads.values())
                    name = next(n for n in map(self._data_name, range(1, len(taken) + 2)) if n not in taken)
                self._save_data(name, data)  # first: the index never names a file not yet written
                overloads[key] = name
                self._save_index(overloads)
            except OSError as exc:
                cache.warn_once("numba-unwritable", f"cannot write Numba's cache in {self._cache_path}: {exc}; "
                                "the compiled kernels run, and a later process compiles them again")
            return None

        def _load_index(self) -> dict:
            if not self._ours:
                return super()._load_index()
            body = self._read(self._index_path)
            try:
                stream = io.BytesIO(body or b"")
                if body is None or pickle.load(stream) != self._version:
                    return {}
                stamp, overloads = pickle.loads(stream.read())
            except (pickle.UnpicklingError, EOFError, ValueError, TypeError):  # verified yet not an index
                return {}
            log("[cache] index loaded from %r", self._index_path)
            return overloads if stamp == self._source_stamp and isinstance(overloads, dict) else {}

        def _save_index(self, overloads: dict) -> None:
            if not self._ours:
                return super()._save_index(overloads)
            self._write(self._index_path, pickle.dumps(self._version, protocol=-1)
                        + self._dump((self._source_stamp, overloads)))
            log("[cache] index saved to %r", self._index_path)
            return None

        def _load_data(self, name: str):
            if not self._ours:
                return super()._load_data(name)
            body = self._read(self._data_path(name))
            try:
                data = None if body is None else pickle.loads(body)  # None: a miss, Numba compiles
            except (pickle.UnpicklingError, EOFError):
                return None
            if data is not None:
                log("[cache] data loaded from %r", self._data_path(name))
            return data

        def _save_data(self, name: str, data) -> None:
            if not self._ours:
                return super()._save_data(name, data)
            self._write(self._data_path(name), self._dump(data))
            log("[cache] data saved to %r", self._data_path(name))
            return None

        def _read(self, path: str) -> bytes | None:
            """The bytes after the checksum line of `path` if it is safe and the line matches."""
            try:
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
            except OSError:  # missing (a miss); a symlink fails: never followed, never read
                return None
            with os.fdopen(fd, "rb") as file:
                if reason := cache.problem(os.fstat(file.fileno()), path, want_dir=False):
                    _unsafe(reason)
                    return None
                line, _, body = file.read().partition(b"\n")
            name = os.path.basename(path)
            return body if line[:len(HEADER)] == HEADER and line[len(HEADER):] == digest(name, body) else None

        def _write(self, path: str, body: bytes) -> None:
            name = os.path.basename(path)
            fd, tmp = tempfile.mkstemp(prefix=f"{name}.tmp.", dir=self._cache_path)  # mode 0o600
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(HEADER + digest(name, body) + b"\n" + body)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise

    CheckedCacheFile.__qualname__ = "CheckedCacheFile"
    return CheckedCacheFile
