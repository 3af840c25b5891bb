"""Realistic scalar kernels written for the tests: physics, finance, root finding, iteration
counts, piecewise models. Each is plain Python, as a scientist would write it; the tests check
the batched version against these functions lane by lane."""

import math

G = 6.674e-11
EARTH_RADIUS_KM = 6371.0
TAX_BRACKETS = (10000.0, 40000.0, 90000.0)
TAX_RATES = (0.0, 0.12, 0.22, 0.35)
HORNER = (1.0, -0.5, 0.25, -0.125, 0.0625)


def escape_time(cr: float, ci: float, max_iter: int = 100) -> int:
    zr = zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < max_iter:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def collatz_steps(n: int) -> int:
    if n < 1:
        raise ValueError(f"collatz needs a positive start, got {n}")
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def norm_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_call(spot: float, strike: float, vol: float, t: float, rate: float) -> float:
    if t <= 0.0:
        return max(spot - strike, 0.0)
    sqrt_t = math.sqrt(t)
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    return spot * norm_cdf(d1) - strike * math.exp(-rate * t) * norm_cdf(d2)


def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))


def kepler_eccentric_anomaly(mean_anomaly: float, ecc: float) -> float:
    if not 0.0 <= ecc < 1.0:
        raise ValueError("eccentricity must be in [0, 1)")
    e = mean_anomaly if ecc < 0.8 else math.pi
    for _ in range(50):
        f = e - ecc * math.sin(e) - mean_anomaly
        step = f / (1.0 - ecc * math.cos(e))
        e -= step
        if abs(step) < 1e-12:
            break
    return e


def bisect_sqrt(a: float) -> float:
    if a < 0:
        raise ValueError("negative input")
    lo, hi = 0.0, max(a, 1.0)
    while hi - lo > 1e-12 * hi:
        mid = 0.5 * (lo + hi)
        if mid * mid > a:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def softplus(x: float) -> float:
    if x > 30.0:
        return x
    elif x < -30.0:
        return math.exp(x)
    return math.log1p(math.exp(x))


def clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def quadratic_roots(a: float, b: float, c: float) -> tuple:
    if a == 0.0:
        if b == 0.0:
            raise ZeroDivisionError("degenerate equation")
        r = -c / b
        return r, r
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return math.nan, math.nan
    s = math.sqrt(disc)
    q = -0.5 * (b + math.copysign(s, b))
    if q == 0.0:
        return 0.0, 0.0
    return q / a, c / q


def income_tax(income: float) -> float:
    tax = 0.0
    lower = 0.0
    for i in range(3):
        upper = TAX_BRACKETS[i]
        if income <= lower:
            break
        taxed = min(income, upper) - lower
        tax += taxed * TAX_RATES[i]
        lower = upper
    if income > lower:
        tax += (income - lower) * TAX_RATES[3]
    return tax


def gravity_force(m1: float, m2: float, r: float) -> float:
    return G * m1 * m2 / (r * r)


def projectile_range(speed: float, angle_deg: float, height: float) -> float:
    g = 9.81
    theta = math.radians(angle_deg)
    vx = speed * math.cos(theta)
    vy = speed * math.sin(theta)
    t_flight = (vy + math.sqrt(vy * vy + 2 * g * height)) / g
    return vx * t_flight


def gcd_steps(a: int, b: int) -> int:
    steps = 0
    while b != 0:
        a, b = b, a % b
        steps += 1
    return steps


def digit_sum(n: int) -> int:
    n = abs(n)
    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total


def int_power(base: int, exp: int) -> int:
    result = 1
    while exp > 0:
        if exp % 2 == 1:
            result *= base
        base *= base
        exp //= 2
    return result


def exp_series(x: float) -> float:
    term = 1.0
    total = 1.0
    for k in range(1, 60):
        term *= x / k
        total += term
        if abs(term) < 1e-17 * abs(total):
            break
    return total


def trapezoid_sin(a: float, b: float, n: int) -> float:
    if n <= 0:
        raise ValueError("n must be positive")
    h = (b - a) / n
    s = 0.5 * (math.sin(a) + math.sin(b))
    for i in range(1, n):
        s += math.sin(a + i * h)
    return s * h


def polynomial(x: float) -> float:
    acc = 0.0
    for c in HORNER:
        acc = acc * x + c
    return acc


def piecewise_linear(x: float) -> float:
    if x < 0.0:
        return 0.0
    elif x < 1.0:
        return x
    elif x < 3.0:
        return 1.0 + 0.5 * (x - 1.0)
    else:
        return 2.0


def leaky_relu(x: float, slope: float = 0.01) -> float:
    return x if x > 0 else slope * x


def first_passage(x0: float, drift: float, barrier: float) -> int:
    x = x0
    for step in range(1000):
        if x >= barrier:
            return step
        x = x + drift * (1.0 + 0.1 * math.sin(x))
    return -1


def is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    d = 3
    while d * d <= n:
        if n % d == 0:
            return False
        d += 2
    return True
