"""The class of a disagreement, without values: what the loop did against what the batched call
did. Classes tell bugs apart (a run reports, and shrinks, each class separately)."""

from __future__ import annotations

import math

INT64 = (-(2**63), 2**63 - 1)


def _big(value) -> bool:  # noqa: ANN001
    items = value if isinstance(value, tuple) else (value,)
    return any(type(v) is int and not INT64[0] <= v <= INT64[1] for v in items)


def _complex(value) -> bool:  # noqa: ANN001
    items = value if isinstance(value, tuple) else (value,)
    return any(isinstance(v, complex) for v in items)


def classify(exact: list, got, lanes: list) -> str:  # noqa: ANN001
    """`exact`: the loop's outcomes (("value", v) / ("raise", exc)) up to its first raise; `got`:
    the batched call's result or exception."""
    raised = next((v for k, v in exact if k == "raise"), None)
    if isinstance(got, BaseException):
        name = type(got).__name__
        if raised is None:
            if any(_big(v) for _, v in exact):
                return f"int beyond int64: batched raised {name}, not the overflow refusal"
            if any(_complex(v) for _, v in exact):
                return f"complex result: batched raised {name}, not the complex refusal"
            return f"spurious exception: batched raised {name}, every lane of the loop returns"
        want = type(raised).__name__
        if type(got) is not type(raised):
            return f"wrong exception type: loop raises {want}, batched {name}"
        if str(got) != str(raised):
            return f"wrong exception message for {want}"
        return f"exception on the wrong lane: {want}"
    if raised is not None:
        return f"missed exception: loop raises {type(raised).__name__}, batched returns"
    if any(_big(v) for _, v in exact):
        return "int beyond int64 returned without the overflow refusal"
    return _value_class(exact, got)


def _value_class(exact: list, got) -> str:  # noqa: ANN001
    import numpy as np

    columns = got if isinstance(got, tuple) else (got,)
    values = [v for _, v in exact]
    expected_columns = list(zip(*values)) if values and isinstance(values[0], tuple) else [values]
    for want, column in zip(expected_columns, columns):
        arr = np.asarray(column).ravel()
        kinds = {type(v) for v in want}
        if (float in kinds and arr.dtype != np.float64) or (kinds <= {bool} and arr.dtype != np.bool_) \
                or (kinds <= {int} and arr.dtype.kind not in "if"):
            return f"wrong result dtype: {arr.dtype} for {sorted(k.__name__ for k in kinds)}"
        for w, g in zip(want, arr.tolist()):
            if isinstance(w, float) and isinstance(g, float):
                if math.isnan(w) != math.isnan(g):
                    return "wrong value: NaN against a number"
                if w == g and math.copysign(1, w) != math.copysign(1, g):
                    return "wrong value: sign of zero"
                if not math.isnan(w) and w != g:
                    return "wrong value: float"
            elif w != g:
                return f"wrong value: {type(w).__name__}"
    if len(columns) != len(expected_columns):
        return "wrong result arity"
    return "wrong value (other)"
