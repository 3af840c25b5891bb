"""Late-bound entry points into faces/ for api.py, which sits below them and may not import them.

api.py calls the numpy.vectorize front (faces/npcompat.py) and the explain report
(faces/explain.py); the package's `__init__.py`, above every layer, binds these slots to functions
that import those faces on first use. The slots live here, at the bottom, so that binding them
imports nothing: `import vectorizer` stays cheap (the CLI's start-up) and api.py is imported only
when something needs it, whichever module imports it first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _unbound() -> Any:
    return None


numpy_face: Callable[[], Any] = _unbound  # -> the faces.npcompat module
explain_face: Callable[[], Any] = _unbound  # -> the faces.explain module
