"""A module other than the vectorized function's: its functions are not same-module callees."""


def other_helper(x: float) -> float:
    return x + 1.0
