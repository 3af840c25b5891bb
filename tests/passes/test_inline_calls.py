"""passes/inline_calls.py: calls of functions of the same module are inlined, after the callee went
through the scalar passes; its locals are renamed apart."""

from __future__ import annotations

import math

from passcase import F, I, after, body, outcome, run_scalar


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def price(s: float, k: float) -> float:
    d = math.log(s / k)
    return s * norm_cdf(d)


def clamp(v, lo):
    if v < lo:
        return lo
    return v


def clamped_sum(x: float, n: int) -> float:
    t = x * 2.0
    return clamp(t, 0.0) + clamp(n, 1)


def test_the_callee_body_replaces_the_call():
    # A parameter bound to a name the callee never reassigns takes the argument directly.
    assert body(after("inline_calls", price, s=F, k=F)) == (
        "d = math.log(s / k)\n"
        "# inlined: norm_cdf(d)\n"
        "norm_cdf_result = 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))\n"
        "return s * norm_cdf_result\n"
    )


def test_a_callee_arrives_with_its_returns_lowered():
    text = body(after("inline_calls", clamped_sum, x=F, n=I))
    assert "clamp(" not in text.replace("# inlined: clamp(", "")
    assert text.count("# inlined: clamp(") == 2 and "return" in text.splitlines()[-1]
    assert text.count("return") == 1  # the callee's two returns became assignments


def test_the_inlined_function_runs_as_the_original():
    text = after("inline_calls", price, s=F, k=F)
    for s, k in ((100.0, 90.0), (1.0, -1.0), (0.0, 1.0), (math.inf, 1.0), (math.nan, 2.0)):
        assert outcome(run_scalar, text, price, s, k) == outcome(price, s, k)
    text = after("inline_calls", clamped_sum, x=F, n=I)
    for x, n in ((-1.0, 0), (2.5, 7), (math.nan, -3)):
        assert outcome(run_scalar, text, clamped_sum, x, n) == outcome(clamped_sum, x, n)
