"""Issue 49, row 1: code is generated only from source text that is the running code.

A module is imported, then its file is edited before the first batched call. The scalar function
still runs the code imported; the text on disk says something else. Each scenario runs in real,
fresh Python processes with a private cache: the batched values must be the loop's (the function
refused, with a `FallbackWarning`, or `VEC-STALE` under `fallback="error"`), and a later process
that sees the file as it was at import must not get a kernel made from the edited text out of the
disk cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = "def f(x):\n    return x * 2\n"
EDITED = "def f(x):\n    return x * 3\n"
INSERTED = "def g(x):\n    return -x\n\n\n" + ORIGINAL
BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.numba)]

# Imports the module, rewrites its file (argv[2], '' for no edit), then calls the batched function
# and the loop; prints JSON: batched values (or the error code), loop values, warnings' codes.
SCRIPT = textwrap.dedent("""\
    import json, sys, warnings
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import stale_mod
    from vectorizer import VectorizeError, vectorize
    if sys.argv[2]:
        open(stale_mod.__file__, "w").write(sys.argv[2])
    x = np.array([1, 2, 5])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:  # fallback="error" refuses at decoration
            got = vectorize(stale_mod.f, backend=sys.argv[3], fallback=sys.argv[4])(x).tolist()
        except VectorizeError as exc:
            got = exc.code
    print(json.dumps({"batched": got, "loop": [stale_mod.f(v) for v in x.tolist()],
                      "warnings": [getattr(w.message, "code", type(w.message).__name__) for w in seen]}))
""")


def run(folder: Path, cache: Path, text_at_import: str, edit: str, backend: str, fallback: str = "warn") -> dict:
    (folder / "stale_mod.py").write_text(text_at_import)
    for pyc in folder.rglob("*.pyc"):
        pyc.unlink()
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), edit, backend, fallback],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_edit_after_import_is_refused_and_never_cached(tmp_path, backend):
    cache = tmp_path / "cache"
    edited = run(tmp_path, cache, ORIGINAL, EDITED, backend)
    assert edited["loop"] == [2, 4, 10]
    assert edited["batched"] == edited["loop"], "batched code made from the edited text"
    assert "VEC-STALE" in edited["warnings"]
    # the file back as it was: a fresh process must compute the running code, not a cached kernel
    fresh = run(tmp_path, cache, ORIGINAL, "", backend)
    assert fresh["batched"] == fresh["loop"] == [2, 4, 10]
    assert fresh["warnings"] == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_edit_after_import_raises_vec_stale_under_fallback_error(tmp_path, backend):
    got = run(tmp_path, tmp_path / "cache", ORIGINAL, EDITED, backend, fallback="error")
    assert got["batched"] == "VEC-STALE"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_inserted_above_moves_the_lines_and_is_refused(tmp_path, backend):
    """inspect reads the running code's first line of the new file: another function's text."""
    cache = tmp_path / "cache"
    got = run(tmp_path, cache, ORIGINAL, INSERTED, backend)
    assert got["batched"] == got["loop"] == [2, 4, 10]
    assert "VEC-STALE" in got["warnings"]
    again = run(tmp_path, cache, ORIGINAL, "", backend)  # no refusal or error was persisted
    assert again["batched"] == again["loop"] and again["warnings"] == []


def test_an_edit_that_keeps_the_code_still_vectorizes(tmp_path):
    """A comment changed on a line of its own below the function: same code, nothing stale."""
    got = run(tmp_path, tmp_path / "cache", ORIGINAL + "# a note\n", ORIGINAL + "# another note\n", "numpy")
    assert got["batched"] == got["loop"] and got["warnings"] == []


def test_a_half_finished_edit_is_vec_parse_at_the_broken_line(tmp_path):
    broken = "def f(x):\n    return x *\n"
    got = run(tmp_path, tmp_path / "cache", ORIGINAL, broken, "numpy", fallback="error")
    assert got["batched"] == "VEC-PARSE"


def test_dask_workers_get_only_checked_text(tmp_path):
    """A vectorized function travels to Dask's worker processes by its source text
    (engine/scaleout/travel.py): an edited file must not be what they compile."""
    (tmp_path / "stale_mod.py").write_text("from vectorizer import vectorize\n\n\n@vectorize\n" + ORIGINAL)
    script = textwrap.dedent("""\
        import pickle, sys
        sys.path.insert(0, sys.argv[1])
        import stale_mod
        from vectorizer import VectorizeError
        text = open(stale_mod.__file__).read()
        open(stale_mod.__file__, "w").write(text.replace("x * 2", "x * 3"))
        try:
            pickle.dumps(stale_mod.f)
            print("sent")
        except VectorizeError as exc:
            print(exc.code)
    """)
    env = {**os.environ, "VECTORIZER_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["VEC-STALE"]
