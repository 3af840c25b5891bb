"""The disk cache end to end, with real processes: a warm process neither transforms nor lets
Numba recompile; eight cold processes at once leave a consistent cache; a truncated, unsafe
(world-writable, symlinked, foreign-owned) entry or directory is a miss or refused with a
warning, and the call still returns the right answer; an edit to a callee invalidates the caller.

Each test runs `DRIVER` (below) in fresh interpreters against its own VECTORIZER_CACHE_DIR. The
driver reports, as JSON, the results, the warnings, whether the transformer (libcst, the passes)
was imported, and Numba's cache statistics summed over the generated module's dispatchers.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vectorizer.core import cacheformat
from vectorizer.core.cache import CodeCache

OTHER_UID = 65534  # nobody

MODULE = '''\
import math

SCALE = 2.0


def helper(x: float) -> float:
    return x + 1.0


def caller(x: float) -> float:
    return helper(x) * SCALE


def unrelated(x: float) -> float:
    return x - 1.0


def branchy(x: float, n: int) -> float:
    total = 0.0
    for i in range(n):
        total += math.sqrt(abs(x) + i)
        if total > 10.0:
            break
    return total
'''

X = [0.5, -1.5, 4.0]
N = [3, 0, 9]

DRIVER = r'''
import json, os, sys, time, warnings
t0 = time.perf_counter()
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["path"])
import numpy as np
import vectorizer
from vectorizer import vectorize
import_seconds = time.perf_counter() - t0
mod = __import__(spec["module"])
if spec.get("start_at"):  # line the processes up so they really race
    while time.time() < spec["start_at"]:
        time.sleep(0.001)
out = {"calls": [], "import_seconds": import_seconds}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name, backend, args in spec["calls"]:
        vf = vectorize(getattr(mod, name), backend=backend)
        t = time.perf_counter()
        result = vf(*[np.asarray(a) for a in args])
        call = {"name": name, "backend": vf.backend, "result": result.tolist(),
                "seconds": time.perf_counter() - t}
        if vf.backend == "numba":
            module = vf._kernels[vf._last].fn.__globals__
            dispatchers = {k: v for k, v in module.items() if hasattr(v, "stats") and hasattr(v, "signatures")}
            call["numba_hits"] = sum(sum(d.stats.cache_hits.values()) for d in dispatchers.values())
            call["numba_misses"] = sum(sum(d.stats.cache_misses.values()) for d in dispatchers.values())
            call["numba_cache_path"] = next(iter(dispatchers.values())).stats.cache_path
        out["calls"].append(call)
out["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
out["libcst"] = "libcst" in sys.modules
out["passes"] = sorted(m for m in sys.modules if m.startswith(("vectorizer.passes", "vectorizer.pipeline")))
out["vectorizer_modules"] = sorted(m for m in sys.modules if m.startswith("vectorizer."))
out["seconds"] = time.perf_counter() - t0
print(json.dumps(out))
'''


def expected(name: str, helper_add: float = 1.0, scale: float = 2.0) -> list[float]:
    import math

    if name == "caller":
        return [(x + helper_add) * scale for x in X]
    if name == "unrelated":
        return [x - 1.0 for x in X]
    out = []
    for x, n in zip(X, N):
        total = 0.0
        for i in range(n):
            total += math.sqrt(abs(x) + i)
            if total > 10.0:
                break
        out.append(total)
    return out


def call(name: str, backend: str) -> list:
    return [name, backend, [X] if name != "branchy" else [X, N]]


class Project:
    """A source module in a directory of its own, and a cache directory for the processes."""

    def __init__(self, root: Path) -> None:
        self.engine = engine_sources()
        self.src = root / "src"
        self.src.mkdir()
        (self.src / "kmod.py").write_text(MODULE)
        self.cache_dir = root / "cache"
        self.cache = CodeCache(self.cache_dir)

    def edit(self, old: str, new: str) -> None:
        path = self.src / "kmod.py"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    def spawn(self, calls: list, **extra) -> subprocess.Popen:
        spec = {"path": str(self.src), "module": "kmod", "calls": calls, **extra}
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(VECTORIZER_CACHE_DIR=str(self.cache_dir), PYTHONDONTWRITEBYTECODE="1")
        env.pop("VECTORIZER_DISABLE", None)
        env.pop("VECTORIZER_DUMP_AFTER", None)
        return subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps(spec)], cwd=self.src, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def run(self, calls: list, **extra) -> dict:
        report = finish(self.spawn(calls, **extra))
        self.check_engine()
        return report

    def check_engine(self) -> None:
        """The cache key covers vectorizer's own source: if it was edited while this test ran
        (development with several people at work), cold/warm comparisons mean nothing."""
        if engine_sources() != self.engine:
            pytest.skip("vectorizer's source changed while the test ran; run it again")

    def entries(self) -> dict[str, bytes]:
        directory = self.cache.directory()
        return {p.name: p.read_bytes() for p in sorted(directory.glob("vz_*.py"))} if directory.exists() else {}

    def verify_all(self) -> None:
        """Every entry reads back (header, key, checksum) and compiles; beside it at most its
        compiled code, and the size bound's count (.usage, private); nothing else lies around."""
        directory = self.cache.directory()
        names = sorted(os.listdir(directory))
        code = f".{sys.implementation.cache_tag}.code"
        if ".usage" in names:
            names.remove(".usage")
            assert set(json.loads((directory / ".usage").read_text())) == {"bytes", "writes"}
            assert stat.S_IMODE(os.stat(directory / ".usage").st_mode) == 0o600
        names.remove("CACHEDIR.TAG")  # the mark that makes it vectorizer's to clear (cacheformat.py)
        assert cacheformat.marked(directory) and stat.S_IMODE(os.stat(directory / "CACHEDIR.TAG").st_mode) == 0o600
        assert names and all(n.startswith("vz_") and n.endswith((".py", code)) or n == "__pycache__" for n in names), names
        assert all(n.removesuffix(code) + ".py" in names for n in names if n.endswith(code)), names
        for name in names:
            if name.endswith(code):
                assert stat.S_IMODE(os.stat(directory / name).st_mode) == 0o600
            elif name.startswith("vz_"):
                key = name[3:-3]
                assert self.cache.load_code(key) is not None, f"entry {name} does not verify"
                assert stat.S_IMODE(os.stat(directory / name).st_mode) == 0o600
        for root, _, files in os.walk(self.cache_dir):
            assert not [f for f in files if "tmp" in f.lower() or f.endswith(".part")], (root, files)
        assert stat.S_IMODE(os.stat(self.cache_dir).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700


def engine_sources() -> str:
    """Names, sizes and modification times of vectorizer's files (what its cache key covers)."""
    import vectorizer

    root = Path(vectorizer.__file__).parent
    return "\n".join(f"{p.relative_to(root)}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
                     for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts)


def finish(proc: subprocess.Popen) -> dict:
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    return json.loads(stdout.strip().splitlines()[-1])


def ours(report: dict) -> list[list[str]]:
    """The warnings vectorizer itself gave (CacheWarning, JitWarning, FallbackWarning)."""
    return [w for w in report["warnings"] if w[0] in ("CacheWarning", "JitWarning", "FallbackWarning")]


def assert_correct(report: dict, names=("caller", "branchy"), **changes) -> None:
    by_name = {c["name"]: c for c in report["calls"]}
    for name in names:
        assert by_name[name]["result"] == expected(name, **changes), (name, by_name[name])


def assert_warm(report: dict) -> None:
    """Served from the cache: no transformation, and no Numba compilation."""
    assert not report["libcst"] and report["passes"] == [], report["passes"]
    for c in report["calls"]:
        if c["backend"] == "numba":
            assert c["numba_misses"] == 0 and c["numba_hits"] >= 1, c


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def numba_or_skip(backend: str) -> None:
    if backend == "numba":
        pytest.importorskip("numba")


BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]
BOTH = [call("caller", "numpy"), call("branchy", "numpy")]


# -- (a) a second process: no transformation, no Numba compilation ------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_second_process_is_served_from_the_cache(project, backend):
    numba_or_skip(backend)
    calls = [call("caller", backend), call("branchy", backend)]
    cold = project.run(calls)
    assert_correct(cold)
    assert cold["libcst"] and cold["passes"], "the first process must transform"
    if backend == "numba":
        assert all(c["numba_misses"] >= 1 and c["numba_hits"] == 0 for c in cold["calls"]), cold["calls"]
        assert all(c["numba_cache_path"] == str(project.cache.directory() / "__pycache__") for c in cold["calls"])
    assert ours(cold) == []
    entries = project.entries()
    assert len(entries) == 2
    mtimes = {p: p.stat().st_mtime_ns for p in project.cache_dir.rglob("*")}

    warm = project.run(calls)
    assert_correct(warm)
    assert_warm(warm)
    assert ours(warm) == []
    if backend == "numpy":  # the warm path loads neither the Numba glue nor numpy.vectorize's front
        assert not {"vectorizer.backends.numba.jit", "vectorizer.faces.npcompat"} & set(warm["vectorizer_modules"]), warm["vectorizer_modules"]
    assert project.entries() == entries  # nothing rewritten...
    assert {p: p.stat().st_mtime_ns for p in project.cache_dir.rglob("*")} == mtimes  # ...nothing touched
    project.verify_all()
    for label, report in (("cold", cold), ("warm", warm)):
        first = report["calls"][0]
        print(f"{backend} {label}: import {report['import_seconds']:.3f}s, first call {first['seconds']:.3f}s, "
              f"process {report['seconds']:.3f}s")


# -- (b) eight processes filling one cold cache at once ------------------------------------------
def test_eight_processes_fill_one_cold_cache_consistently(project):
    calls = [*BOTH, call("caller", "numba")] if _has_numba() else BOTH  # Numba's own cache races too
    start_at = time.time() + 1.5  # after every interpreter has started
    procs = [project.spawn(calls, start_at=start_at) for _ in range(8)]
    reports = [finish(p) for p in procs]
    project.check_engine()
    for report in reports:
        assert_correct(report)
        assert ours(report) == [], ours(report)
    assert len(project.entries()) == len(calls)
    project.verify_all()
    warm = project.run(calls)  # the cache they left is complete and usable
    assert_correct(warm)
    assert_warm(warm)


def _has_numba() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


# -- (c) damaged and unsafe caches: a miss or a refusal with a warning, never a wrong answer ------
@pytest.mark.parametrize("backend, keep", [
    ("numpy", 0), ("numpy", 40), ("numpy", -1),
    pytest.param("numba", -1, marks=pytest.mark.numba),
], ids=["numpy-empty", "numpy-header-only", "numpy-one-byte-short", "numba-one-byte-short"])
def test_truncated_entry_is_a_miss_and_is_regenerated(project, backend, keep):
    numba_or_skip(backend)
    calls = [call("caller", backend)]
    project.run(calls)
    (name, data), = project.entries().items()
    (project.cache.directory() / name).write_bytes(data[:keep])
    report = project.run(calls)
    assert_correct(report, names=("caller",))
    assert report["libcst"]  # a miss: transformed again
    assert [w for w in ours(report) if w[0] == "CacheWarning"] == []  # a plain miss needs no warning
    assert project.entries() == {name: data}  # regenerated, identical
    project.verify_all()
    assert_warm(project.run(calls))


@pytest.mark.numba
@pytest.mark.parametrize("which", ["nbi", "nbc"])
def test_truncated_numba_cache_file_is_a_miss(project, which):
    pytest.importorskip("numba")
    calls = [call("branchy", "numba")]
    project.run(calls)
    files = sorted((project.cache.directory() / "__pycache__").glob(f"*.{which}"))
    assert files
    for f in files:
        f.write_bytes(f.read_bytes()[: max(1, f.stat().st_size // 3)])
    report = project.run(calls)
    assert_correct(report, names=("branchy",))
    assert report["calls"][0]["numba_misses"] >= 1  # Numba compiled again instead of crashing
    assert_warm(project.run(calls))  # and saved a good copy


def test_world_writable_cache_directory_is_refused(project):
    backend = "numba" if _has_numba() else "numpy"
    calls = [call("caller", "numpy"), call("caller", backend)] if backend == "numba" else [call("caller", "numpy")]
    project.run(calls)
    entries = project.entries()
    os.chmod(project.cache.directory(), 0o777)
    report = project.run(calls)
    assert_correct(report, names=("caller",))
    assert report["libcst"]  # refused: the entries were not read
    cache_warnings = [w for w in ours(report) if w[0] == "CacheWarning"]
    assert len(cache_warnings) == 1, ours(report)  # once per process, not per function
    assert "world-writable" in cache_warnings[0][1] and str(project.cache.directory()) in cache_warnings[0][1]
    if backend == "numba":
        assert report["calls"][1]["backend"] == "numba"
        assert report["calls"][1]["numba_hits"] == 0  # Numba's pickles beside it were not read either
        # One cause, one warning: the CacheWarning says vectorizer runs uncached; the Numba loader
        # does not say it again (backends/numba/jit.py, core/cache.warned_unusable).
        assert not any(w[0] == "JitWarning" for w in ours(report)), ours(report)
    assert project.entries() == entries  # nothing written into an unsafe directory
    assert stat.S_IMODE(os.stat(project.cache.directory()).st_mode) == 0o777  # and not "fixed" behind our back


def test_symlinked_entry_is_refused_and_never_followed(project, tmp_path):
    calls = [call("caller", "numpy")]
    project.run(calls)
    (name, data), = project.entries().items()
    entry = project.cache.directory() / name
    # A planted, well-formed entry (valid header and checksum) that would give wrong answers.
    planted_body = data.split(b"\n", 1)[1].replace(b"2.0", b"-7.0").replace(b"SCALE", b"(-7.0)")
    import hashlib

    key = name[3:-3]
    planted = tmp_path / "planted.py"
    planted.write_bytes(f"# vectorizer-cache {key} {hashlib.sha256(planted_body).hexdigest()}\n".encode() + planted_body)
    os.chmod(planted, 0o600)
    entry.unlink()
    entry.symlink_to(planted)
    before = planted.read_bytes()
    report = project.run(calls)
    assert_correct(report, names=("caller",))
    warnings_ = [w for w in ours(report) if w[0] == "CacheWarning"]
    assert len(warnings_) == 1 and "symlink" in warnings_[0][1], ours(report)
    assert planted.read_bytes() == before  # the target was neither used nor written through


@pytest.mark.parametrize("what", ["directory", "entry"])
def test_cache_owned_by_another_user_is_refused(project, what):
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    calls = [call("caller", "numpy"), call("branchy", "numpy")]
    project.run(calls)
    entries = project.entries()
    target = project.cache.directory() if what == "directory" else project.cache.directory() / sorted(entries)[0]
    os.chown(target, OTHER_UID, -1, follow_symlinks=False)
    report = project.run(calls)
    assert_correct(report)
    warnings_ = [w for w in ours(report) if w[0] == "CacheWarning"]
    assert len(warnings_) == 1 and f"owned by uid {OTHER_UID}" in warnings_[0][1], ours(report)
    assert report["libcst"]
    if what == "directory":
        assert project.entries() == entries  # nothing written into someone else's directory
        assert os.stat(target).st_uid == OTHER_UID
    elif os.stat(target).st_uid != OTHER_UID:
        # The foreign entry sat in our own private directory; it was replaced (atomically) by a
        # fresh entry of ours, never read: the replacement must verify.
        project.verify_all()


# -- (d) editing a callee invalidates the caller's entry ------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_editing_a_callee_in_the_same_module_invalidates_the_caller(project, backend):
    numba_or_skip(backend)
    calls = [call("caller", backend), call("unrelated", backend)]
    first = project.run(calls)
    assert_correct(first, names=("caller", "unrelated"))
    before = project.entries()

    project.edit("return x + 1.0", "return x + 3.0")  # the callee only; `caller` is unchanged
    edited = project.run(calls)
    assert_correct(edited, names=("caller",), helper_add=3.0)
    assert_correct(edited, names=("unrelated",))
    by_name = {c["name"]: c for c in edited["calls"]}
    if backend == "numba":
        assert by_name["caller"]["numba_misses"] >= 1  # a new module, compiled afresh
        assert by_name["unrelated"]["numba_misses"] == 0  # its entry is still valid: reused
    after = project.entries()
    assert len(after) == len(before) + 1 and set(before) < set(after)

    project.edit("SCALE = 2.0", "SCALE = 0.5")  # a module constant the caller reads
    assert_correct(project.run(calls), names=("caller",), helper_add=3.0, scale=0.5)

    project.edit("return x - 1.0", "return x - 1.0  # a comment changes the source")
    report = project.run([call("caller", backend)])  # an edit elsewhere in the module: still cached
    assert_correct(report, names=("caller",), helper_add=3.0, scale=0.5)
    assert_warm(report)


# -- (e) Numba cannot write its own cache ----------------------------------------------------------
@pytest.mark.numba
def test_numba_without_a_writable_cache_warns_once_and_still_runs(project):
    pytest.importorskip("numba")
    directory = project.cache.directory()
    directory.mkdir(parents=True)
    os.chmod(project.cache_dir, 0o700)
    os.chmod(directory, 0o700)
    (directory / "__pycache__").write_text("not a directory")  # Numba cannot put its files here
    calls = [call("caller", "numba"), call("branchy", "numba")]
    for _ in range(2):
        report = project.run(calls)
        assert_correct(report)
        assert [c["backend"] for c in report["calls"]] == ["numba", "numba"]
        jit = [w for w in ours(report) if w[0] == "JitWarning"]
        assert len(jit) == 1 and "Numba cannot write its cache" in jit[0][1], ours(report)
        assert [w for w in ours(report) if w[0] != "JitWarning"] == []
        assert all(c["numba_hits"] == 0 for c in report["calls"])
    assert (directory / "__pycache__").read_text() == "not a directory"  # left alone
    assert len(project.entries()) == 2  # our own entries are still cached
    assert not report["libcst"]  # so the second process did not transform


@pytest.mark.numba
def test_numba_cache_directory_that_is_unsafe_is_not_used(project):
    pytest.importorskip("numba")
    calls = [call("caller", "numba")]
    project.run(calls)
    pycache = project.cache.directory() / "__pycache__"
    os.chmod(pycache, 0o777)  # someone else could plant pickles here
    report = project.run(calls)
    assert_correct(report, names=("caller",))
    assert len(ours(report)) == 1, ours(report)  # unsafe, not merely unwritable: one CacheWarning
    assert ours(report)[0][0] == "CacheWarning" and "world-writable" in ours(report)[0][1]
    assert report["calls"][0]["numba_hits"] == 0  # the pickles in it were not loaded
    shutil.rmtree(pycache)
