"""Reading what vectorizer needs from a user's object without running the object's code."""

from __future__ import annotations

import inspect
import types


def scalar_of(value: object, default: object = None) -> object:
    """The scalar function a @vectorize-decorated function keeps on itself (`vf.scalar`), else
    `default`. Read statically: `getattr` would run the object's `__getattr__` (a lazy module
    proxy's raises or imports: pygeodesy's raised AssertionError) or a property."""
    found = inspect.getattr_static(value, "scalar", None)
    return found if isinstance(found, types.FunctionType) else default
