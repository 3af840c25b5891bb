"""The cache's security holes of issue 28, reproduced with real processes, a real second user and
real moved, copied and read-only directories (docs/security.md is the threat model):

1. compiled code kept the absolute path it was first written under, so Numba followed it to a
   directory another user could re-create and planted pickles ran as the victim;
2. Numba's own index and data pickles were loaded whatever their owner, mode or type;
3. a moved or copied cache broke every Numba call, or read Numba's files from the old place;
4. a compiled file with valid digests but foreign code raised KeyError instead of being a miss.

A planted pickle runs `exec` when unpickled and writes a marker file; "it did not run" is "the
marker does not exist". Results are compared with the scalar function run lane by lane.
"""

from __future__ import annotations

import json
import marshal
import math
import os
import pickle
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import types
import uuid
from pathlib import Path

import pytest

from vectorizer.core import cache
from vectorizer.core.cache import CacheWarning, CodeCache, cache_key

MODULE = '''\
import math


def branchy(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):
        total += math.sqrt(abs(x) + i)
        if total > 10.0:
            break
    return total
'''
X = [0.5, -1.5, 4.0, math.nan, math.inf, -0.0, 5e-324, 1e308]
N = [3, 0, 9, 2, 2, 1, 4, 3]

DRIVER = r'''
import json, sys, warnings
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["path"])
import numpy as np
from vectorizer import vectorize
import kmod
out = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    vf = vectorize(kmod.branchy, backend=spec["backend"])
    try:
        out["result"] = [repr(v) for v in vf(np.array(spec["x"]), np.array(spec["n"])).tolist()]
    except Exception as exc:  # reported, so a test can say which error reached the caller
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["backend"] = vf.backend
    if "result" in out:  # the file the running code names (tracebacks, Numba's locator)
        out["filename"] = vf._kernels[vf._last].fn.__code__.co_filename
    if "result" in out and vf.backend == "numba":
        module = vf._kernels[vf._last].fn.__globals__
        found = [v for v in module.values() if hasattr(v, "stats") and hasattr(v, "signatures")]
        out["hits"] = sum(sum(d.stats.cache_hits.values()) for d in found)
        out["misses"] = sum(sum(d.stats.cache_misses.values()) for d in found)
        out["cache_paths"] = sorted({str(d.stats.cache_path) for d in found})
out["warnings"] = [[w.category.__name__, str(w.message)] for w in caught
                   if w.category.__name__ in ("CacheWarning", "JitWarning", "FallbackWarning")]
print(json.dumps(out))
'''

NUMBA = pytest.mark.numba


def oracle() -> list[str]:
    namespace: dict = {}
    exec(MODULE, namespace)  # noqa: S102 - the scalar function itself, lane by lane
    return [repr(namespace["branchy"](x, n)) for x, n in zip(X, N)]


def needs_numba() -> None:
    pytest.importorskip("numba")


class Project:
    """kmod.py in a directory of its own; `run` calls vectorize(kmod.branchy) in a new process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.src = root / "src"
        self.src.mkdir()
        (self.src / "kmod.py").write_text(MODULE)

    def run(self, cache_dir: Path, backend: str = "numba", wrap: list[str] | None = None, **env: str) -> dict:
        spec = {"path": str(self.src), "backend": backend, "x": X, "n": N}
        environ = {k: v for k, v in os.environ.items()
                   if not k.startswith(("NUMBA_", "VECTORIZER_DISABLE", "VECTORIZER_DUMP"))}
        environ.update(VECTORIZER_CACHE_DIR=str(cache_dir), PYTHONDONTWRITEBYTECODE="1", **env)
        command = [*(wrap or []), sys.executable, "-c", DRIVER, json.dumps(spec)]
        done = subprocess.run(command, cwd=self.src, env=environ, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def assert_right(report: dict) -> None:
    assert "error" not in report, report["error"]
    assert report["result"] == oracle()


def numba_files(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / f"v{cache.SCHEMA}" / "__pycache__").glob("vz_*.nb[ic]"))


class Marker:
    """A pickle that, when loaded, writes `path` (with the loader's uid) by calling exec."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return exec, (f"open({str(self.path)!r}, 'w').write(str(__import__('os').getuid()))",)


def planted_pickle(marker: Path) -> bytes:
    return pickle.dumps(Marker(marker))


# -- a second user ---------------------------------------------------------------------------------

def as_nobody(command: str) -> subprocess.CompletedProcess:
    """Run a shell command as the user nobody (setpriv, else su); skip where that is impossible."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("switching to another user needs root")
    try:
        user = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' on this machine")
    tries = [["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "sh", "-c"],
             ["su", "-s", "/bin/sh", "nobody", "-c"]]
    for prefix in tries:
        if shutil.which(prefix[0]):
            done = subprocess.run([*prefix, command], capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, (prefix, done.stderr)
            return done
    pytest.skip("neither setpriv nor su is available")


@pytest.fixture
def shared_tmp():
    """A fresh path directly in the system temporary directory, which every user may write in
    (sticky): where another user can re-create a directory once its owner has removed it."""
    base = Path(tempfile.gettempdir())
    mode = os.stat(base).st_mode
    if not (mode & stat.S_IWOTH and mode & stat.S_ISVTX):
        pytest.skip(f"{base} is not a world-writable sticky directory")
    paths = [base / f"vz-sec-{uuid.uuid4().hex}" for _ in range(2)]
    yield paths
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


# -- 1. code planted at the old path of a moved cache must never run ------------------------------

@NUMBA
def test_pickle_planted_by_another_user_at_the_old_path_never_runs(project, tmp_path, shared_tmp):
    needs_numba()
    old, staging = shared_tmp
    moved = tmp_path / "moved"
    marker = tmp_path / "marker"  # in a directory only root may write: it appears only if root runs the pickle
    first = project.run(old)
    assert_right(first)
    assert first["cache_paths"] == [str(old / "v1" / "__pycache__")]
    shutil.move(old, moved)
    names = [p.name for p in numba_files(moved)]
    entry = next((moved / "v1").glob("vz_*.py")).name
    assert names
    staging.mkdir(mode=0o755)
    os.chmod(staging, 0o755)
    (staging / "evil").write_bytes(planted_pickle(marker))
    os.chmod(staging / "evil", 0o644)
    pycache = old / "v1" / "__pycache__"
    copies = " && ".join(f"cp {staging / 'evil'} {pycache / n}" for n in names)
    as_nobody(f"mkdir -p {pycache} && echo 'x = 1' > {old / 'v1' / entry} && {copies}")
    assert os.stat(pycache / names[0]).st_uid != 0  # really planted by someone else

    report = project.run(moved)
    assert not marker.exists(), f"the planted pickle ran as uid {marker.read_text()}"
    assert_right(report)
    assert report["cache_paths"] == [str(moved / "v1" / "__pycache__")]  # only the directory in use
    assert report["hits"] >= 1 and report["misses"] == 0  # and the moved cache still serves
    assert report["warnings"] == []
    assert sorted(p.name for p in pycache.iterdir()) == sorted(names)  # theirs: left alone


# -- 2. Numba's own files are checked like the cache's ------------------------------------------

@NUMBA
@pytest.mark.parametrize("state, says", [("foreign", "owned by uid"), ("writable", "world-writable"),
                                         ("symlink", "is a symlink"), ("hardlink", "hard links")])
def test_unsafe_numba_cache_files_are_never_loaded(project, tmp_path, state, says):
    needs_numba()
    if state == "foreign" and (not hasattr(os, "geteuid") or os.geteuid() != 0):
        pytest.skip("giving a file to another user needs root")
    cache_dir = tmp_path / "cache"
    assert_right(project.run(cache_dir))
    marker = tmp_path / "marker"
    evil = tmp_path / "evil.pickle"
    evil.write_bytes(planted_pickle(marker))
    os.chmod(evil, 0o600)
    files = numba_files(cache_dir)
    assert files
    for f in files:
        f.unlink()
        if state == "symlink":
            f.symlink_to(evil)
        elif state == "hardlink":
            os.link(evil, f)
        else:
            shutil.copy(evil, f)
            if state == "foreign":
                os.chown(f, pwd.getpwnam("nobody").pw_uid, -1)
            else:
                os.chmod(f, 0o666)
    before = {f: os.lstat(f) for f in files}

    report = project.run(cache_dir)
    assert not marker.exists(), f"a {state} Numba cache file was unpickled"
    assert_right(report)
    assert report["backend"] == "numba" and report["hits"] == 0
    cache_warnings = [w for w in report["warnings"] if w[0] == "CacheWarning"]
    assert len(cache_warnings) == 1 and says in cache_warnings[0][1], report["warnings"]
    assert [w for w in report["warnings"] if w[0] != "CacheWarning"] == []
    after = {f: os.lstat(f) for f in files}  # nothing deleted or replaced
    assert {f: (s.st_ino, s.st_uid, s.st_mode) for f, s in after.items()} == \
        {f: (s.st_ino, s.st_uid, s.st_mode) for f, s in before.items()}


# -- 3. moved, copied, read-only: a miss or a warning, never an error, never a read outside -------

@NUMBA
@pytest.mark.parametrize("backend", ["numba", "auto"])
def test_a_moved_cache_serves_numba_from_its_new_place(project, tmp_path, backend):
    needs_numba()
    old, new = tmp_path / "old", tmp_path / "new"
    first = project.run(old, backend)
    assert_right(first)
    assert first["backend"] == "numba"
    old.rename(new)
    report = project.run(new, backend)
    assert_right(report)
    assert report["backend"] == "numba"
    assert report["cache_paths"] == [str(new / "v1" / "__pycache__")]
    assert report["filename"].startswith(str(new / "v1" / "vz_"))
    assert report["hits"] >= 1 and report["misses"] == 0 and report["warnings"] == []
    assert not old.exists()  # nothing written at the old place either


@NUMBA
def test_a_copied_cache_never_reads_the_original(project, tmp_path):
    needs_numba()
    original, copy = tmp_path / "original", tmp_path / "copy"
    assert_right(project.run(original))
    shutil.copytree(original, copy, symlinks=True)
    marker = tmp_path / "marker"
    for f in numba_files(original):  # the original (ours, private) now holds pickles that would run
        f.write_bytes(planted_pickle(marker))
    report = project.run(copy)
    assert not marker.exists(), "the copy read Numba's files from the original directory"
    assert_right(report)
    assert report["cache_paths"] == [str(copy / "v1" / "__pycache__")]
    assert report["hits"] >= 1 and report["misses"] == 0 and report["warnings"] == []


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=NUMBA)])
def test_a_read_only_mounted_copy_runs_from_where_it_is_mounted(project, tmp_path, backend):
    if backend == "numba":
        needs_numba()
    if not shutil.which("unshare") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root and unshare")
    original, copy, mount = tmp_path / "original", tmp_path / "copy", tmp_path / "mount"
    assert_right(project.run(original, backend))
    shutil.copytree(original, copy, symlinks=True)
    shutil.rmtree(original)
    mount.mkdir()
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind -o ro {copy} {mount}"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a read-only bind mount here: {probe.stderr.strip()}")
    before = sorted(p.relative_to(copy) for p in copy.rglob("*"))
    wrap = ["unshare", "-m", "sh", "-c", f'mount --bind -o ro {copy} {mount} && exec "$@"', "sh"]
    report = project.run(mount, backend, wrap=wrap)
    assert_right(report)
    assert report["backend"] == backend
    if backend == "numba":  # Numba could not save what it compiles: it runs without its cache
        assert [w[0] for w in report["warnings"]] == ["JitWarning"], report["warnings"]
        assert "cannot write its cache" in report["warnings"][0][1]
    else:
        assert report["warnings"] == []
    assert report["filename"].startswith(str(mount / "v1" / "vz_"))  # not the directory it was written in
    assert not original.exists()
    assert sorted(p.relative_to(copy) for p in copy.rglob("*")) == before


# -- 4. a forged compiled file is a miss -----------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=NUMBA)])
def test_forged_compiled_code_with_valid_digests_is_a_miss(project, tmp_path, backend):
    if backend == "numba":
        needs_numba()
    cache_dir = tmp_path / "cache"
    assert_right(project.run(cache_dir, backend))
    forged = []
    for code_file in (cache_dir / "v1").glob("vz_*.code"):
        data = code_file.read_bytes()
        entry = code_file.with_name(code_file.name.split(".")[0] + ".py")
        dumped = marshal.dumps(compile("x = 1\n", str(entry), "exec"))
        import hashlib

        code_file.write_bytes(data[:65] + hashlib.sha256(dumped).hexdigest().encode() + b"\n" + dumped)
        forged.append(code_file)
    assert forged
    report = project.run(cache_dir, backend)
    assert_right(report)
    assert report["backend"] == backend and report["warnings"] == []
    for code_file in forged:  # replaced by code compiled from the entry
        assert "VECTORIZER_RESULT" in marshal.loads(code_file.read_bytes()[130:]).co_names


def test_forged_compiled_code_is_recompiled_in_process(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_warned", set())
    store = CodeCache(tmp_path / "cache")
    key = cache_key("forged")
    source = "VECTORIZER_RESULT = ('x',)\n\n\ndef f(x):\n    return x + 1\n"
    path = store.store(key, source)
    store.load_code(key)
    code_file = path.with_suffix(f".{sys.implementation.cache_tag}.code")
    data = code_file.read_bytes()
    dumped = marshal.dumps(compile("import os\n", str(path), "exec"))
    import hashlib

    code_file.write_bytes(data[:65] + hashlib.sha256(dumped).hexdigest().encode() + b"\n" + dumped)
    namespace: dict = {}
    exec(store.load_code(key), namespace)  # noqa: S102
    assert namespace["f"](1) == 2 and namespace["VECTORIZER_RESULT"] == ("x",) and "os" not in namespace


# -- compiled code follows the directory in use ------------------------------------------------------

def code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def test_compiled_code_names_the_entry_in_the_directory_in_use(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_warned", set())
    key = cache_key("moved")
    source = "def outer(x):\n    def inner(y):\n        return [z for z in (y,)][0] / 0\n    return inner(x)\n"
    old = CodeCache(tmp_path / "old")
    old.store(key, source)
    assert {c.co_filename for c in code_objects(old.load_code(key))} == {str(old.path_for(key))}
    (tmp_path / "old").rename(tmp_path / "new")
    new = CodeCache(tmp_path / "new")
    code = new.load_code(key)
    assert len(list(code_objects(code))) >= 4
    assert {c.co_filename for c in code_objects(code)} == {str(new.path_for(key))}
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102
    with pytest.raises(ZeroDivisionError) as info:
        namespace["outer"](1.0)
    assert {str(entry.path) for entry in info.traceback[1:]} == {str(new.path_for(key))}
    stored = marshal.loads(new.path_for(key).with_suffix(f".{sys.implementation.cache_tag}.code").read_bytes()[130:])
    assert {c.co_filename for c in code_objects(stored)} == {str(new.path_for(key))}  # written back


def test_hard_linked_entry_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_warned", set())
    store = CodeCache(tmp_path / "cache")
    key = cache_key("linked")
    path = store.store(key, "X = 1\n")
    os.link(path, tmp_path / "elsewhere.py")
    with pytest.warns(CacheWarning, match="2 hard links"):
        assert store.load(key) is None
    assert (tmp_path / "elsewhere.py").exists() and path.exists()  # neither removed


# -- Numba's locator: our entries, our directory, nowhere else --------------------------------------

@NUMBA
def test_numba_cache_dir_does_not_take_our_entries(project, tmp_path):
    needs_numba()
    cache_dir, numba_dir = tmp_path / "cache", tmp_path / "numba-cache"
    for _ in range(2):
        report = project.run(cache_dir, NUMBA_CACHE_DIR=str(numba_dir))
        assert_right(report)
        assert report["cache_paths"] == [str(cache_dir / "v1" / "__pycache__")]
    assert report["hits"] >= 1 and report["misses"] == 0
    assert not numba_dir.exists() or not list(numba_dir.rglob("*.nb[ic]"))


@NUMBA
@pytest.mark.parametrize("value, cached", [("InTreeCacheLocator", False),
                                           ("vectorizer.backends.numba.jit.NumbaCacheLocator,InTreeCacheLocator", True)])
def test_numba_cache_locator_classes_override(project, tmp_path, value, cached):
    needs_numba()
    cache_dir = tmp_path / "cache"
    for _ in range(2):
        report = project.run(cache_dir, NUMBA_CACHE_LOCATOR_CLASSES=value)
        assert_right(report)
    if cached:
        assert report["hits"] >= 1 and report["warnings"] == []
        assert report["cache_paths"] == [str(cache_dir / "v1" / "__pycache__")]
    else:
        assert report["hits"] == 0 and not numba_files(cache_dir)
        assert [w[0] for w in report["warnings"]] == ["JitWarning"]
        assert "NUMBA_CACHE_LOCATOR_CLASSES" in report["warnings"][0][1]


LOOSE = r'''
import importlib.util, sys
from vectorizer.backends.numba import jit
jit._install_locator()
spec = importlib.util.spec_from_file_location("loose", sys.argv[1])
try:
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
except jit.CacheRefused as exc:
    print("refused:", exc)
'''


@NUMBA
def test_an_entry_outside_the_directory_in_use_is_never_cached(tmp_path):
    needs_numba()
    loose = tmp_path / "elsewhere" / f"vz_{cache_key('loose')}.py"
    loose.parent.mkdir()
    loose.write_text("import numba\n\n\n@numba.njit(cache=True)\ndef f(x):\n    return x + 1\n")
    home, numba_dir = tmp_path / "home", tmp_path / "numba-cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(VECTORIZER_CACHE_DIR=str(tmp_path / "cache"), HOME=str(home), NUMBA_CACHE_DIR=str(numba_dir),
               XDG_CACHE_HOME=str(home / ".cache"))
    done = subprocess.run([sys.executable, "-c", LOOSE, str(loose)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused:") and str(loose) in done.stdout
    assert sorted(p.name for p in loose.parent.iterdir()) == [loose.name]
    assert not numba_dir.exists() and not home.exists()
