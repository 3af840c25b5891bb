"""Issue 49, rows 6 and 9: the cache removes only what it wrote, and its environment is validated.

6. `vectorizer cache --clear` deleted any ``v<digits>/`` directory under VECTORIZER_CACHE_DIR (a
   user's ``v2/thesis/chapter1.tex`` went), then the emptied root, and printed "removed 0 entries".
   Now `--clear` and the size bound remove only files in vectorizer's own format, under a directory
   vectorizer marked with its CACHEDIR.TAG, never a root vectorizer did not create, and say what
   they removed and what they left.
9. ``VECTORIZER_CACHE_MAX_MB=inf`` (or ``1e400``) made every first call and `vectorizer cache` raise
   OverflowError: a value that is not a finite number of megabytes is named in one CacheWarning
   (in the CLI, a warning line) and the default bound applies.

Real files, real `python -m vectorizer` processes and real decorated functions in subprocesses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from vectorizer.core import cache, cachesize
from vectorizer.core.cache import CacheWarning

ROOT = Path(__file__).resolve().parents[2]

DRIVER = r'''
import json, sys, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
import mods
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = {name: getattr(mods, name)(np.array([0.5, 2.0])).tolist() for name in sys.argv[2].split(",")}
out["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
print(json.dumps(out))
'''

MODS = '''\
import math
from vectorizer import vectorize


@vectorize
def f0(x):
    return math.sqrt(x) + 1.0


@vectorize
def f1(x):
    return x * x - 2.0


@vectorize
def f2(x):
    return math.sqrt(x) * 3.0
'''
EXPECTED = {"f0": [0.5 ** 0.5 + 1.0, 2.0 ** 0.5 + 1.0], "f1": [0.25 - 2.0, 2.0], "f2": [0.5 ** 0.5 * 3.0, 2.0 ** 0.5 * 3.0]}


def environment(cache_dir: Path, bound: str | None = None) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in ("VECTORIZER_CACHE_MAX_MB", "VECTORIZER_DISABLE")}
    out |= {"PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(cache_dir)}
    if bound is not None:
        out["VECTORIZER_CACHE_MAX_MB"] = bound
    return out


def fill(tmp_path: Path, cache_dir: Path, names=("f0", "f1", "f2"), bound: str | None = None) -> dict:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "mods.py").write_text(MODS)
    done = subprocess.run([sys.executable, "-c", DRIVER, str(src), ",".join(names)], env=environment(cache_dir, bound),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert {n: out[n] for n in names} == {n: EXPECTED[n] for n in names}
    return out


def cli(cache_dir: Path, *args: str, bound: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vectorizer", "cache", *args], env=environment(cache_dir, bound),
                          capture_output=True, text=True, timeout=120)


def entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "v1").glob("vz_*.py"))


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# -- 6. --clear and the size bound remove what vectorizer wrote, and nothing else ------------------

def test_clear_in_a_users_own_directory_keeps_the_users_files_and_the_directory(tmp_path):
    work = tmp_path / "work"  # the user's, pointed at by VECTORIZER_CACHE_DIR
    (work / "v2" / "thesis").mkdir(parents=True)
    (work / "v2" / "thesis" / "chapter1.tex").write_text("\\chapter{One}\n")
    (work / "v10").mkdir()
    (work / "v10" / "data.csv").write_text("1,2\n")
    fill(tmp_path, work)
    stored = entries(work)
    assert len(stored) >= 3
    (work / "v1" / "notes.txt").write_text("mine, written into vectorizer's folder\n")

    cleared = cli(work, "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert f"removed {len(stored)} entries" in cleared.stderr, cleared.stderr
    assert (work / "v2" / "thesis" / "chapter1.tex").read_text() == "\\chapter{One}\n"
    assert (work / "v10" / "data.csv").read_text() == "1,2\n"
    assert (work / "v1" / "notes.txt").exists()
    assert "notes.txt" in cleared.stderr  # left, and said so
    assert entries(work) == [] and not list((work / "v1").rglob("vz_*"))
    assert tree(work) == ["v1", "v1/CACHEDIR.TAG", "v1/notes.txt",  # v1/ stays vectorizer's: it holds the user's file
                          "v10", "v10/data.csv", "v2", "v2/thesis", "v2/thesis/chapter1.tex"]


def test_clear_never_removes_a_root_it_did_not_create(tmp_path):
    work = tmp_path / "work"
    (work / "v2").mkdir(parents=True)  # an empty folder of the user's, and nothing else
    fill(tmp_path, work, names=("f0",))
    cleared = cli(work, "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert "removed 1 entry" in cleared.stderr or "removed 2 entries" in cleared.stderr, cleared.stderr
    assert tree(work) == ["v2"]  # vectorizer's v1/ went; the user's root and v2/ stay


def test_clear_in_a_root_vectorizer_created_removes_all_of_it(tmp_path):
    made = tmp_path / "made"
    fill(tmp_path, made)
    count = len(entries(made))
    cleared = cli(made, "--clear")
    assert cleared.returncode == 0 and f"removed {count} entries" in cleared.stderr, cleared.stderr
    assert not made.exists()


def test_clear_in_a_root_vectorizer_created_keeps_what_the_user_put_there(tmp_path):
    made = tmp_path / "made"
    fill(tmp_path, made)
    count = len(entries(made))
    (made / "v3").mkdir()
    (made / "v3" / "x.tex").write_text("x")
    (made / "v1" / "__pycache__").mkdir(exist_ok=True)
    (made / "v1" / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"not ours")
    (made / "v1" / "vz_not_a_key.py").write_text("print('mine')\n")
    cleared = cli(made, "--clear")
    assert cleared.returncode == 0 and f"removed {count} entries" in cleared.stderr, cleared.stderr
    # the root loses its tag (backup tools must not skip the user's files); v1/ is still the cache's
    assert tree(made) == ["v1", "v1/CACHEDIR.TAG", "v1/__pycache__", "v1/__pycache__/helper.cpython-311.pyc",
                          "v1/vz_not_a_key.py", "v3", "v3/x.tex"]
    for kept in ("x.tex", "helper.cpython-311.pyc", "vz_not_a_key.py"):
        assert kept in cleared.stderr


def test_an_entry_name_without_vectorizers_header_is_not_vectorizers(tmp_path):
    made = tmp_path / "made"
    fill(tmp_path, made, names=("f0",))
    lookalike = made / "v1" / f"vz_{'ab' * 32}.py"
    lookalike.write_text("# my own file, named like an entry\n")
    cleared = cli(made, "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert lookalike.read_text() == "# my own file, named like an entry\n"
    assert lookalike.name in cleared.stderr


def test_clear_in_an_unmarked_directory_removes_nothing_and_says_why(tmp_path):
    """A directory vectorizer never marked: an entry-shaped file there is left, with the reason."""
    other = tmp_path / "other"
    (other / "v1").mkdir(parents=True, mode=0o700)
    os.chmod(other, 0o700)
    os.chmod(other / "v1", 0o700)
    key = cache.cache_key("someone else's")
    data = b"# vectorizer-cache " + f"{key} {cache.sha256(b'x = 1').hexdigest()}\n".encode() + b"x = 1"
    (other / "v1" / f"vz_{key}.py").write_bytes(data)
    cleared = cli(other, "--clear")
    assert cleared.returncode == 0, cleared.stderr
    assert "removed 0 entries" in cleared.stderr and "CACHEDIR.TAG" in cleared.stderr, cleared.stderr
    assert (other / "v1" / f"vz_{key}.py").read_bytes() == data


def test_the_size_bound_never_removes_a_users_file(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    fill(tmp_path, work, names=("f0",))
    big = work / "v1" / "dataset.bin"
    big.write_bytes(b"\1" * 3_000_000)
    old = time.time() - 10_000
    os.utime(big, (old, old))
    fill(tmp_path, work, names=("f1", "f2"), bound="1")  # writes above the bound: upkeep prunes
    assert big.stat().st_size == 3_000_000
    pruned = cli(work, "--prune", bound="1")
    assert pruned.returncode == 0, pruned.stderr
    assert big.stat().st_size == 3_000_000
    shown = cli(work)
    assert "dataset.bin" in shown.stdout or "1 file vectorizer did not write" in shown.stdout, shown.stdout


def test_prune_removes_only_entries_in_vectorizers_format(tmp_path):
    directory = tmp_path / "c" / "v1"
    store = cache.CodeCache(tmp_path / "c")
    store.store(cache.cache_key("a"), "A = 1\n")
    stranger = directory / "stranger.txt"
    stranger.write_bytes(b"x" * 50_000)
    past = time.time() - 10_000
    for path in directory.iterdir():
        os.utime(path, (past, past))
    removed, left = cachesize.prune(directory, 0)
    assert stranger.exists() and removed == 1
    assert left == 0  # what the bound counts is vectorizer's own files


# -- 9. VECTORIZER_CACHE_MAX_MB: validated, with a clear message -----------------------------------

@pytest.mark.parametrize("text", ["inf", "1e400", "-inf", "Infinity", "lots", "-3", "nan"])
def test_a_bound_that_is_not_a_finite_number_of_megabytes_warns_and_uses_the_default(monkeypatch, text):
    monkeypatch.setenv("VECTORIZER_CACHE_MAX_MB", text)
    monkeypatch.setattr(cache, "_warned", set())
    with pytest.warns(CacheWarning, match="VECTORIZER_CACHE_MAX_MB") as caught:
        assert cachesize.bound_bytes() == cachesize.DEFAULT_MB * 1_000_000
    assert repr(text) in str(caught[0].message) and "0 for no bound" in str(caught[0].message)


@pytest.mark.parametrize("text, bound", [("", 256_000_000), ("1.5", 1_500_000), ("0", None), (" 64 ", 64_000_000),
                                         ("1e300", int(1e300 * 1_000_000))])
def test_a_valid_bound_gives_no_warning(monkeypatch, text, bound):
    monkeypatch.setenv("VECTORIZER_CACHE_MAX_MB", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cachesize.bound_bytes() == bound


@pytest.mark.parametrize("text", ["inf", "1e400"])
def test_an_infinite_bound_neither_breaks_a_first_call_nor_the_cache_command(tmp_path, text):
    out = fill(tmp_path, tmp_path / "cache", bound=text)
    named = [w for w in out["warnings"] if w[0] == "CacheWarning" and "VECTORIZER_CACHE_MAX_MB" in w[1]]
    assert len(named) == 1, out["warnings"]
    assert [w for w in out["warnings"] if w not in named] == [], out["warnings"]
    shown = cli(tmp_path / "cache", bound=text)
    assert shown.returncode == 0, shown.stderr
    assert "VECTORIZER_CACHE_MAX_MB" in shown.stderr and repr(text) in shown.stderr
    assert shown.stdout.splitlines()[-1] == "bound:    256.0 MB (default)"
    for action in ("--prune", "--clear"):
        done = cli(tmp_path / "cache", action, bound=text)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("where", ["a file", "below a file"])
def test_a_cache_directory_that_cannot_be_one_is_a_clear_error(tmp_path, where):
    """VECTORIZER_CACHE_DIR naming a regular file, or a path below one: `vectorizer cache` says so
    (exit code 1, no traceback), `--clear` removes nothing, and a decorated function still runs."""
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    root = blocker if where == "a file" else blocker / "cache"
    for args in ((), ("--clear",), ("--prune",)):
        done = cli(root, *args)
        assert done.returncode == 1, (args, done.stderr)
        assert str(blocker) in done.stderr and "Traceback" not in done.stderr, (args, done.stderr)
        assert "not a directory" in done.stderr.lower(), done.stderr
    out = fill(tmp_path, root, names=("f0",))
    assert [w[0] for w in out["warnings"]] == ["CacheWarning"], out["warnings"]
    assert blocker.read_text() == "mine\n"
