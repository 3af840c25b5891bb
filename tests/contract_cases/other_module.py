"""A module other than the vectorized function's: its functions are vectorized with their callers
(frontend/linking.py), and refusals inside them are reported at the call."""


def other_helper(x: float) -> float:
    return x + 1.0


def other_refused(x: float) -> float:
    try:
        return x + 1.0
    finally:
        x = 0.0
