"""Functions vectorizer cannot batch; the default fallback runs them element by element."""
import math


def uses_try(x: float) -> float:
    try:
        return math.sqrt(x) if x >= 0 else -1.0
    finally:
        pass


def double(x: float) -> float:
    return 2.0 * x


def call_in_conditional(x: float, n: int) -> float:
    if n > 5:
        return x
    elif (double(x) if n > 0 else x - n) > 1:  # an elif test: not rewritten (frontend/short_circuit.py)
        return x + 1
    return x - n


def raises_on_negative(x: float) -> float:
    try:
        y = 1.0 / x
    finally:
        pass
    if x < 0:
        raise ValueError(f"negative: {x}")
    return y
