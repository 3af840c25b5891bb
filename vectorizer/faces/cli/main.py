"""The `vectorizer` command: write batched NumPy modules next to scalar source files.

    vectorizer generate [PATHS...]    write {stem}_batched.py modules (generate_cmd.py; the default
                                      command: `vectorizer src/` works too, as black's)
    vectorizer check [PATHS...]       exit 1 if one is missing or stale (generate --check; ruff's habit)
    vectorizer show FILE::FUNCTION    print the generated code of one function (show_cmd.py)
    vectorizer report PACKAGE|PATH    which functions the import hook would vectorize, and why not
    vectorizer cache [--prune|--clear]  the decorator's disk cache: size and bound (cache_cmd.py)
    vectorizer explain FILE::FUNCTION the source annotated with what the compiler did (explain_cmd.py)
    vectorizer errors [CODE]          the error catalogue (errors_cmd.py)

A first word that is no command and no path, but close to a command (`vectorizer chek src/`), is a
usage error that names the command ("did you mean 'check'?"). Messages go to stderr, diffs and
`show` to stdout. Exit codes are EXIT_CODES below.

Start-up: `vectorizer --help` and an up-to-date `generate` import neither NumPy, libcst nor the
compiler (`import vectorizer` imports only its errors); each command imports what it needs when
it runs. tests/faces/test_cli_startup.py holds this, scripts/bench_cli.py times it.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import traceback
from pathlib import Path

from ... import __version__
from . import cache_cmd, config, errors_cmd, explain_cmd, generate_cmd, show_cmd
from . import report as report_command
from .cliio import Reporter

EXIT_CODES = """exit codes:
  0    nothing to change, or changes written (without --exit-non-zero-on-change)
  1    check, --check/--diff: something would change; --exit-non-zero-on-change: something was
       written; or a file failed (syntax error, unreadable, hand-edited output, orphaned
       output, unsupported function with --strict)
  2    usage or configuration error
  123  internal error (the transformer crashed on the file named)"""

COMMANDS = {"generate": generate_cmd.run, "check": generate_cmd.run, "show": show_cmd.run,
            "report": report_command.run, "cache": cache_cmd.run, "errors": errors_cmd.run,
            "explain": explain_cmd.run}


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `command`, only that command's sub-parser (a start-up saving: the
    full help builds them all)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="report errors only")
    common.add_argument("-v", "--verbose", action="store_true", help="also report unchanged and skipped files")
    common.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour output (auto: on a terminal; NO_COLOR / FORCE_COLOR are honoured)")
    common.add_argument("--config", metavar="FILE", help="use this configuration file (no discovery)")
    parser = argparse.ArgumentParser(prog="vectorizer", formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=EXIT_CODES, description="Turn scalar Python functions into batched NumPy code.")
    parser.add_argument("--version", action="version", version=f"vectorizer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    for names, add in ((("generate", "check"), lambda: generate_cmd.add_parser(sub, common, EXIT_CODES)),
                       (("show",), lambda: show_cmd.add_parser(sub, common)),
                       (("report",), lambda: report_command.add_parser(sub, common)),
                       (("explain",), lambda: explain_cmd.add_parser(sub, common)),
                       (("cache",), lambda: cache_cmd.add_parser(sub, common)),
                       (("errors",), lambda: errors_cmd.add_parser(sub, common))):
        if command is None or command in names:
            add()
    return parser


def suggestion(word: str) -> str | None:
    """The command `word` is a misspelling of, if it is close to one (`chek` -> `check`)."""
    found = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)
    return found[0] if found else None


def _first_word(argv: list[str]) -> str | None:
    """`argv` with `generate` put first when it starts with paths or options (black's habit:
    `vectorizer src/`); None for a word that is neither a command nor a path (the message printed)."""
    word = argv[0]
    if word in COMMANDS or word in ("-h", "--help", "--version"):
        return word
    if word.startswith("-") or Path(word).exists():
        return "generate"
    close = suggestion(word)
    if close is not None:
        print(f"error: {word!r} is not a command, nor an existing path; did you mean {close!r}? "
              f"(`vectorizer {close} --help`)", file=sys.stderr)
        return None
    if "/" not in word and "\\" not in word and "." not in word:  # a word, not a file name
        print(f"error: {word!r} is not a command ({', '.join(COMMANDS)}), nor an existing path "
              "(`vectorizer --help` lists the commands)", file=sys.stderr)
        return None
    return "generate"  # a missing file: generate says so (exit 2)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (never calls sys.exit)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        _parser().print_help(sys.stderr)
        return 2
    command = _first_word(argv)
    if command is None:
        return 2
    if command != argv[0]:
        argv.insert(0, command)
    try:
        args = _parser(command if command in COMMANDS else None).parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
    reporter = Reporter(args)
    try:
        return COMMANDS[args.command](args, reporter)
    except (config.ConfigError, FileNotFoundError) as exc:
        reporter.clear()
        reporter.error(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        reporter.clear()
        return 130
    except Exception as exc:
        reporter.clear()
        reporter.error(f"error: internal error: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        return 123
