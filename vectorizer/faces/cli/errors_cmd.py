"""`vectorizer errors [CODE]`: the error catalogue in the terminal.

Without a code, one line per code (the code and what it means); with a code, its page: what it
means, an example that fails with it and the rewrite that works (vectorizer/catalogue/). Exit
code 0; 2 for a code without a page (a usage error, as for any unknown argument).
"""

from __future__ import annotations

import argparse
import sys

from ... import catalogue
from .cliio import Reporter


def add_parser(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    errors = sub.add_parser("errors", parents=[common], help="the error catalogue: list the codes, or show one's page",
                            description="Without CODE, list every error code with one line; with CODE, print its "
                                        "page (what it means, a failing example, the rewrite that works).")
    errors.add_argument("code", nargs="?", metavar="CODE", help="an error code, e.g. VEC-SYNTAX (case-insensitive)")


def run(args: argparse.Namespace, reporter: Reporter) -> int:
    if args.code is None:
        known = catalogue.codes()
        width = max(map(len, known))
        for code in known:
            print(f"{code:<{width}}  {catalogue.summary(code)}")
        reporter.info("`vectorizer errors CODE` shows a code's page.")
        return 0
    try:
        text = catalogue.page(args.code)
    except KeyError:
        reporter.error(f"error: no such error code {args.code!r}; the codes are: {', '.join(catalogue.codes())}")
        return 2
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
