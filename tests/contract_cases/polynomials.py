"""Another module's functions that take a sequence of coefficients (fluids.numerics' shape), for
tests/contract_cases/linked_sequences.py."""

SCALE = 2.0  # read by the copy as this module binds it


def horner(coeffs, x):
    tot = 0.0
    for c in coeffs:
        tot = tot * x + c
    return tot


def scaled_horner(coeffs, x):
    return SCALE * horner(coeffs, x)  # the sequence passed on: a copy of horner in turn


def checked(coeffs, x):
    if len(coeffs) > 3 and x > 1e300:
        raise OverflowError("x too large for this fit")
    return (coeffs[0] + x) * coeffs[-1]
