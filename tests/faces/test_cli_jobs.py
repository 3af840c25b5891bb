"""`vectorizer generate --jobs N` (faces/cli/jobs.py): the same outputs, the same messages in the
same (file) order and the same exit code as `--jobs 1`, in write mode and under --check / --diff,
on a tree that mixes good files, a syntax error, an unsupported function, a hand-edited output and
an orphan. Real processes: the command runs as a subprocess and forks its workers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def good(k: int) -> str:
    return textwrap.dedent(f'''\
        import math
        from vectorizer import vectorize


        @vectorize
        def f{k}(x: float, n: int) -> float:
            total = 0.0
            for i in range(n):
                if x > {k}.0:
                    total += math.sqrt(x) * i
                else:
                    total -= x / (i + 1)
            return total
        ''')


UNSUPPORTED = textwrap.dedent('''\
    from vectorizer import vectorize


    @vectorize
    def safe_inverse(x):
        try:
            return 1.0 / x
        finally:
            x = 0.0
    ''')


def make_tree(root: Path) -> None:
    (root / ".hg").mkdir(parents=True)  # a repository boundary for configuration discovery
    for k in range(6):
        (root / f"m{k}.py").write_text(good(k))
    (root / "m2_broken.py").write_text("def broken(:\n    pass\n")
    (root / "m4_unsupported.py").write_text(UNSUPPORTED)
    (root / "sub").mkdir()
    for k in range(6, 9):
        (root / "sub" / f"s{k}.py").write_text(good(k))
    (root / "gone_batched.py").write_text("# placeholder\n")


def generate(root: Path, cache: Path, *args: str) -> tuple[int, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CI", "PRE_COMMIT")}
    env |= {"PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "vectorizer", "generate", *args, "."], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, done.stderr + done.stdout


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".hg" not in p.parts}


def test_jobs_give_the_outputs_messages_and_exit_codes_of_one_job(tmp_path):
    trees = {jobs: tmp_path / f"jobs{jobs}" for jobs in (1, 3)}
    for root in trees.values():
        make_tree(root)
    runs: dict[int, list] = {1: [], 3: []}
    for jobs, root in trees.items():
        cache = tmp_path / f"cache{jobs}"
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs)))  # everything generated
        out = root / "m1_batched.py"
        out.write_text(out.read_text().replace("total = 0.0", "total = 0.0  # edited"))  # a hand edit
        (root / "m3.py").write_text(good(3).replace("i + 1", "i + 2"))  # a changed source
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs), "--check"))
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs), "--diff"))
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs)))
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs), "--no-cache", "--check"))
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs), "--force"))
        runs[jobs].append(generate(root, cache, "--jobs", str(jobs), "--check"))
    one = [(code, text.replace(str(trees[1]), "ROOT")) for code, text in runs[1]]
    three = [(code, text.replace(str(trees[3]), "ROOT")) for code, text in runs[3]]
    assert [c for c, _ in one] == [1, 1, 1, 1, 1, 1, 1]  # the broken source and the orphan fail every run
    assert three == one
    assert snapshot(trees[1]) == snapshot(trees[3])
    first = one[0][1]
    assert "generated m0_batched.py" in first and "generated sub/s8_batched.py" in first
    # Messages come in file order: each source's lines before the next source's.
    order = ["m0_batched", "m1_batched", "m2_broken.py", "m3_batched", "m4_unsupported.py", "m5_batched",
             "sub/s6_batched", "sub/s8_batched"]
    positions = [first.index(name) for name in order]
    assert positions == sorted(positions), first


def test_jobs_is_validated(tmp_path):
    make_tree(tmp_path / "t")
    code, text = generate(tmp_path / "t", tmp_path / "c", "--jobs", "-2")
    assert code == 2 and "--jobs must be 0" in text
    code, _ = generate(tmp_path / "t", tmp_path / "c", "--jobs", "0")  # one per CPU
    assert code == 1  # the broken source and the orphan, as with one job


def test_an_unchanged_tree_starts_no_workers(tmp_path):
    """The incremental records make every file fresh: nothing is planned, no pool is started
    (a planned generation would fork: the run prints nothing different, so check it from inside)."""
    root = tmp_path / "t"
    root.mkdir()
    (root / ".hg").mkdir()
    for k in range(4):
        (root / f"m{k}.py").write_text(good(k))
    assert generate(root, tmp_path / "c")[0] == 0
    probe = textwrap.dedent('''\
        import sys
        from vectorizer.faces.cli import jobs
        from vectorizer.faces.cli.main import main
        started = []
        real = jobs.ProcessPoolExecutor
        jobs.ProcessPoolExecutor = lambda *a, **k: started.append(1) or real(*a, **k)
        code = main(["generate", "--jobs", "4", "."])
        print(code, len(started))
        ''')
    env = os.environ | {"PYTHONPATH": str(ROOT), "VECTORIZER_CACHE_DIR": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split() == ["0", "0"], done.stderr
    (root / "m2.py").write_text(good(2).replace("i + 1", "i + 3"))
    (root / "m3.py").write_text(good(3).replace("i + 1", "i + 3"))
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split() == ["0", "1"], done.stderr
