"""Regression files: a shrunk disagreement, replayed by the test suite.

`regressions/f2_<digest>.py` is the program itself (importable: it defines `f`, `_reset`,
`_mutate`), after a header of comments:

    # fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
    # status: open          (a strict xfail while open; 'fixed' once the engine passes it)
    # backend: numpy
    # kind: wrong value: float
    # known-when: random_cls  (optional: see below)
    # found: seed 116
    # arg: int array 2 -1 2
    # | the checker's detail...

An open file also marks its kind as known: a later disagreement of the same kind on the same
backend is counted as known instead of failing the run, so a run continues past a bug someone
is fixing. With `known-when: <static kind>` (statics.py: `random_cls`, `counter`...) every
disagreement of a program that makes such a static call counts as known, whatever its kind:
a value computed once instead of per lane shows up as any kind downstream (a wrong value, an
exception on another lane). Known disagreements are still counted and listed by kind.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .inputs import decode, encode

DIRECTORY = Path(__file__).parent / "regressions"


@dataclass
class Regression:
    path: Path
    status: str
    backend: str
    kind: str
    known_when: str
    args: list
    source: str


def write(source: str, args: list, backend: str, kind: str, detail: str, found: str, known_when: str = "") -> Path:
    lines = ["# fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py",
             "# status: open   (a strict xfail while open; 'fixed' once the engine passes it)",
             f"# backend: {backend}", f"# kind: {kind}"]
    if known_when:
        lines.append(f"# known-when: {known_when}")
    lines.append(f"# found: {found}")
    lines += [f"# arg: {encode(a)}" for a in args]
    lines += [f"# | {line}"[:300] for line in detail.splitlines()[:30]]
    digest = hashlib.sha256((source + repr(lines[4:]) + backend).encode()).hexdigest()[:10]
    DIRECTORY.mkdir(exist_ok=True)
    path = DIRECTORY / f"f2_{digest}.py"
    path.write_text("\n".join(lines) + "\n" + source)
    return path


def read(path: Path) -> Regression:
    fields = {"status": "open", "backend": "numpy", "kind": "", "known-when": ""}
    args = []
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(": ")
        if key == "arg":
            args.append(decode(value))
        elif key in fields:
            fields[key] = value.split("  ")[0].strip()
    return Regression(path, fields["status"], fields["backend"], fields["kind"], fields["known-when"], args,
                      path.read_text())


def all_files() -> list[Path]:
    return sorted(DIRECTORY.glob("f2_*.py"))


def known(backend: str, kind: str, static_kinds: frozenset[str]) -> Path | None:
    """The open regression file that already shows this failure, if any: the same kind on the
    same backend, or (`known-when`) any kind in a program making that kind of static call."""
    for path in all_files():
        reg = read(path)
        if reg.status == "open" and reg.backend == backend and (
                reg.known_when in static_kinds if reg.known_when else reg.kind == kind):
            return path
    return None
