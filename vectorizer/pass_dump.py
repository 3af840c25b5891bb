"""VECTORIZER_DUMP_AFTER=<pass>|all: the function being vectorized, printed to stderr after that
pass (or after each); `as_text` prints what any pass returns (a libcst tree, the array code, lane
kernels), which tests/passes/ read too.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import libcst as cst


def as_text(code: Any) -> str:
    """The source text of what a pass returned (a libcst tree, the array code, lane kernels)."""
    if isinstance(code, cst.FunctionDef):
        return cst.Module(body=[code]).code
    return code.text()


def dump_after(stage: str, text: Callable[[], str], stages: tuple[str, ...]) -> None:
    """Print `text()` after the pass `stage` when VECTORIZER_DUMP_AFTER names it or is "all" (the
    Numba backend's stages are LANE_PASSES). A name that is none of `stages` gets one warning listing
    them, instead of printing nothing."""
    wanted = os.environ.get("VECTORIZER_DUMP_AFTER", "")
    if wanted in ("all", stage):
        print(f"# ---- after {stage} ----\n{text()}", file=sys.stderr)
    elif wanted and wanted not in stages and not _warned:
        _warned.append(wanted)
        warnings.warn(f"VECTORIZER_DUMP_AFTER={wanted!r} names no pass; use 'all' or one of: "
                      f"{', '.join(stages)}", stacklevel=2)


_warned: list[str] = []  # the unknown stage already warned about: one warning a process
