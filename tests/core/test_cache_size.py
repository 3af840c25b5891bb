"""The size bound on the user cache (core/cachesize.py, issue 34): least recently used entries are
pruned, whole, when a write finds the cache above VECTORIZER_CACHE_MAX_MB; a hit marks its entry
used by setting its access time explicitly (so it holds on noatime mounts); reads never prune;
`vectorizer cache` shows the location, size, entries and bound and has --prune and --clear.

Real files in a temporary VECTORIZER_CACHE_DIR; the processes are real subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vectorizer.core import cachesize
from vectorizer.core.cache import CodeCache, cache_key

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = 24

DRIVER = r'''
import json, sys, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
import mods
warnings.simplefilter("error")  # no CacheWarning, no FallbackWarning
out = {}
for name in sys.argv[2].split(","):
    out[name] = getattr(mods, name)(np.array([0.5, 2.0])).tolist()
print(json.dumps(out))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    lines = ["import math", "from vectorizer import vectorize", ""]
    for k in range(FUNCTIONS):
        lines += ['@vectorize(backend="numpy")', f"def f{k}(x):", f"    return math.sqrt(x) * {k}.0 + x * x - {k}", ""]
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mods.py").write_text("\n".join(lines))
    return tmp_path


def env(project: Path, bound_mb: float | None = None) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("VECTORIZER_CACHE_MAX_MB", "VECTORIZER_DISABLE")}
    out |= {"PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(project / "cache")}
    if bound_mb is not None:
        out["VECTORIZER_CACHE_MAX_MB"] = repr(bound_mb)
    return out


def call(project: Path, names: list[str], bound_mb: float | None = None) -> None:
    done = subprocess.run([sys.executable, "-c", DRIVER, str(project / "src"), ",".join(names)],
                          env=env(project, bound_mb), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    import math
    assert json.loads(done.stdout) == {n: [math.sqrt(x) * float(n[1:]) + x * x - int(n[1:]) for x in (0.5, 2.0)]
                                       for n in names}


def cli(project: Path, *args: str, bound_mb: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vectorizer", "cache", *args], env=env(project, bound_mb),
                          capture_output=True, text=True, timeout=120)


_FUNCTION_OF: dict[Path, str] = {}  # an entry is read once: a read may set its access time (relatime)


def entries(project: Path) -> dict[str, Path]:
    """Function name -> the .py of the entry generated for it."""
    found = {}
    for path in (project / "cache" / "v1").glob("vz_*.py"):
        if path not in _FUNCTION_OF:
            _FUNCTION_OF[path] = next(line.split("def ")[1].split("(")[0] for line in path.read_text().splitlines()
                                      if line.startswith("def f"))
        found[_FUNCTION_OF[path]] = path
    return found


def age(project: Path, order: list[str], start: float) -> None:
    """Set every file's times in the past; the entries of `order` one second apart, in that order."""
    by_name = entries(project)
    for i, name in enumerate(order):
        stem = by_name[name].name[:-3]
        for path in [*(project / "cache" / "v1").glob(stem + ".*"), *(project / "cache" / "v1" / "__pycache__").glob(stem + ".*")]:
            os.utime(path, (start + i, start + i))


def total_bytes(project: Path) -> int:
    return sum(p.stat().st_size for p in (project / "cache" / "v1").rglob("*") if p.is_file() and p.name not in (".usage", "CACHEDIR.TAG"))


def test_least_recently_used_entries_are_pruned_whole_at_write_time(project):
    names = [f"f{k}" for k in range(FUNCTIONS)]
    call(project, names[:20])  # 20 entries, no bound reached (default 256 MB)
    assert set(entries(project)) == set(names[:20])
    per_entry = total_bytes(project) / 20
    now = time.time()
    age(project, names[:20], now - 10_000)  # f0 the oldest ... f19 the newest
    call(project, names[:5])  # hits: f0..f4 become the most recently used
    atimes = {n: p.stat().st_atime for n, p in entries(project).items()}
    assert all(atimes[n] > now - 100 for n in names[:5]), atimes  # set explicitly, not left to the mount
    assert all(atimes[n] < now - 9_000 for n in names[5:20]), atimes
    age(project, names[5:20] + names[:5], now - 10_000)  # keep that order, none of them recent
    # A bound of ~12 entries: the next write finds the cache above it and prunes to 80% of it.
    bound = per_entry * 12
    call(project, [names[20]], bound_mb=bound / 1e6)
    left = set(entries(project))
    assert names[20] in left and set(names[:5]) <= left, left  # just written; most recently used
    assert total_bytes(project) <= cachesize.TARGET * bound + per_entry, (total_bytes(project), bound)
    oldest_gone = [n for n in names[5:20] if n not in left]
    assert oldest_gone == names[5:5 + len(oldest_gone)] and len(oldest_gone) >= 8, left  # oldest first
    stems = {p.name[:67] for p in (project / "cache" / "v1").glob("vz_*")}
    assert stems == {p.name[:-3] for p in entries(project).values()}  # no compiled code left of a pruned entry
    call(project, names[:5] + [names[20]])  # the survivors still serve correct results


def test_reads_never_prune(project):
    names = [f"f{k}" for k in range(10)]
    call(project, names)
    age(project, names, time.time() - 10_000)
    before = sorted(p.name for p in (project / "cache" / "v1").iterdir())
    call(project, names, bound_mb=0.001)  # far above the bound, but only hits
    assert sorted(p.name for p in (project / "cache" / "v1").iterdir()) == before


def test_recently_used_entries_are_kept_and_symlinks_not_followed(tmp_path):
    cache = CodeCache(tmp_path / "c")
    keys = [cache_key(str(i)) for i in range(4)]
    for i, key in enumerate(keys):
        cache.store(key, f"X = {i}\n" + "# padding\n" * 200)
    directory = cache.directory()
    outside = tmp_path / "outside.txt"
    outside.write_text("not the cache's")
    (directory / f"vz_{'0' * 64}.py").symlink_to(outside)
    old = time.time() - 10_000
    for path in directory.iterdir():
        os.utime(path, (old, old), follow_symlinks=False)
    cache.load(keys[3])  # a hit: recent, so never pruned
    removed, left = cachesize.prune(directory, 0)
    assert removed == 3 and outside.read_text() == "not the cache's"  # a symlink is neither followed nor counted
    assert sorted(p.name for p in directory.glob("vz_*.py")) == sorted([f"vz_{keys[3]}.py", f"vz_{'0' * 64}.py"])
    assert left == (directory / f"vz_{keys[3]}.py").stat().st_size + sum(
        p.stat().st_size for p in directory.glob(f"vz_{keys[3]}.*.code"))


@pytest.mark.parametrize("text, bound", [("", 256_000_000), ("1.5", 1_500_000), ("0", None)])
def test_bound_from_the_environment(monkeypatch, text, bound):  # bad values: tests/core/test_cache_clear.py
    monkeypatch.setenv("VECTORIZER_CACHE_MAX_MB", text)
    assert cachesize.bound_bytes() == bound


def test_cache_command_shows_prunes_and_clears(project):
    names = [f"f{k}" for k in range(8)]
    call(project, names)
    shown = cli(project, bound_mb=5)
    assert shown.returncode == 0, shown.stderr
    lines = dict(line.split(":", 1) for line in shown.stdout.splitlines())
    assert lines["location"].strip() == str(project / "cache" / "v1")
    files = [p for p in (project / "cache" / "v1").rglob("*") if p.is_file() and p.name not in (".usage", "CACHEDIR.TAG")]
    assert lines["size"].strip() == f"{total_bytes(project) / 1e6:.2f} MB in {len(files)} files"
    assert lines["entries"].strip() == "8 generated modules"
    assert lines["bound"].strip() == "5.00 MB (VECTORIZER_CACHE_MAX_MB)"
    assert cli(project).stdout.splitlines()[-1] == "bound:    256.0 MB (default)"
    age(project, names, time.time() - 10_000)
    pruned = cli(project, "--prune", bound_mb=total_bytes(project) / 1e6 / 2)
    assert pruned.returncode == 0 and "pruned" in pruned.stderr
    assert 0 < len(entries(project)) < 8
    cleared = cli(project, "--clear")
    assert cleared.returncode == 0 and not (project / "cache").exists()
    assert cli(project, "dir").stdout.strip() == str(project / "cache" / "v1")
