"""Importing this module raises: @vectorize(fallback="error") refuses at decoration time."""
from vectorizer import vectorize


@vectorize(fallback="error")
def refused_at_import(x: float) -> float:
    with x:
        pass
    return x
