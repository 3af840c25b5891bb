"""`vectorizer generate` (and `vectorizer check`, which is `generate --check`): write a batched
NumPy module beside each source file that selects functions, or check that it is up to date.

`generate` reads each Python file (directories are walked; see config.py for include, exclude and
.gitignore), selects its `@vectorize` functions plus those listed in `functions`, and writes
`{stem}_batched.py` beside it: NumPy-only, deterministic, with a checksummed header, and once per
directory the `_vectorizer_runtime.py` those modules import (runtimefile.py). An output that
exists but is not ours, or was edited by hand, is never overwritten without --force. A source with
nothing selected gets no output; an old output it left behind (or one whose source is gone) is
reported as orphaned and never deleted. A symbolic link that leaves the project is never read or
written. Writes are atomic: a temp file `.{name}.*.tmp` in the same directory, then os.replace.

Start-up: this module imports neither NumPy, libcst nor the compiler. A source whose incremental
record is fresh (incremental.py) is decided from its text alone; `generate_module` below imports
the compiler (standalone.py) on the first source that must really be generated.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import VectorizeError
from ...options import BACKENDS, Options
from . import config, guard, runtimefile
from .cliio import (
    GENERATED,
    LEAVES_PROJECT,
    Reporter,
    atomic_write,
    decode,
    display_path,
    is_generated,
    leaves_project,
    link_refusal,
    plural,
    render,
    syntax_error_text,
    unified_diff,
)
from .incremental import Records
from .sources import checksum_ok, selected_functions

if TYPE_CHECKING:  # a real import would load the compiler at start-up
    from .standalone import ModuleResult


def generate_module(text: str, filename: str, **kwargs: Any) -> ModuleResult:
    """standalone.generate_module, imported on first use (libcst, NumPy and the compiler)."""
    from .standalone import generate_module as generate

    return generate(text, filename, **kwargs)


class Run:
    """One `generate` run over many files: per-file outcome, counters, the exit code."""

    def __init__(self, args: argparse.Namespace, settings: config.Settings, report: Reporter) -> None:
        self.args, self.settings, self.report = args, settings, report
        self.dry = args.check or args.diff
        self.counts: Counter[str] = Counter()
        self.options = Options(backend=settings.backend)
        self.records = Records(enabled=not args.no_cache)
        self.runtime_dirs: set[Path] = set()  # directories whose modules import _vectorizer_runtime.py
        self.runtimes_seen: set[Path] = set()
        self.generate = generate_module  # jobs.parallel swaps in the worker processes' results

    def fail(self, message: str) -> None:
        self.report.error(message)
        self.counts["failed"] += 1

    def source(self, path: Path, text: str | None = None, to_stdout: bool = False) -> None:
        """Generate (or check) the output of one source file; any problem is reported, not raised."""
        self.counts["seen"] += 1
        try:
            self._source(path, text, to_stdout)
        except Exception as exc:  # a bug in vectorizer: exit 123, name the file, go on with the others
            self.counts["crashed"] += 1
            self.report.error(f"error: internal error while generating from {display_path(path)}: "
                              f"{type(exc).__name__}: {exc}\nThis is a bug in vectorizer; please report it "
                              "(-v shows the traceback).")
            self.report.detail(traceback.format_exc())

    def _source(self, path: Path, text: str | None, to_stdout: bool) -> None:
        shown = display_path(path)
        if text is None and (text := self._read(path)) is None:
            return
        stem = self.settings.source_stem(path.name)
        if text.startswith(GENERATED) or stem is not None:
            if stem is not None and text.startswith(GENERATED) and not path.with_name(f"{stem}.py").exists():
                self.fail(f"error: {shown} is orphaned: its source {stem}.py does not exist; "
                          "vectorizer never deletes files: delete it")
            if text.startswith(GENERATED) and path.name == runtimefile.RUNTIME_FILE:
                self.runtimes_seen.add(path)  # orphaned? known once every module of the run is done
            return self.report.detail(f"skipped {shown} (a generated module or output name)")
        names, required = self.settings.functions_for(path)
        try:
            selected = selected_functions(text, names)
        except SyntaxError as exc:
            return self.fail(syntax_error_text(shown, exc))
        except ValueError as exc:  # null bytes
            return self.fail(f"{shown}:1:1: error: syntax error: {exc}")
        if missing := [n for n in required if n not in selected]:
            return self.fail(f"error: {shown} has no top-level function {', '.join(map(repr, missing))} "
                             f"(listed in 'functions' in {self.settings.source})")
        output = self.settings.output_for(path)
        shaping = repr((names, selected, self.settings.backend, self.settings.on_unsupported))
        fresh = selected and not to_stdout and self.records.fresh(path, text, shaping, output)
        replay = self.records.warnings(path, shown) if fresh else None
        if replay is not None:  # the output is what generating would write again, with these warnings
            self.counts["unchanged"] += 1
            self.runtime_dirs.add(output.parent)
            for _, message in replay:
                self.counts["fallback"] += 1
                if self.settings.on_unsupported == "warn":
                    self.report.warning(message)
            return self.report.detail(f"unchanged {display_path(output)} (from {shown}; incremental record)")
        if not selected:
            self.report.detail(f"no function selected in {shown}")
            if is_generated(output):
                self.fail(f"error: {display_path(output)} is orphaned: {shown} selects no function any more; "
                          "vectorizer never deletes files: delete it, or select a function again")
            return
        try:
            # stdout gets one file: the module carries the helpers it calls instead of importing them
            result = self.generate(text, shown, names=names, options=self.options, shared=not to_stdout)
        except VectorizeError as exc:
            return self.fail(str(exc))
        compile(result.text, str(output), "exec")  # output that does not compile is our bug: 123
        strict = self.settings.on_unsupported == "error"
        warnings = [[name, render(exc, "warning", f"{name!r} is exported as a per-element loop")]
                    for name, exc in result.per_element.items()]
        for name, exc in result.per_element.items():
            self.counts["fallback"] += 1
            if strict:
                self.report.error(render(exc, "error", f"{name!r} cannot be batched"))
        if self.settings.on_unsupported == "warn":
            for _, message in warnings:
                self.report.warning(message)
        if strict and result.per_element:
            return self.fail(f"error: nothing written for {shown}: unsupported constructs "
                             "(--strict / on-unsupported = \"error\")")
        if to_stdout:
            sys.stdout.write(result.text)
            self.counts["changed"] += 1
            return self.report.detail(f"generated <stdout> (from {shown})")
        self.runtime_dirs.add(output.parent)
        if self._update(output, result.text, shown):  # later runs skip it, and repeat its warnings
            self.records.remember(path, text, shaping, output, result.text, warnings, shown)

    def _read(self, path: Path) -> str | None:
        try:
            return decode(path.read_bytes())
        except OSError as exc:
            self.fail(f"error: cannot read {display_path(path)}: {exc.strerror or exc}")
        except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
            self.fail(f"error: cannot decode {display_path(path)}: {exc}")
        return None

    def _update(self, output: Path, new: str, source: str, kind: str = "") -> bool:
        """Write `new` to `output` unless it is there already; whether `output` now holds it.
        `kind` prefixes the counters ("runtime " for the shared runtime file)."""
        shown = display_path(output)
        if leaves_project(output, self.settings.root):  # never read, diffed or written through
            self.fail(link_refusal(shown))
            return False
        try:
            old = output.read_bytes().decode("utf-8", "replace") if output.exists() else None
        except OSError as exc:
            self.fail(f"error: cannot read {shown}: {exc.strerror or exc}")
            return False
        if old == new:
            self.counts[kind + "unchanged"] += 1
            self.report.detail(f"unchanged {shown} (from {source})")
            return True
        if self.args.diff:
            sys.stdout.write(unified_diff(old, new, shown, self.report.diff_color))
        if old is not None and not self.args.force and not (old.startswith(GENERATED) and checksum_ok(old)):
            self.fail(guard.refusal(shown, old.startswith(GENERATED), self.settings.output))
            return False
        self.counts[kind + "changed"] += 1
        if self.dry:
            self.report.info(f"would generate {shown} (from {source})")
            return False
        try:
            atomic_write(output, new.encode("utf-8"))
        except OSError as exc:
            self.counts[kind + "changed"] -= 1
            self.fail(f"error: cannot write {shown}: {exc.strerror or exc}")
            return False
        self.report.info(f"generated {shown} (from {source})")
        return True

    def summary(self) -> str:
        c, would = self.counts, "would be " if self.dry else ""
        parts = [f"{plural(c['changed'], 'file')} {would}generated"] if c["changed"] else []
        if c["unchanged"]:
            parts.append(f"{plural(c['unchanged'], 'file')} {would or ''}left unchanged")
        if c["fallback"]:
            parts.append(f"{plural(c['fallback'], 'function')} not batched (per-element loop)")
        if c["failed"]:
            parts.append(f"{plural(c['failed'], 'file')} failed")
        if c["crashed"]:
            parts.append(f"{plural(c['crashed'], 'internal error')}")
        text = ", ".join(parts) + "." if parts else f"nothing to generate ({plural(c['seen'], 'file')} read)."
        runtime = runtimefile.summary(c["runtime changed"], would)
        return f"{runtime}\n{text}" if runtime else text  # the files summary stays the last line

    def exit_code(self) -> int:
        if self.counts["crashed"]:
            return 123
        changed = (self.counts["changed"] or self.counts["runtime changed"]) and (self.dry or self.args.exit_non_zero_on_change)
        return 1 if self.counts["failed"] or changed else 0


# -- the command ---------------------------------------------------------------------------------
def run(args: argparse.Namespace, report: Reporter) -> int:
    stdin = args.paths == ["-"]
    if "-" in args.paths and not stdin:
        raise config.ConfigError("'-' (standard input) cannot be combined with other paths")
    if stdin and (args.check or args.diff) and not args.stdin_filename:
        raise config.ConfigError("--check/--diff with '-' need --stdin-filename (the source to compare for)")
    paths = [] if stdin else [Path(p) for p in args.paths or ["."]]
    for path in paths:
        if not path.exists():
            raise config.ConfigError(f"path {path} does not exist")
    name = Path(args.stdin_filename) if args.stdin_filename else None
    if stdin:
        start = name.absolute().parent if name else Path.cwd()
    else:
        start = Path(os.path.commonpath([p.absolute() if p.is_dir() else p.absolute().parent for p in paths]))
    settings = config.load(start, Path(args.config) if args.config else None, _overrides(args))
    report.detail(f"configuration: {settings.source or 'none (defaults)'}; project root: {settings.root}")
    session = Run(args, settings, report)
    if stdin:
        if name and settings.force_exclude and settings.excluded(name.absolute()):
            report.detail(f"skipped {name} (excluded)")
            return 0
        try:
            text = decode(sys.stdin.buffer.read())
        except (UnicodeDecodeError, SyntaxError, LookupError) as exc:
            session.fail(f"error: cannot decode standard input: {exc}")
        else:
            session.source(name or Path("<stdin>"), text, to_stdout=not session.dry)
    else:
        files = list(settings.files(paths))
        with _parallel(session, files, args.jobs):
            for done, (path, skipped) in enumerate(files):
                report.progress(done, len(files), path)
                if skipped == LEAVES_PROJECT and path in paths:  # named on the command line: a failure
                    session.fail(link_refusal(display_path(path)))
                elif skipped:
                    report.detail(f"skipped {display_path(path)} ({skipped})")
                else:
                    session.source(path)
    runtimefile.update(session.runtime_dirs, session._update, session.records)
    for path in sorted(session.runtimes_seen):
        if path.parent.absolute() not in {d.absolute() for d in session.runtime_dirs} and runtimefile.orphaned(path):
            session.fail(runtimefile.orphan_message(path))
    if problem := session.records.save():
        report.detail(problem)
    report.clear()
    report.info(session.summary())
    return session.exit_code()


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The command-line settings that were given, keyed like the configuration file."""
    out: dict[str, Any] = {}
    for key in ("include", "exclude", "extend_exclude", "functions"):
        if getattr(args, key) is not None:
            out[key] = [v.strip() for item in getattr(args, key) for v in item.split(",") if v.strip()]
    for key in ("force_exclude", "respect_gitignore", "output", "backend", "on_unsupported"):
        if getattr(args, key) is not None:
            out[key] = getattr(args, key)
    if args.strict:
        out["on_unsupported"] = "error"
    return {k.replace("_", "-"): v for k, v in out.items()}




def _parallel(session: Run, files: list[tuple[Path, str | None]], jobs: int) -> contextlib.AbstractContextManager:
    """jobs.parallel (worker processes, which import the compiler), or nothing for one job."""
    if jobs == 1:
        return contextlib.nullcontext()
    from . import jobs as pool

    return pool.parallel(session, files, jobs)


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser, epilog: str) -> None:
    """`generate`, and `check`: the same command with --check, which never writes."""
    fmt = argparse.RawDescriptionHelpFormatter
    gen = sub.add_parser("generate", parents=[common], formatter_class=fmt, epilog=epilog,
                         help="write {stem}_batched.py modules (the default command)",
                         description="Write a batched NumPy module beside each source file that has\n"
                                     "@vectorize functions (or functions listed in the configuration).")
    check = sub.add_parser("check", parents=[common], formatter_class=fmt, epilog=epilog,
                           help="exit 1 if a batched module is missing or stale (generate --check)",
                           description="Write nothing; exit 1 if `vectorizer generate` would change a file\n"
                                       "(the same as `vectorizer generate --check`).")
    check.set_defaults(check=True, exit_non_zero_on_change=False, force=False)
    for parser in (gen, check):
        parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .); - reads stdin")
        mode = parser.add_argument_group("modes")
        if parser is gen:
            mode.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything would change")
        mode.add_argument("--diff", action="store_true", help="write nothing; print a unified diff, exit 1 if non-empty")
        if parser is gen:
            mode.add_argument("--exit-non-zero-on-change", action="store_true", help="exit 1 when a file was written")
            mode.add_argument("--force", action="store_true", help="overwrite outputs even if edited by hand")
        mode.add_argument("--no-cache", action="store_true",
                          help="generate every source again (ignore and keep no incremental records)")
        mode.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                          help="generate in N processes (0: one per CPU); output and messages as with 1")
        mode.add_argument("--stdin-filename", metavar="NAME", help="the path of the source read from stdin")
        mode.add_argument("--strict", action="store_true", help="unsupported constructs are errors (on-unsupported = error)")
        conf = parser.add_argument_group("settings (also [tool.vectorizer] keys)")
        for flag, what in (("include", "files a directory walk reads (default: *.py)"),
                           ("exclude", "files never read (replaces the defaults)"),
                           ("extend-exclude", "files never read, added to exclude"),
                           ("functions", "also select these functions: NAME or PATH-GLOB::NAME")):
            conf.add_argument(f"--{flag}", action="append", metavar="GLOBS" if flag != "functions" else "NAMES",
                              help=f"{what}; comma-separated, repeatable")
        conf.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, help="exclude explicit paths too")
        conf.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction,
                          help="skip git-ignored files (default)")
        conf.add_argument("--output", metavar="PATTERN", help="output file name (default: {stem}_batched.py)")
        conf.add_argument("--backend", choices=BACKENDS, help="code generation backend (default: numpy)")
        conf.add_argument("--on-unsupported", choices=config.ON_UNSUPPORTED,
                          help="warn: per-element loop and a warning (default); error: fail the file; ignore")
