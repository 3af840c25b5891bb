"""The debug switches, in real processes: VECTORIZER_DISABLE=1 (the original scalar function, element
by element: no transformation, same values, same exceptions), VECTORIZER_DUMP_AFTER=<pass>|all
(the code after the passes, on stderr), and `vectorizer cache dir | clean`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

MODULE = '''\
import math


def clipped_log(x: float, floor: float) -> float:
    if x <= 0.0:
        raise ValueError(f"clipped_log needs x > 0, got {x}")
    y = math.log(x)
    while y < floor:
        y += 1.0
    return y


def mul(a: int, b: int) -> int:
    return a * b


def parity(n: int) -> bool:
    return n % 2 == 0


def shouts(x: float) -> float:
    print("side effect")  # outside the supported subset: runs element by element
    return x
'''

CALLS = [
    ["clipped_log", [[1.0, 2.5, 100.0], [-1.0, 0.5, 3.0]]],
    ["clipped_log", [[[3.0, 1e-9], [0.0, -2.0]], [0.0, 0.0]]],   # lane (1, 0) raises first
    ["mul", [[3, -(2**62)], [4, 2]]],                            # patched: exactly -2**63
    ["mul", [[1, 2**62], [1, 2]]],                               # does not fit: refused
    ["parity", [[0, 7, -3, 2**63 - 1]]],
    ["parity", [5]],                                              # a scalar gives a NumPy scalar
]

DRIVER = r'''
import json, sys, warnings
spec = json.loads(sys.argv[1])
sys.path.insert(0, spec["path"])
import numpy as np
from vectorizer import vectorize
import kmod
out = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name, args in spec["calls"]:
        vf = vectorize(getattr(kmod, name), backend=spec.get("backend", "numpy"),
                       fallback=spec.get("fallback", "warn"))
        try:
            got = vf(*[np.asarray(a) if isinstance(a, list) else a for a in args])
            out.append({"value": np.asarray(got).tolist(), "dtype": str(np.asarray(got).dtype),
                        "type": type(got).__name__})
        except Exception as exc:
            out.append({"raised": type(exc).__name__, "bases": [c.__name__ for c in type(exc).__mro__[1:3]],
                        "message": str(exc), "notes": getattr(exc, "__notes__", [])})
print(json.dumps({"calls": out, "libcst": "libcst" in sys.modules, "numba": "numba" in sys.modules,
                  "warnings": [[w.category.__name__, str(w.message)] for w in caught]}))
'''


@pytest.fixture
def src(tmp_path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kmod.py").write_text(MODULE)
    return tmp_path / "src"


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VECTORIZER_", "NUMBA_"))}
    env.update(VECTORIZER_CACHE_DIR=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1", **extra)
    return env


def drive(src: Path, env: dict, calls=CALLS, **spec) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps({"path": str(src), "calls": calls, **spec})],
                          capture_output=True, text=True, env=env, cwd=src, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def vectorizer_cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vectorizer", *args], capture_output=True, text=True,
                          env=env, timeout=120)


# -- VECTORIZER_DISABLE=1 -------------------------------------------------------------------------
def test_disable_runs_the_scalar_function_element_by_element(src, tmp_path):
    normal, _ = drive(src, clean_env(tmp_path))
    assert normal["libcst"]
    off, _ = drive(src, clean_env(tmp_path / "off", VECTORIZER_DISABLE="1"))
    assert not off["libcst"] and not off["numba"]  # nothing was transformed (or compiled)
    assert not (tmp_path / "off" / "cache").exists()  # nor cached
    assert off["warnings"] == []
    for on_call, off_call in zip(normal["calls"], off["calls"]):
        if on_call.get("raised") == "VectorizeOverflowError":
            continue  # see test_disable_refuses_a_big_int_with_the_same_exception
        # the same values, dtypes, exceptions and messages; both notes name the lane (the
        # batched path's also lists the lane's arguments)
        on_notes, off_notes = on_call.get("notes", []), off_call.get("notes", [])
        assert {**on_call, "notes": None} == {**off_call, "notes": None}
        assert [n.split(" (x=")[0] for n in on_notes] == [n.split(" (x=")[0] for n in off_notes]
    raised = off["calls"][1]
    assert raised["raised"] == "ValueError" and raised["message"] == "clipped_log needs x > 0, got 0.0"
    assert any("lane (1, 0) of (2, 2)" in n for n in raised["notes"])
    assert off["calls"][0]["value"] == [scalar("clipped_log", x, f) for x, f in zip(*CALLS[0][1])]
    assert off["calls"][2]["value"] == [12, -(2**63)]
    assert off["calls"][5] == {"value": False, "dtype": "bool", "type": type(np.bool_(False)).__name__}  # a NumPy scalar


def test_disable_refuses_a_big_int_with_the_same_exception(src, tmp_path):
    normal, _ = drive(src, clean_env(tmp_path), calls=CALLS[3:4])
    off, _ = drive(src, clean_env(tmp_path / "off", VECTORIZER_DISABLE="1"), calls=CALLS[3:4])
    assert normal["calls"][0]["raised"] == "VectorizeOverflowError"
    assert off["calls"][0] == normal["calls"][0]


def test_disable_with_the_numba_backend_never_imports_numba(src, tmp_path):
    off, _ = drive(src, clean_env(tmp_path, VECTORIZER_DISABLE="1"), calls=CALLS[:3], backend="numba")
    assert not off["numba"] and not off["libcst"]
    assert off["calls"][0]["value"] == CLIPPED


def scalar(name: str, *args):
    namespace: dict = {}
    exec(MODULE, namespace)  # the scalar functions themselves, as the oracle
    return namespace[name](*args)


CLIPPED = [scalar("clipped_log", x, f) for x, f in zip(*CALLS[0][1])]


def test_disable_bypasses_the_checks_at_decoration(src, tmp_path):
    off, _ = drive(src, clean_env(tmp_path, VECTORIZER_DISABLE="1"), calls=[["shouts", [[1.0, 2.0]]]],
                   fallback="error")
    assert off["calls"] == [{"value": [1.0, 2.0], "dtype": "float64", "type": "ndarray"}]
    assert not off["libcst"]


def test_disable_zero_or_empty_means_enabled(src, tmp_path):
    for value in ("0", ""):
        report, _ = drive(src, clean_env(tmp_path / f"v{value}", VECTORIZER_DISABLE=value), calls=CALLS[:1])
        assert report["libcst"]


# -- VECTORIZER_DUMP_AFTER ---------------------------------------------------------------------
def pass_names() -> list[str]:
    from vectorizer.pipeline import NUMPY_PASSES

    return [p.name for p in NUMPY_PASSES]


def test_dump_after_one_pass_prints_that_pass_only(src, tmp_path):
    report, stderr = drive(src, clean_env(tmp_path, VECTORIZER_DUMP_AFTER="if_to_select"), calls=CALLS[:1])
    assert report["calls"][0]["value"] == CLIPPED
    headers = [line for line in stderr.splitlines() if line.startswith("# ---- after ")]
    assert headers == ["# ---- after if_to_select ----"]
    dumped = stderr.split("# ---- after if_to_select ----", 1)[1]
    assert "def clipped_log(" in dumped
    assert "np." not in dumped  # still scalar Python: ops_to_numpy runs after it
    compile(dumped, "<dump>", "exec")  # and it is valid Python


def test_dump_after_all_prints_every_pass_in_order(src, tmp_path):
    _, stderr = drive(src, clean_env(tmp_path, VECTORIZER_DUMP_AFTER="all"), calls=CALLS[:1])
    headers = [line for line in stderr.splitlines() if line.startswith("# ---- after ")]
    assert headers == [f"# ---- after {name} ----" for name in pass_names()]
    last = stderr.split(f"# ---- after {pass_names()[-1]} ----", 1)[1]
    assert "np." in last  # array code at the end


def test_dump_after_works_with_a_warm_cache(src, tmp_path):
    drive(src, clean_env(tmp_path), calls=CALLS[:1])  # fills the cache
    _, stderr = drive(src, clean_env(tmp_path, VECTORIZER_DUMP_AFTER="if_to_select"), calls=CALLS[:1])
    assert "# ---- after if_to_select ----" in stderr


@pytest.mark.numba
def test_dump_after_works_with_the_numba_backend(src, tmp_path):
    pytest.importorskip("numba")
    _, stderr = drive(src, clean_env(tmp_path, VECTORIZER_DUMP_AFTER="all"), calls=CALLS[:1], backend="numba")
    assert "# ---- after canonicalize ----" in stderr
    assert "def _lane_clipped_log(" in stderr  # the per-lane kernel Numba compiles


def test_dump_after_an_unknown_pass_warns_with_the_names(src, tmp_path):
    report, stderr = drive(src, clean_env(tmp_path, VECTORIZER_DUMP_AFTER="if_to_selct"), calls=CALLS[:1])
    assert report["calls"][0]["value"] == CLIPPED
    assert "# ---- after" not in stderr
    warned = [m for c, m in report["warnings"] if "VECTORIZER_DUMP_AFTER='if_to_selct' names no pass" in m]
    assert len(warned) == 1 and "if_to_select" in warned[0]


def test_dump_is_silent_without_the_switch(src, tmp_path):
    _, stderr = drive(src, clean_env(tmp_path), calls=CALLS[:1])
    assert "# ---- after" not in stderr


# -- vectorizer cache dir | clean ----------------------------------------------------------------
def test_cache_dir_respects_the_environment(tmp_path):
    done = vectorizer_cli("cache", "dir", env=clean_env(tmp_path))
    assert done.returncode == 0, done.stderr
    shown = Path(done.stdout.strip())
    assert shown.parent == tmp_path / "cache" and shown.name.startswith("v")
    assert not (tmp_path / "cache").exists()  # asking creates nothing


def test_cache_dir_defaults_to_the_per_user_cache(tmp_path):
    env = clean_env(tmp_path)
    del env["VECTORIZER_CACHE_DIR"]
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = vectorizer_cli("cache", "dir", env=env)
    assert done.returncode == 0, done.stderr
    import platformdirs  # what the package uses, under this environment

    expected = subprocess.run([sys.executable, "-c", "import platformdirs; print(platformdirs.user_cache_dir('vectorizer'))"],
                              capture_output=True, text=True, env=env).stdout.strip()
    assert platformdirs and Path(done.stdout.strip()).parent == Path(expected)
    assert str(tmp_path / "xdg") in expected or sys.platform != "linux"


def test_cache_clean_empties_the_cache_and_nothing_else(src, tmp_path):
    env = clean_env(tmp_path)
    cache = tmp_path / "cache"
    drive(src, env, calls=CALLS[:3])
    entries = sorted((cache / "v1").glob("vz_*.py"))
    assert entries
    (cache / "notes.txt").write_text("mine")  # the user's own file in that directory
    done = vectorizer_cli("cache", "clean", env=env)
    assert done.returncode == 0, done.stderr
    assert f"removed {len(entries)} entr" in done.stderr  # "1 entry", "2 entries"
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    report, _ = drive(src, env, calls=CALLS[:1])  # a cold start again, still correct
    assert report["libcst"] and report["calls"][0]["value"] == CLIPPED


def test_cache_clean_on_a_missing_cache_is_fine(tmp_path):
    done = vectorizer_cli("cache", "clean", env=clean_env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "removed 0 entries" in done.stderr
    assert not (tmp_path / "cache").exists()
