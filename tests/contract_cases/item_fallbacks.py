"""`try: e[mask] = 0.0 ... except TypeError: <code for numbers>` (pymap3d's arrays-or-numbers
idiom; issue 51; tests/contract/test_item_fallbacks.py)."""

from math import atan2, degrees, hypot

import numpy as np


def enu2aer(e, n, u, deg=True):
    try:
        e[abs(e) < 1e-3] = 0.0
        n[abs(n) < 1e-3] = 0.0
        u[abs(u) < 1e-3] = 0.0
    except TypeError:
        if abs(e) < 1e-3:
            e = 0.0
        if abs(n) < 1e-3:
            n = 0.0
        if abs(u) < 1e-3:
            u = 0.0
    r = hypot(e, n)
    slant_range = hypot(r, u)
    elev = atan2(u, r)
    az = atan2(e, n) % 6.283185307179586
    if deg:
        az = degrees(az)
        elev = degrees(elev)
    return az, elev, slant_range


def shifted(x, y):
    """The idiom in a callee given computed numbers."""
    return enu2aer(x - 1.0, y * 2.0, x * y)


def numpy_scalar(x):
    return enu2aer(np.float64(x), x, 1.0)


def guarded(x):
    try:
        x[x > 1.0] = 1.0
    except TypeError:
        x = min(x, 1.0)
    else:
        x = -x
    return x * 3.0


def raising_index(x):
    try:
        x[1.0 / x > 0] = 0.0  # ZeroDivisionError first at x == 0: not rewritten
    except TypeError:
        x = 2.0
    return x
