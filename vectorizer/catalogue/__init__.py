"""The error catalogue: one Markdown page per error code vectorizer emits (`VEC-SYNTAX`, ...).

Each page says what the code means, shows an example that fails with it (a fenced block marked
`title="fails"`) and the rewrite that works (`title="works"`); `tests/catalogue/` runs both. The
pages are package data, read with importlib.resources, so `vectorizer errors CODE` and the
documentation site (docs/hooks.py) show the same text, installed or from a checkout. This module
imports nothing of vectorizer: any layer may use it.
"""

from __future__ import annotations

from importlib import resources

_SUFFIX = ".md"


def codes() -> list[str]:
    """Every code that has a page, sorted (`VEC` first, then `VEC-BUG`, `VEC-CALL`, ...)."""
    folder = resources.files(__name__)
    return sorted(entry.name[: -len(_SUFFIX)] for entry in folder.iterdir()
                  if entry.name.startswith("VEC") and entry.name.endswith(_SUFFIX))


def page(code: str) -> str:
    """The Markdown page of `code` (case-insensitive); KeyError for a code without a page."""
    wanted = code.strip().upper()
    if wanted not in codes():  # also keeps the name from reaching outside the folder
        raise KeyError(code)
    return resources.files(__name__).joinpath(wanted + _SUFFIX).read_text(encoding="utf-8")


def summary(code: str) -> str:
    """The page's title without the code: one line saying what the code means."""
    title = page(code).splitlines()[0].lstrip("# ").strip()
    return title.split(":", 1)[1].strip() if ":" in title else title
