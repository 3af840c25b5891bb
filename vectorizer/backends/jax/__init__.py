"""The JAX backend (`backend="jax"`, with `exact=False`): generated modules import `runtime`,
which imports JAX; nothing else in vectorizer does. `available()` asks without importing it."""

from __future__ import annotations

import importlib.util


def available() -> bool:
    """Whether JAX is installed (not imported: that costs a second)."""
    return importlib.util.find_spec("jax") is not None
