"""In process, the calls a generated NumPy module makes for CPython's `math` values: its
`_vz_exact` (and `_vz_erf`/`_vz_erfc`) bound to backends/numba/exactloops.py's compiled loops.

The loops' module is exactloops' text with the helpers it calls (C's pow, cbrt and exp2 under
symbols LLVM does not simplify, CPython's hypot: codegen/numba_helpers.py), put together here,
the layer that sees both. Built once a process, on the first call that loads the loops.
"""

from __future__ import annotations

import threading

from ..backends.numba.exactloops import PRELUDE, ExactMath, loops_text

_made: ExactMath | None = None
_lock = threading.Lock()


def module_text() -> str:
    """The Numba module of the loops: the prelude, the helpers the loops call, the loops."""
    from ..codegen.numba_helpers import helper_source

    loops = loops_text()
    return f"{PRELUDE}\n\n{helper_source(loops)}\n\n{loops}"


def exact_math() -> ExactMath:
    """The process's `_vz_exact` (one, so the loops load once)."""
    global _made
    with _lock:
        if _made is None:
            _made = ExactMath(module_text)
    return _made
