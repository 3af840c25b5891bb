"""Hostile batches for a fuzz2 program: NaN, ±inf, -0.0, subnormals, huge floats, ints near
±2**63, zeros, negatives and tame values, as 1-d and 2-d arrays, empty batches, and uniform
arguments (Python scalars, 0-d and shape-(1,) arrays), which select other specializations."""

from __future__ import annotations

import math
import random

import numpy as np

HOSTILE_FLOATS = (0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 5e-324, -5e-324, 2.2250738585072014e-308,
                  1e-310, 1.7976931348623157e308, -1.7976931348623157e308, 1e300, -1e300, 1.0, -1.0, 0.5, -0.5,
                  2.0**53, 2.0**53 + 2.0, 2.0**63, -(2.0**63), 9.223372036854776e18, 709.79, 710.5, -745.2)
HOSTILE_INTS = (0, 1, -1, 2, -2, 3, 2**31, -(2**31), 2**53, 2**53 + 1, -(2**53) - 1, 2**62, 2**63 - 1, -(2**63),
                -(2**63) + 1, 2**63 - 2, 3037000499, 3037000500, -3037000500)
DTYPES = {"int": np.int64, "float": np.float64, "bool": np.bool_}


def value(rng: random.Random, ty: str):  # noqa: ANN201 - a Python number of `ty`
    u = rng.random()
    if ty == "bool":
        return rng.random() < 0.5
    if ty == "int":
        if u < 0.3:
            return rng.choice(HOSTILE_INTS)
        if u < 0.85:
            return rng.randint(-12, 20)
        return rng.randint(-(2**63), 2**63 - 1)
    if u < 0.35:
        return rng.choice(HOSTILE_FLOATS)
    if u < 0.65:
        return rng.uniform(-10.0, 10.0)
    if u < 0.8:
        return float(rng.randint(-8, 16)) / rng.choice((1, 2, 4))
    return math.copysign(rng.random() * 2.0 ** rng.randint(-1074, 1023), rng.random() - 0.5)


def batch(rng: random.Random, params: list[tuple[str, str]]) -> list:
    """One argument per parameter; the batched ones share one shape."""
    form = rng.random()
    if form < 0.78:
        shape: tuple[int, ...] = (rng.randint(1, 12),)
    elif form < 0.9:
        shape = (rng.randint(1, 3), rng.randint(1, 4))
    elif form < 0.94:
        shape = (0,)
    else:
        shape = ()  # every argument uniform
    args = []
    for _, ty in params:
        mode = rng.random()
        if shape != () and mode < 0.8:
            values = [value(rng, ty) for _ in range(math.prod(shape))]
            args.append(np.array(values, dtype=DTYPES[ty]).reshape(shape))
        elif mode < 0.9:
            args.append(value(rng, ty))
        elif mode < 0.95:
            args.append(np.array(value(rng, ty), dtype=DTYPES[ty]))
        else:
            args.append(np.array([value(rng, ty)], dtype=DTYPES[ty]))
    return args


# -- the text form of an argument (regression files) ------------------------------------------
def encode(value) -> str:  # noqa: ANN001
    """`float array 2x3 0x1.8p+1 ...`, `int scalar 5`, `bool 0d True`: floats as float.hex."""
    if isinstance(value, np.ndarray):
        kind = {"b": "bool", "i": "int", "f": "float"}[value.dtype.kind]
        shape = "x".join(map(str, value.shape)) if value.ndim else "0d"
        return " ".join([kind, "array", shape or "0", *(_item(kind, v) for v in value.ravel().tolist())])
    kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
    return f"{kind} scalar {_item(kind, value)}"


def _item(kind: str, v) -> str:  # noqa: ANN001
    return float(v).hex() if kind == "float" else str(bool(v) if kind == "bool" else int(v))


def decode(text: str):  # noqa: ANN201
    kind, form, *rest = text.split()
    parse = {"float": float.fromhex, "int": int, "bool": lambda s: s == "True"}[kind]
    if form == "scalar":
        return parse(rest[0])
    shape = () if rest[0] == "0d" else tuple(int(n) for n in rest[0].split("x"))
    return np.array([parse(s) for s in rest[1:]], dtype=DTYPES[kind]).reshape(shape)
