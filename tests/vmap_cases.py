"""Per-example functions for the vmap and numpy.vectorize tests, written as a scientist would.

Each function takes one example's arrays (and numbers) and returns a number, an array or a tuple;
`tests/faces/test_vmap.py` maps them over a batch with `vectorizer.vmap` and compares with a Python
loop over the examples. Values read out of arrays are NumPy scalars, so NumPy's arithmetic rules
apply inside (x[i] / 0.0 is inf with a warning, not a ZeroDivisionError).

The functions stay inside the subset vectorizer supports for per-example arrays (see
vectorizer/rules/arrays.py); where the natural spelling was refused, the comment says so.
"""

from __future__ import annotations

import math

import numpy as np

NBINS = 4

# --------------------------------------------------------------------------------------------
# Distances


def euclidean(x, y):
    d = x - y
    return np.sqrt(np.sum(d * d))


def manhattan_loop(x, y):
    total = 0.0
    for i in range(len(x)):
        total += abs(x[i] - y[i])
    return total


def cosine_similarity(x, y):
    return np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))


# --------------------------------------------------------------------------------------------
# Norms


def l2_norm(x):
    return np.sqrt(np.sum(x * x))


def linalg_norm(x):
    return np.linalg.norm(x)


def max_norm_loop(x):
    m = 0.0
    for i in range(len(x)):
        a = abs(x[i])
        if a > m:
            m = a
    return m


# --------------------------------------------------------------------------------------------
# Small matrix algebra


def det2x2(a):
    return a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0]


def matvec_loop(a, v):
    rows = a.shape[0]
    cols = a.shape[1]
    out = np.zeros(rows)
    for i in range(rows):
        s = 0.0
        for j in range(cols):
            s += a[i, j] * v[j]
        out[i] = s
    return out


def trace_loop(a):
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i, i]
    return t


def project(x, a):
    return x @ a


def outer_product(x, y):
    return np.outer(x, y)


def weighted_sum(x, w):
    return np.dot(x, w)


# --------------------------------------------------------------------------------------------
# Histograms


def histogram_loop(x, lo, hi):
    """Counts of x in NBINS equal bins over [lo, hi); values outside are dropped."""
    counts = np.zeros(NBINS, dtype=np.int64)
    width = (hi - lo) / NBINS
    for i in range(len(x)):
        v = x[i]
        if lo <= v < hi:
            b = int((v - lo) / width)
            if b >= NBINS:
                b = NBINS - 1
            counts[b] += 1
    return counts


def count_in_bins(bins):
    """How many values fall in each of NBINS bins, given each value's bin index."""
    counts = np.zeros(NBINS)
    for i in range(len(bins)):
        counts[bins[i]] += 1.0
    return counts


# --------------------------------------------------------------------------------------------
# Smoothing and transforms


def moving_average3(x):
    out = np.zeros(len(x) - 2)
    for i in range(len(x) - 2):
        out[i] = (x[i] + x[i + 1] + x[i + 2]) / 3.0
    return out


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def standardize(x):
    mu = np.mean(x)
    sd = np.sqrt(np.mean((x - mu) ** 2))
    return (x - mu) / sd


def cumsum_loop(x):
    out = np.zeros(len(x))
    s = 0.0
    for i in range(len(x)):
        s = s + x[i]
        out[i] = s
    return out


def clip_loop(x, lo, hi):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = x[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        out[i] = v
    return out


# --------------------------------------------------------------------------------------------
# Fitting by hand-written loops


def line_fit(x, y):
    """Least-squares line y = slope * x + intercept."""
    n = len(x)
    sx = 0.0
    sy = 0.0
    sxy = 0.0
    sxx = 0.0
    for i in range(n):
        sx += x[i]
        sy += y[i]
        sxy += x[i] * y[i]
        sxx += x[i] * x[i]
    slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    intercept = (sy - slope * sx) / n
    return slope, intercept


def horner(coeffs, t):
    """coeffs[0] * t**(n-1) + ... + coeffs[n-1]."""
    acc = 0.0
    for i in range(len(coeffs)):
        acc = acc * t + coeffs[i]
    return acc


# --------------------------------------------------------------------------------------------
# Searches (early return)


def argmax_loop(x):
    """Index of the first largest element; stops at the first +inf (nothing beats it)."""
    best = 0
    for i in range(len(x)):
        if x[i] == math.inf:
            return i
        if x[i] > x[best]:
            best = i
    return best


def first_above(x, threshold):
    for i in range(len(x)):
        if x[i] > threshold:
            return i
    return -1


# --------------------------------------------------------------------------------------------
# Branches on a scalar parameter and on the data


def shrink_or_shift(x, alpha):
    """Scale by alpha when it is positive, else shift by it; a large-norm example is halved."""
    if alpha > 0.0:
        y = x * alpha
    else:
        y = x - alpha
    if np.sum(y * y) > 100.0:
        y = y * 0.5
    return y


# --------------------------------------------------------------------------------------------
# Several results, per-example reads that may fail, whole-batch shapes


def min_max(x):
    return np.min(x), np.max(x)


def mean_and_centered(x):
    mu = np.mean(x)
    return mu, x - mu


def pick(x, i):
    """x[i] * 2: an IndexError for an index out of range, as for any NumPy array."""
    return x[i] * 2.0


def scale(x, factor):
    return x * factor


def axpy(a, x, y):
    return a * x + y


def row_sums_loop(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.sum(a[i])
    return out


def row_scale_loop(a, w):
    """Scale row i of a by w[i]."""
    out = a * 0.0
    for i in range(a.shape[0]):
        out[i] = a[i] * w[i]
    return out


def relu_loop(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0.0:
            out[i] = x[i]
    return out


def distance_to_point_loop(x, p):
    """Distance of one row to a fixed point by a hand-written loop (the benchmark kernel)."""
    s = 0.0
    for i in range(len(x)):
        d = x[i] - p[i]
        s += d * d
    return math.sqrt(s)


def fill_value(n_unused):
    return np.full(3, 2.5)


def constant_of_lane(k):
    return k * 0 + 7


# --------------------------------------------------------------------------------------------
# Natural code the engine refuses (it runs element by element, with a FallbackWarning)


def sum_by_iteration(x):
    s = 0.0
    for v in x:  # refused: for loops must iterate over range(...) or a module-level tuple
        s += v
    return s


def largest_magnitude(x):
    return np.abs(x).max()  # a reduction method of an expression: np.max over the example axis


def standardize_std(x):
    return (x - np.mean(x)) / np.std(x)  # refused: np.std has no batching rule


def two_rows(x):
    out = np.zeros((2, len(x)))  # refused: only 1-d sizes for constructors
    out[0] = x
    out[1] = x * 2.0
    return out


def columns_of_transpose(a):
    return a.T.shape[0] * 1.0  # refused: attribute of an attribute


# --------------------------------------------------------------------------------------------
# Scalar functions for the numpy.vectorize drop-in tests


def scalar_clip(v, lo, hi):
    if v < lo:
        v = lo
    elif v > hi:
        v = hi
    return v


def scalar_affine(x, a=2.0, b=1.0):
    """a * x + b."""
    return a * x + b


def scalar_int_or_float(x):
    if x > 0:
        return x * 0.5
    return 0


def scalar_div_mod(a, b):
    return a // b, a % b


def scalar_reciprocal(x):
    if x == 0:
        raise ValueError("x must not be zero")
    return 1.0 / x


def scalar_poly(x, coeffs):
    acc = 0.0
    for i in range(len(coeffs)):
        acc = acc * x + coeffs[i]
    return acc


def scalar_label_scale(x, label):
    return x * len(label)


def scalar_count_positive(x):
    return x > 0
