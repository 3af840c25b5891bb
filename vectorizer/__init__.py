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

__all__ = [
    "FallbackWarning",
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
    "vectorize",
]
