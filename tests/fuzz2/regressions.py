"""Regression files: a shrunk disagreement, replayed by the test suite.

`regressions/f2_<digest>.py` is the program itself (importable: it defines `f`, `_reset`,
`_mutate`), after a header of comments:

    # fuzz2 regression: replayed by tests/fuzz2/test_fuzz2.py
    # status: open          (a strict xfail while open; 'fixed' once the engine passes it)
    # backend: numpy
    # kind: wrong value: float
    # known-when: impure    (optional: only programs with an impure static call count as this one)
    # found: seed 116
    # arg: int array 2 -1 2
    # | the checker's detail...

An open file also marks its kind as known: a later disagreement of the same kind on the same
backend (and, with `known-when`, only in a program with that property) is counted as known
instead of failing the run, so a run continues past a bug someone is fixing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .inputs import decode, encode

DIRECTORY = Path(__file__).parent / "regressions"
PROPERTIES = ("impure", "static", "mutate")  # what `known-when` may require of a program


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
            fields[key] = value.split("   ")[0].strip()
    return Regression(path, fields["status"], fields["backend"], fields["kind"], fields["known-when"], args,
                      path.read_text())


def all_files() -> list[Path]:
    return sorted(DIRECTORY.glob("f2_*.py"))


def program_properties(program, outcome_round: int) -> set[str]:  # noqa: ANN001 - program.Program
    props = set()
    if program.impure:
        props.add("impure")
    if program.static_kinds:
        props.add("static")
    if outcome_round:
        props.add("mutate")
    return props


def known(backend: str, kind: str, props: set[str]) -> Path | None:
    """The open regression file that already shows this kind of failure, if any."""
    for path in all_files():
        reg = read(path)
        if reg.status == "open" and reg.backend == backend and reg.kind == kind \
                and (not reg.known_when or reg.known_when in props):
            return path
    return None
