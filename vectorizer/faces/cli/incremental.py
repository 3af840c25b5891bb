"""Incremental `vectorizer generate`: skip a source whose output is known to be what generating
it again would write.

Generating a module is a pure function of the source text, the functions selected, the settings
that shape the output (backend, on-unsupported) and the tool itself. After a run leaves an output
equal to what was generated, a record stores the sha256 of the source text (with those settings)
and of the output text, under a key of everything else: the bytes of vectorizer's own files, and
Python's and NumPy's versions. The next run skips generating a source whose text and output still
hash to the record, as black's and ruff's caches do; with no record, or a stale one, it generates
and compares as before. A record is only compared, never run; one in a directory or file that
another user could have written is ignored (the same ownership and mode checks as the code cache),
since a forged one could make `--check` pass on a stale output. Records live in the `cli/` folder of
the user cache (`vectorizer cache dir`; `vectorizer cache clean` removes them), one file per tool
key; only the newest few such files are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from ...core import cache
from .cliio import atomic_write

KEEP_FILES = 8  # record files of other tool versions kept (least recently used pruned first)


def tool_key(memo: Path | None = None) -> str:
    """The bytes of every file of the installed package, and Python's and NumPy's versions.

    With `memo` (a folder the caller checked is private), the digest is remembered there under a
    digest of the files' names, sizes and modification times, the check Python's own pyc files
    rely on: an unchanged install is keyed by ~200 `stat` calls instead of reading and hashing
    every file (~30 ms of an up-to-date run's ~100 ms of CPU)."""
    header = f"{sys.version_info[:2]} numpy {numpy_version_bytes()!r}\n".encode()
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    files = []  # (path, path relative to the package): plain strings, ~200 of them (pathlib costs ~10 ms)
    for folder, dirs, names in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        prefix = os.path.relpath(folder, package).replace(os.sep, "/") + "/"
        files += [(os.path.join(folder, n), prefix.removeprefix("./") + n) for n in sorted(names) if n.endswith(".py")]
    note = None
    if memo is not None:
        stats = hashlib.sha256(header)
        for path, relative in files:
            st = os.stat(path)
            stats.update(f"{relative}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        note = memo / f"toolkey-{stats.hexdigest()[:32]}"
        try:
            if not cache.problem(os.lstat(note), note, want_dir=False):
                known = note.read_text(encoding="ascii").strip()
                if len(known) == 64 and all(c in "0123456789abcdef" for c in known):
                    return known
        except (OSError, ValueError):
            pass  # no note yet (or an unreadable one): hash the files
    digest = hashlib.sha256(header)
    for path, relative in files:
        with open(path, "rb") as f:
            data = f.read()
        digest.update(f"{relative}:{len(data)}\n".encode() + data)
    key = digest.hexdigest()
    if note is not None:
        try:
            atomic_write(note, key.encode("ascii"))
            os.chmod(note, 0o600)
            for old in sorted(memo.glob("toolkey-*"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP_FILES:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass  # the next run hashes the files again, nothing else
    return key


def numpy_version_bytes() -> bytes:
    """NumPy's `numpy/version.py` (its version, git revision and release flag), read without
    importing NumPy (~70 ms an up-to-date run does not otherwise spend)."""
    import importlib.util

    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.origin:
        return b"no numpy"
    try:
        return (Path(spec.origin).parent / "version.py").read_bytes()
    except OSError:
        return f"numpy at {spec.origin}".encode()


def _valid(entry: object) -> bool:
    """[source hash, output path, output hash] and, for a source with per-element exports, the
    name it was shown by and its [function, message] warnings."""
    if not isinstance(entry, list) or len(entry) not in (3, 5) or not all(isinstance(v, str) for v in entry[:4]):
        return False
    return len(entry) == 3 or (isinstance(entry[4], list) and all(
        isinstance(w, list) and len(w) == 2 and all(isinstance(x, str) for x in w) for w in entry[4]))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Records:
    """The records of one run (loaded once, saved once at the end)."""

    def __init__(self, enabled: bool = True) -> None:
        self.path: Path | None = None
        self.entries: dict[str, list[str]] = {}
        self.dirty = False
        if enabled:
            self._load()

    def _load(self) -> None:
        store = cache.CodeCache()  # `vectorizer cache clean` removes the records too
        folder = store.directory() / "cli"
        try:
            if store.prepare():  # the root and v<SCHEMA>/, created private and marked as the cache's
                return  # not ours, or writable by others: run without records
            cache.make_private_dir(folder)
            if cache.problem(os.lstat(folder), folder, want_dir=True):
                return
            self.path = folder / f"{tool_key(memo=folder)[:32]}.json"
            if self.path.exists():
                if cache.problem(os.lstat(self.path), self.path, want_dir=False):
                    self.path = None
                    return
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(loaded, dict):
                    self.entries = {k: v for k, v in loaded.items() if _valid(v)}
        except (OSError, ValueError):
            self.path, self.entries = None, {}  # an unreadable record costs a regeneration, nothing else

    @staticmethod
    def _source_hash(text: str, settings: str) -> str:
        return _sha(f"{settings}\n{text}".encode("utf-8", "surrogatepass"))

    def fresh(self, source: Path, text: str, settings: str, output: Path) -> bool:
        """Whether `output` holds what generating `source` (its `text`, under `settings`) writes."""
        entry = self.entries.get(str(source.absolute())) if self.path else None
        if entry is None or entry[0] != self._source_hash(text, settings) or entry[1] != str(output.absolute()):
            return False
        try:
            return _sha(output.read_bytes()) == entry[2]
        except OSError:
            return False

    def remember(self, source: Path, text: str, settings: str, output: Path, output_text: str,
                 warnings: list[list[str]] | None = None, shown: str = "") -> None:
        """`output` now holds `output_text`, generated from `text` under `settings`. `warnings`:
        [function, message] for each function exported as a per-element loop, shown again by
        later runs that skip the source (`shown`: the source's name in them)."""
        if self.path is not None:
            entry = [self._source_hash(text, settings), str(output.absolute()), _sha(output_text.encode("utf-8"))]
            self.entries[str(source.absolute())] = entry + ([shown, warnings] if warnings else [])
            self.dirty = True

    def warnings(self, source: Path, shown: str) -> list[list[str]] | None:
        """The per-element warnings a fresh record of `source` replays ([] for none); None when
        they named the source otherwise (another working directory): generate again then."""
        entry = self.entries.get(str(source.absolute()), [])
        if len(entry) < 5:
            return []
        return entry[4] if entry[3] == shown else None

    def save(self) -> str | None:
        """Write the records; the reason if they could not be (the next run then regenerates)."""
        if self.path is None or not self.dirty:
            return None
        try:
            atomic_write(self.path, json.dumps(self.entries, sort_keys=True).encode("utf-8"))
            os.chmod(self.path, 0o600)
            others = sorted((p for p in self.path.parent.glob("*.json") if p != self.path),
                            key=lambda p: p.stat().st_mtime, reverse=True)
            for old in others[KEEP_FILES - 1:]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            return f"incremental records not saved ({self.path}): {exc.strerror or exc}"
        return None
