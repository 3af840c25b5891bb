"""vectorizer: scalar Python functions become batched NumPy code that keeps the scalar contract."""

from __future__ import annotations

__version__ = "0.1.0"

from .api import VectorizedFunction, vectorize
from .errors import (
    FallbackWarning,
    SourceUnavailableError,
    UnsupportedCallError,
    UnsupportedSyntaxError,
    VectorizeError,
    VectorizeErrorGroup,
    VectorizeInputError,
    VectorizeOverflowError,
    VectorizeTypeError,
    VectorizeValueError,
)
from .importhook import ImportHookWarning, install_import_hook, vectorize_this_package
from .vmap import vmap

__all__ = [
    "FallbackWarning",
    "ImportHookWarning",
    "SourceUnavailableError",
    "UnsupportedCallError",
    "UnsupportedSyntaxError",
    "VectorizeError",
    "VectorizeErrorGroup",
    "VectorizeInputError",
    "VectorizeOverflowError",
    "VectorizeTypeError",
    "VectorizeValueError",
    "VectorizedFunction",
    "__version__",
    "install_import_hook",
    "vectorize",
    "vectorize_this_package",
    "vmap",
]
