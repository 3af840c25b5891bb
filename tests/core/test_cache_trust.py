"""Issue 49, rows 5, 7 and 8: what the cache reads back is checked before it is used, and what it
cannot write costs a warning, never the compiled code. Real processes throughout (the driver and
`Project` of test_cache_integration.py): a crash in a child fails its test, never the runner.

5. One flipped byte in a Numba data file (``.nbc``) crashed every later process (SIGSEGV, or
   ``LLVM ERROR``) until the cache was cleared by hand: vectorizer now checksums each Numba file it
   lets Numba write and verifies it before Numba reads it, so a damaged file is a miss.
7. A forged entry with a valid checksum (its writer: the same user) let a raw KeyError,
   AttributeError or SyntaxError reach the caller: an entry of the wrong shape is a miss now.
8. A full disk while Numba wrote its cache was reported as VEC-BUG and the function ran element
   by element: now one CacheWarning, and the compiled kernel runs (a real, small tmpfs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.core.test_cache_integration import (
    Project,
    assert_correct,
    assert_warm,
    call,
    ours,
)

NUMBA = pytest.mark.numba


@pytest.fixture
def project(tmp_path) -> Project:
    return Project(tmp_path)


def needs_numba() -> None:
    pytest.importorskip("numba")


def numba_files(project: Project, suffix: str) -> list[Path]:
    return sorted((project.cache.directory() / "__pycache__").glob(f"vz_*.{suffix}"))


# -- 5. a damaged Numba file is a miss, in every later process ------------------------------------

def flip(path: Path, where: str) -> None:
    """Invert one byte of `path`: in the header of the object file the data pickle holds (LLVM
    aborted: "LLVM ERROR: Invalid ELF class"), in its machine code (SIGSEGV), in the middle (a
    VEC-BUG and the fallback), or near the end."""
    data = bytearray(path.read_bytes())
    elf = data.find(b"\x7fELF")
    at = {"object header": elf + 4, "machine code": elf + 100, "middle": len(data) // 2, "near the end": len(data) - 8}[where]
    assert elf >= 0 or where not in ("object header", "machine code"), "no object file in the data pickle"
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


@NUMBA
@pytest.mark.parametrize("suffix, where", [("nbc", "object header"), ("nbc", "machine code"), ("nbc", "middle"),
                                           ("nbc", "near the end"), ("nbi", "middle")])
def test_a_flipped_byte_in_a_numba_file_is_a_miss_not_a_crash(project, suffix, where):
    needs_numba()
    calls = [call("branchy", "numba")]
    project.run(calls)
    files = numba_files(project, suffix)
    assert files
    for path in files:
        flip(path, where)
    damaged = project.run(calls)  # a fresh process: it must neither crash nor fall back
    assert_correct(damaged, names=("branchy",))
    assert damaged["calls"][0]["backend"] == "numba"
    assert [w for w in ours(damaged) if w[0] == "FallbackWarning"] == [], ours(damaged)
    assert damaged["calls"][0]["numba_misses"] >= 1  # Numba compiled again instead of reading the file
    assert_warm(project.run(calls))  # and wrote good files: the next process reads them
    assert_warm(project.run(calls))


@NUMBA
def test_a_numba_file_without_vectorizers_checksum_is_never_read(project):
    """A file in Numba's own format (as Numba alone writes it, or an older vectorizer did) is not
    one vectorizer verified: a miss, compiled and written again with its checksum."""
    needs_numba()
    calls = [call("branchy", "numba")]
    project.run(calls)
    for path in numba_files(project, "nbc") + numba_files(project, "nbi"):
        data = path.read_bytes()
        assert data.startswith(b"# vectorizer-numba "), data[:40]
        path.write_bytes(data.split(b"\n", 1)[1])  # Numba's bytes, without the line that checks them
    report = project.run(calls)
    assert_correct(report, names=("branchy",))
    assert report["calls"][0]["numba_misses"] >= 1 and report["calls"][0]["numba_hits"] == 0
    assert all(p.read_bytes().startswith(b"# vectorizer-numba ") for p in numba_files(project, "nbc"))
    assert_warm(project.run(calls))


# -- 7. a forged entry of the wrong shape is a miss --------------------------------------------------

FORGERIES = {
    "no such function": "x = 1\n",  # KeyError (NumPy backend), AttributeError (Numba backend)
    "not Python": "def caller(:\n",  # SyntaxError
    "no result types": "def caller(x):\n    return x\n",  # KeyError: VECTORIZER_RESULT
    "result types not a list": "def caller(x):\n    return x\nVECTORIZER_RESULT = 5\nVECTORIZER_RETURNS_TUPLE = False\n",
    "raises when run": "raise LookupError('forged')\n",
}


def kernel_entry(project: Project, name: str) -> tuple[str, bytes]:
    """(key, bytes) of the one entry whose module defines `name`."""
    found = [(n[3:-3], data) for n, data in project.entries().items() if f"\ndef {name}(".encode() in data]
    assert len(found) == 1, sorted(project.entries())
    return found[0]


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=NUMBA)])
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_entry_with_a_valid_checksum_is_a_miss(project, backend, forgery):
    if backend == "numba":
        needs_numba()
    calls = [call("caller", backend)]
    project.run(calls)
    key, good = kernel_entry(project, "caller")
    assert project.cache.store(key, FORGERIES[forgery]) is not None
    assert project.cache.load(key) == FORGERIES[forgery]  # its checksum is valid
    report = project.run(calls)  # no raw error: the entry is a miss, generated again
    assert_correct(report, names=("caller",))
    assert report["calls"][0]["backend"] == backend
    assert ours(report) == [], ours(report)  # neither a warning nor a fallback
    assert report["libcst"], "a miss: the function must be transformed again"
    assert project.entries()[f"vz_{key}.py"] == good  # the forged entry was replaced
    assert_warm(project.run(calls))


def test_a_forged_entry_is_a_miss_in_process(tmp_path, monkeypatch):
    """The same in one process, for each forgery in turn (the kernel is loaded from disk each time)."""
    import numpy as np

    from vectorizer import vectorize
    from vectorizer.core.cache import CodeCache

    monkeypatch.setenv("VECTORIZER_CACHE_DIR", str(tmp_path / "cache"))
    store = CodeCache(tmp_path / "cache")

    def scale(x: float) -> float:
        return x * 3.0 - 1.0

    vectorize(scale)(np.array([1.0]))
    (name, good), = [(n, p.read_text()) for n, p in ((p.name, p) for p in store.directory().glob("vz_*.py"))
                     if "def scale(" in p.read_text()]
    key = name[3:-3]
    for forged in FORGERIES.values():
        store.store(key, forged.replace("caller", "scale"))
        assert vectorize(scale)(np.array([2.0, -0.5])).tolist() == [scale(2.0), scale(-0.5)]
        assert (store.directory() / name).read_text() == good


# -- 8. a full disk while Numba writes its cache -----------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A real tmpfs of 1 MiB mounted under tmp_path (needs root: skipped with the reason if not)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; this test runs as an ordinary user")
    if shutil.which("mount") is None:
        pytest.skip("no mount command here")
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", f"vz-test-{uuid.uuid4().hex[:8]}",
                           str(mount_point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True)


def fill(disk: Path, leave: int) -> None:
    """Fill `disk` up to `leave` free bytes (a filler file outside the cache)."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "filler", "wb") as f:
        f.write(b"\0" * max(free - leave, 0))
    after = os.statvfs(disk)
    assert after.f_bavail * after.f_frsize <= leave


@NUMBA
@pytest.mark.parametrize("leave_kib", [0, 8, 16, 24, 40])
def test_a_full_disk_is_a_cache_warning_and_the_compiled_kernel_runs(project, small_disk, leave_kib):
    needs_numba()
    project.cache_dir = small_disk / "cache"
    project.cache = type(project.cache)(project.cache_dir)
    fill(small_disk, leave_kib * 1024)
    calls = [call("branchy", "numba")]
    for _ in range(2):  # the first process on the full disk, and one after it
        report = project.run(calls)
        assert_correct(report, names=("branchy",))
        run = report["calls"][0]
        assert run["backend"] == "numba" and run["numba_misses"] + run["numba_hits"] >= 1, run
        warnings = ours(report)
        assert [w for w in warnings if w[0] == "FallbackWarning" or "VEC-BUG" in w[1]] == [], warnings
        full = [w for w in warnings if w[0] == "CacheWarning" and "No space left on device" in w[1]]
        assert full, warnings
        assert not [p for p in small_disk.rglob("*") if ".tmp" in p.name or p.name.endswith(".part")]
    os.unlink(small_disk / "filler")  # room again: the cache fills, and serves the next process
    project.run(calls)
    assert_warm(project.run(calls))
