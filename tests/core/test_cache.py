"""The disk cache of generated modules: keys, round trips, misses, safety refusals, concurrency."""

from __future__ import annotations

import errno
import hashlib
import importlib
import importlib.util
import marshal
import os
import stat
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import pytest

from vectorizer.backends.numba.jit import numba_cache_problem
from vectorizer.core import cache, cachekey
from vectorizer.core.cache import CacheWarning, CodeCache, cache_key

SOURCE = "import numpy as np\n\n\ndef f(x):\n    return np.sqrt(x)  # é ∑\n"
KEY = cache_key("def f(x): return x", "options")
OTHER_UID = 65534  # nobody


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VECTORIZER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_warned", set())  # "once per process" starts afresh per test


@pytest.fixture
def c() -> CodeCache:
    return cache.default_cache()


class no_warnings(warnings.catch_warnings):
    def __enter__(self):
        super().__enter__()
        warnings.simplefilter("error")


def chown_or_skip(path: Path) -> None:
    try:
        os.chown(path, OTHER_UID, -1, follow_symlinks=False)
    except (PermissionError, AttributeError) as exc:
        pytest.skip(f"cannot give a file to another user here ({exc}); needs root on POSIX")


# -- keys ---------------------------------------------------------------------------------------


def test_key_is_stable_hex_and_sensitive_to_every_part():
    assert cache_key("a", "b") == cache_key("a", "b")
    assert len(KEY) == 64 and int(KEY, 16) >= 0
    keys = {cache_key(*p) for p in [("a", "b"), ("a", "c"), ("b", "a"), ("a",), ("a", "b", "")]}
    assert len(keys) == 5


def test_key_parts_are_length_prefixed():
    assert cache_key("ab", "c") != cache_key("a", "bc")
    assert cache_key("a\x00", "b") != cache_key("a", "\x00b")
    assert cache_key("") != cache_key()


def test_key_rejects_non_text():
    with pytest.raises(TypeError):
        cache_key(b"bytes")  # type: ignore[arg-type]


def test_key_depends_on_library_versions(monkeypatch):
    before = cache_key("f")
    cachekey.environment.cache_clear()
    monkeypatch.setattr(cachekey, "dist_versions", lambda *names: ["9.9" if n == "numba" else "1.0" for n in names])
    try:
        assert cache_key("f") != before
    finally:
        cachekey.environment.cache_clear()


def test_installed_versions_are_read_from_dist_info_in_path_order(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, version in ((first, "2.0"), (second, "1.0")):
        (folder / f"vz_fake_one-{version}.dist-info").mkdir(parents=True)
    (second / "Vz_Fake_Two-0.1.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(first), str(second)])
    importlib.invalidate_caches()
    assert cachekey.dist_versions("vz_fake_one", "vz-fake-two", "vz_fake_three") == ["2.0", "0.1", "none"]


def test_the_dist_info_beside_the_imported_package_comes_first(tmp_path, monkeypatch):
    stale, home = tmp_path / "a", tmp_path / "b"
    (stale / "vz_fake_home-1.0.dist-info").mkdir(parents=True)  # earlier on the path, no package
    (home / "vz_fake_home").mkdir(parents=True)
    (home / "vz_fake_home" / "__init__.py").write_text("")
    (home / "vz_fake_home-3.0.dist-info").mkdir()
    monkeypatch.setattr(sys, "path", [str(stale), str(home)])
    importlib.invalidate_caches()
    assert cachekey.dist_versions("vz_fake_home") == ["3.0"]


def test_compiled_code_is_kept_beside_the_entry_and_checked_against_it(tmp_path):
    store = CodeCache(tmp_path / "c")
    key = "a" * 64
    store.store(key, "X = 1\n")
    first = store.load_code(key)
    code_file = store.path_for(key).with_suffix(f".{sys.implementation.cache_tag}.code")
    assert first is not None and code_file.exists()
    namespace: dict = {}
    exec(store.load_code(key), namespace)  # noqa: S102 - from the compiled file this time
    assert namespace["X"] == 1
    store.store(key, "X = 2\n")  # a new entry: the old compiled code no longer matches it
    namespace = {}
    exec(store.load_code(key), namespace)  # noqa: S102
    assert namespace["X"] == 2
    code_file.write_bytes(code_file.read_bytes()[:70])  # truncated: compiled again, not trusted
    namespace = {}
    exec(store.load_code(key), namespace)  # noqa: S102
    assert namespace["X"] == 2
    # Whole-looking but other bytes after a valid header (a crash leaves zeros; writes are not
    # fsynced): the checksum of the marshalled code rejects them.
    head = code_file.read_bytes()[:130]
    for body in (marshal.dumps(compile("X = 99\n", "x", "exec")), bytes(200)):
        code_file.write_bytes(head + body)
        namespace = {}
        exec(store.load_code(key), namespace)  # noqa: S102
        assert namespace["X"] == 2


def test_load_entry_gives_the_source_and_its_code_from_one_read(tmp_path, monkeypatch):
    store = CodeCache(tmp_path / "c")
    key = "b" * 64
    assert store.load_entry(key) is None
    store.store(key, "X = 3\n")
    store.load_code(key)  # writes the compiled code beside the entry
    reads = []
    real_read = store._read
    monkeypatch.setattr(store, "_read", lambda path: reads.append(path.suffix) or real_read(path))
    source, code = store.load_entry(key)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102
    assert source == "X = 3\n" and namespace["X"] == 3
    assert reads == [".py", ".code"]  # the entry once, then its compiled code


def test_key_never_imports_numba(tmp_path):
    script = (
        "import sys, types\n"
        f"pkg = types.ModuleType('vectorizer'); pkg.__path__ = [{str(Path(cache.__file__).parent.parent)!r}]\n"
        "pkg.__version__ = '0'; sys.modules['vectorizer'] = pkg\n"
        "from vectorizer.core import cache\n"
        "cache.cache_key('f')\n"
        "assert 'numba' not in sys.modules, 'numba was imported'\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=30)


# -- round trip and misses ----------------------------------------------------------------------


def test_store_then_load_round_trips(c):
    path = c.store(KEY, SOURCE)
    assert path == c.path_for(KEY) and path.is_file()
    assert path.parent == c.directory() and path.stem.isidentifier()
    assert c.load(KEY) == SOURCE
    assert path.read_text(encoding="utf-8").splitlines()[0].startswith(f"# vectorizer-cache {KEY} ")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(c.directory().stat().st_mode) == 0o700
    assert stat.S_IMODE(c.root.stat().st_mode) == 0o700
    assert (c.root / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert c.store(KEY, SOURCE) == path and c.load(KEY) == SOURCE  # rewriting is harmless


def test_load_code_keeps_the_file_name_and_line_numbers(c):
    c.store(KEY, SOURCE)
    code = c.load_code(KEY)
    assert code is not None and code.co_filename == str(c.path_for(KEY))
    namespace: dict = {"__name__": f"vz_{KEY}"}
    exec(code, namespace)
    lines = c.path_for(KEY).read_text(encoding="utf-8").splitlines()
    assert lines[namespace["f"].__code__.co_firstlineno - 1] == "def f(x):"
    assert namespace["f"](4.0) == 2.0
    assert c.load_code(cache_key("absent")) is None


def test_absent_entry_or_directory_is_a_plain_miss(c):
    with no_warnings():
        assert c.load(KEY) is None  # no directory at all
        c.store(cache_key("other"), "x = 1\n")
        assert c.load(KEY) is None  # directory, no entry


def test_path_for_rejects_anything_but_a_key(c):
    for bad in ["../../etc/passwd", KEY.upper(), KEY[:-1], KEY + "0", ""]:
        with pytest.raises(ValueError):
            c.path_for(bad)


@pytest.mark.parametrize("keep", [0, 5, 40, 70, 130, -1])
def test_truncated_entry_is_a_miss(c, keep):
    path = c.store(KEY, SOURCE)
    data = path.read_bytes()
    path.write_bytes(data[:keep] if keep >= 0 else data[:-1])
    with no_warnings():
        assert c.load(KEY) is None


def test_corrupted_body_is_a_miss(c):
    path = c.store(KEY, SOURCE)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x01
    path.write_bytes(bytes(data))
    with no_warnings():
        assert c.load(KEY) is None


def test_header_naming_another_key_is_a_miss(c):
    other = cache_key("other")
    c.store(other, SOURCE)
    c.path_for(KEY).write_bytes(c.path_for(other).read_bytes())
    os.chmod(c.path_for(KEY), 0o600)
    with no_warnings():
        assert c.load(KEY) is None


def test_body_that_is_not_utf8_is_a_miss(c):
    path = c.store(KEY, SOURCE)
    body = b"x = '\xff'\n"
    path.write_bytes(f"# vectorizer-cache {KEY} {hashlib.sha256(body).hexdigest()}\n".encode() + body)
    with no_warnings():
        assert c.load(KEY) is None


# -- safety refusals ----------------------------------------------------------------------------


def test_world_writable_cache_directory_is_refused_once(c):
    c.store(KEY, SOURCE)
    os.chmod(c.directory(), 0o777)
    with pytest.warns(CacheWarning, match=r"world-writable \(mode 0o777\).*runs uncached"):
        assert c.load(KEY) is None
    with no_warnings():  # once per process
        assert c.load(KEY) is None
        assert c.store(KEY, SOURCE) is None


def test_world_writable_root_is_refused_before_writing_into_it(c):
    c.root.mkdir(mode=0o700)
    os.chmod(c.root, 0o777)
    with pytest.warns(CacheWarning, match="world-writable"):
        assert c.store(KEY, SOURCE) is None
    assert not c.directory().exists()


def test_group_writable_entry_is_refused(c):
    path = c.store(KEY, SOURCE)
    os.chmod(path, 0o620)
    with pytest.warns(CacheWarning, match=r"cache entry .* group- or world-writable"):
        assert c.load(KEY) is None


def test_symlinked_entry_is_refused(c, tmp_path):
    path = c.store(KEY, SOURCE)
    elsewhere = tmp_path / "planted.py"
    os.replace(path, elsewhere)  # a valid entry, but reached through a link
    path.symlink_to(elsewhere)
    with pytest.warns(CacheWarning, match=r"cache entry .* is a symlink"):
        assert c.load(KEY) is None


@pytest.mark.parametrize("which", ["root", "versioned"])
def test_symlinked_cache_directory_is_refused(tmp_path, which):
    real = CodeCache(tmp_path / "real")
    real.store(KEY, SOURCE)
    link = tmp_path / "link"
    if which == "root":
        link.symlink_to(real.root, target_is_directory=True)
        c = CodeCache(link)
    else:
        link.mkdir(mode=0o700)
        (link / real.directory().name).symlink_to(real.directory(), target_is_directory=True)
        c = CodeCache(link)
    with pytest.warns(CacheWarning, match=r"cache directory .* is a symlink"):
        assert c.load(KEY) is None
    assert c.store(KEY, SOURCE) is None


def test_directory_owned_by_another_user_is_refused(c):
    c.store(KEY, SOURCE)
    chown_or_skip(c.directory())
    with pytest.warns(CacheWarning, match=rf"owned by uid {OTHER_UID}, not by you"):
        assert c.load(KEY) is None
    assert c.store(KEY, SOURCE) is None


def test_entry_owned_by_another_user_is_refused(c):
    path = c.store(KEY, SOURCE)
    chown_or_skip(path)
    with pytest.warns(CacheWarning, match=rf"cache entry .* owned by uid {OTHER_UID}"):
        assert c.load(KEY) is None


# -- unwritable caches --------------------------------------------------------------------------


def leftovers(directory: Path) -> list[str]:
    # .usage: the size bound's count; CACHEDIR.TAG: the mark that the directory is vectorizer's
    return [p.name for p in directory.iterdir() if not p.name.startswith("vz_") and p.name not in (".usage", "CACHEDIR.TAG")] \
        if directory.exists() else []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root ignores permission bits; the EROFS test below covers root")
def test_read_only_cache_directory_real(c):
    c.store(KEY, SOURCE)
    os.chmod(c.directory(), 0o500)
    try:
        with pytest.warns(CacheWarning, match="cannot write"):
            assert c.store(cache_key("new"), SOURCE) is None
        assert c.load(KEY) == SOURCE
    finally:
        os.chmod(c.directory(), 0o700)


def test_read_only_filesystem_store_warns_and_returns_none(c, monkeypatch):
    c.store(KEY, SOURCE)

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.warns(CacheWarning, match="Read-only file system.*runs uncached"):
        assert c.store(cache_key("new"), SOURCE) is None
    assert c.load(KEY) == SOURCE


def test_cache_root_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    c = CodeCache(blocker / "cache")
    with pytest.warns(CacheWarning, match="cannot write"):
        assert c.store(KEY, SOURCE) is None
    with no_warnings():
        assert c.load(KEY) is None


def test_failed_write_leaves_no_temp_file(c, monkeypatch):
    c.store(KEY, SOURCE)

    real_fdopen = os.fdopen

    class DiskFull:  # the temp file is created, then writing it fails
        def __init__(self, file):
            self.file = file

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: DiskFull(real_fdopen(fd, mode)))
    with pytest.warns(CacheWarning, match="No space left"):
        assert c.store(cache_key("new"), SOURCE) is None
    assert leftovers(c.directory()) == []
    assert not c.path_for(cache_key("new")).exists()


# -- clean, locations, numba --------------------------------------------------------------------


def test_clean_removes_entries_only_and_never_follows_links(c, tmp_path):
    """Only vectorizer's files go (issue 49 row 6: tests/core/test_cache_clear.py has the rest): a
    symlink is neither followed nor removed, a file vectorizer did not write stays, and so does
    the (marked) directory that holds it; each is reported."""
    for i in range(3):
        c.store(cache_key(str(i)), SOURCE)
    (c.directory() / ".tmp-abandoned.part").write_text("half")
    (c.directory() / "__pycache__").mkdir()
    (c.directory() / "__pycache__" / f"vz_{KEY}.f-1.py311.nbi").write_bytes(b"index")
    (c.directory() / "__pycache__" / "vz_x.f-1.py311.nbi").write_bytes(b"not an entry's name")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "vz_keep.py").write_text("keep")
    (c.directory() / "link").symlink_to(outside, target_is_directory=True)
    (c.root / "users-notes.txt").write_text("not ours to delete")
    cleared = c.clean()
    assert (cleared.entries, cleared.refused) == (3, None)
    assert cleared.files == 3 + 3  # the entries (never loaded: no compiled code); .usage, the temp file, the Numba index
    assert sorted(Path(k.split(" (")[0]).name for k in cleared.kept) == ["link", "users-notes.txt", "vz_x.f-1.py311.nbi"]
    assert sorted(p.name for p in c.directory().rglob("*")) == ["CACHEDIR.TAG", "__pycache__", "link", "vz_x.f-1.py311.nbi"]
    assert (outside / "vz_keep.py").read_text() == "keep"
    assert (c.root / "users-notes.txt").exists() and not (c.root / "CACHEDIR.TAG").exists()  # backups keep the notes
    assert c.clean().entries == 0 and c.load(cache_key("0")) is None
    for path in (c.directory() / "link", c.directory() / "__pycache__" / "vz_x.f-1.py311.nbi"):
        path.unlink()
    assert c.clean().kept == ()
    assert sorted(p.name for p in c.root.iterdir()) == ["users-notes.txt"]  # its tag went with the first clean
    (c.root / "users-notes.txt").unlink()
    c.store(KEY, SOURCE)  # a root vectorizer did not create (it exists): marked no more, never removed
    assert c.clean().entries == 1 and c.root.exists() and list(c.root.iterdir()) == []


def test_clean_refuses_a_symlinked_root(tmp_path):
    real = CodeCache(tmp_path / "real")
    real.store(KEY, SOURCE)
    (tmp_path / "link").symlink_to(real.root, target_is_directory=True)
    with pytest.warns(CacheWarning, match="is a symlink"):
        cleared = CodeCache(tmp_path / "link").clean()
    assert (cleared.entries, cleared.files) == (0, 0) and "is a symlink" in cleared.refused
    assert real.load(KEY) == SOURCE


def test_location_follows_the_environment(tmp_path, monkeypatch):
    import platformdirs

    assert cache.default_cache().root == tmp_path / "cache"
    assert cache.default_cache().directory() == tmp_path / "cache" / f"v{cache.SCHEMA}"
    monkeypatch.delenv("VECTORIZER_CACHE_DIR")
    assert cache.cache_root() == Path(platformdirs.user_cache_dir("vectorizer"))
    # Linux computes it without importing platformdirs: the same answer for each XDG_CACHE_HOME.
    for xdg in (str(tmp_path / "xdg"), "", "   ", None):
        if xdg is None:
            monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_CACHE_HOME", xdg)
        assert cache.cache_root() == Path(platformdirs.user_cache_dir("vectorizer")), xdg


def test_numba_cache_problem(c, tmp_path):
    path = c.store(KEY, SOURCE)
    assert numba_cache_problem(path) is None
    pycache = path.parent / "__pycache__"
    assert stat.S_IMODE(pycache.stat().st_mode) == 0o700
    os.chmod(pycache, 0o777)
    with pytest.warns(CacheWarning, match="world-writable"):
        assert numba_cache_problem(path)[0] is True  # unsafe
    pycache.rmdir()
    pycache.symlink_to(tmp_path, target_is_directory=True)
    assert numba_cache_problem(path)[0] is True  # warned once per process already
    pycache.unlink()
    pycache.write_text("a file where the directory should be")
    assert numba_cache_problem(path)[0] is False  # unusable, not unsafe
    pycache.unlink()
    pycache.mkdir()
    (pycache / f"{path.stem}.f-3.py311.nbi").write_bytes(b"")
    os.chmod(pycache / f"{path.stem}.f-3.py311.nbi", 0o646)
    assert numba_cache_problem(path)[0] is True


@pytest.mark.numba
@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="Numba is not installed")
def test_numba_writes_its_cache_beside_the_entry(c, monkeypatch):
    from vectorizer.backends.numba import jit

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    text = "import numba\n\nNUMBA_CACHE = True\n\n\n@numba.njit(cache=NUMBA_CACHE)\ndef add(a, b):\n    return a + b\n"
    key = cache_key("numba entry", text)
    assert jit.load(text, key, "add")(2, 3) == 5  # the engine's path: the entry is checked first
    path = c.path_for(key)
    assert any(p.suffix == ".nbi" for p in (path.parent / "__pycache__").iterdir())


# -- concurrency --------------------------------------------------------------------------------

WORKER = r"""
import hashlib, os, sys, time, types
package, index, go, root = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
stub = types.ModuleType("vectorizer"); stub.__path__ = [package]  # skip the heavy package import
sys.modules["vectorizer"] = stub
from vectorizer.core.cache import CodeCache

def key(k): return hashlib.sha256(b"entry %d" % k).hexdigest()
def source(k): return "VALUE = %d\n" % k + "# padding line\n" * (300 * (k % 7))

c = CodeCache(root)
deadline = time.monotonic() + 20
while not os.path.exists(go) and time.monotonic() < deadline:
    time.sleep(0.001)
for k in range(25 * index, 25 * index + 50):
    assert c.store(key(k), source(k)) is not None, k
    seen = c.load(key(k + 25))  # the neighbour may be writing it right now
    assert seen is None or seen == source(k + 25), k + 25
    try:  # and the raw file, if there, is never partial
        head, _, body = c.path_for(key(k + 25)).read_bytes().partition(b"\n")
    except FileNotFoundError:
        continue
    assert body == source(k + 25).encode(), "partial entry seen: %d bytes" % len(body)
    assert head.split()[-1].decode() == hashlib.sha256(body).hexdigest()
"""


def test_many_processes_storing_at_once(tmp_path):
    root, go = tmp_path / "shared", tmp_path / "go"
    package = str(Path(cache.__file__).parent.parent)
    workers = [subprocess.Popen([sys.executable, "-W", "error", "-c", WORKER, package, str(i), str(go),
                                 str(root)], stderr=subprocess.PIPE, text=True) for i in range(8)]
    time.sleep(0.05)
    go.touch()
    for worker in workers:
        _, err = worker.communicate(timeout=60)
        assert worker.returncode == 0, err
    c = CodeCache(root)
    for k in range(25 * 7 + 50):
        expected = f"VALUE = {k}\n" + "# padding line\n" * (300 * (k % 7))
        assert c.load(hashlib.sha256(f"entry {k}".encode()).hexdigest()) == expected, k
    assert leftovers(c.directory()) == []
    assert len([p for p in c.directory().iterdir() if p.name not in (".usage", "CACHEDIR.TAG")]) == 225
