"""Module-level lists and tuples of numbers passed to another module's functions (issue 51;
tests/contract/test_linked_sequences.py)."""

from tests.contract_cases.polynomials import checked, horner, scaled_horner

SCALE = -1.0  # not what polynomials.SCALE is: the copy reads its own module's
COEFFS = [1.866792110435199, -2.8873199398381075, -4.814715029513536, 0.5]
OTHER = (0.25, -1.5, 3.0)


def miller(di, di0):
    t = 0.5 * (di0 - di)
    t_di = t / di
    if t_di > 0.3:
        t_di = 0.3
    return horner(COEFFS, 6.66666666666666696 * (t_di - 0.15))


def two_fits(x):
    return horner(COEFFS, x) - horner(OTHER, x) + scaled_horner(OTHER, x)


def fit_checked(x):
    return checked(COEFFS, x)
