"""`.any()` / `.all()` of a comparison or a negation of NumPy values of numbers (issue 51;
tests/contract/test_scalar_any.py): pymap3d's `(asarray(srange) < 0).any()`."""

import math

import numpy as np
from numpy import asarray


def aer2enu(az, el, srange, deg=True):
    if deg:
        el = math.radians(el)
        az = math.radians(az)
    try:
        if (asarray(srange) < 0).any():
            raise ValueError("Slant range  [0, Infinity)")
    except NameError:
        if srange < 0:
            raise ValueError("Slant range  [0, Infinity)")  # noqa: B904 - pymap3d's own code
    r = srange * math.cos(el)
    return r * math.sin(az), r * math.cos(az), srange * math.sin(el)


def negated_all(x):
    return 1.0 if (-np.asarray(x)).all() else 0.5 * x


def both(x, y):
    return (np.asarray(x) > y).all() + (np.float64(x) != y).any()


def python_bool(x):
    return (x < 0).any()  # a Python bool has no .any(): AttributeError, as the loop raises
