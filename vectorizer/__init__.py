"""vectorizer: scalar Python functions become batched NumPy code that keeps the scalar contract."""

from __future__ import annotations

__version__ = "0.1.0"

from .core import faceslots as _faceslots
from .errors import (
    FallbackWarning,
    InexactWarning,
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

# Loaded on first use. `import vectorizer` imports only the errors (the standard library): the
# `vectorizer` command starts without NumPy, libcst or the compiler, which it imports only when
# something must be generated; `from vectorizer import vectorize` imports the engine then.
_LAZY = {
    "ImportHookWarning": "faces.importhook",
    "VectorizedFunction": "api",
    "install_import_hook": "faces.importhook",
    "register_pytree_node": "faces.pytree_registry",
    "register_pytree_node_class": "faces.pytree_registry",
    "vectorize": "api",
    "vectorize_this_package": "faces.importhook",
    "vmap": "faces.vmap",
}


def _numpy_face() -> object:
    """The numpy.vectorize front (faces/npcompat.py), imported on first use: what api.py hands
    numpy.vectorize's parameters, callables that are not Python functions, and object inputs."""
    from .faces import npcompat

    return npcompat


def _explain_face() -> object:
    """`VectorizedFunction.explain`'s report (faces/explain.py), imported on first use."""
    from .faces import explain

    return explain


_faceslots.numpy_face = _numpy_face
_faceslots.explain_face = _explain_face


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "FallbackWarning",
    "ImportHookWarning",
    "InexactWarning",
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
    "register_pytree_node",
    "register_pytree_node_class",
    "vectorize",
    "vectorize_this_package",
    "vmap",
]
