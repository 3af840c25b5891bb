"""passes/ops_to_numpy/tidy.py: the lowered tree finished, the loop masks' flag placeholder
settled and the assignments nothing reads dropped."""

from __future__ import annotations

from vectorizer.core.pyast import parse_function
from vectorizer.passes.ops_to_numpy.tidy import drop_dead_assignments, settle_flag

LOWERED = """\
def f(x, n):
    flag = np.zeros(len(x), dtype=bool)
    c = x > 0
    active = __vz_not_flag__(c & (n < 40))
    while np.any(active):
        m = active & c
        active = __vz_not_flag__(active & (x < n))
    return (x, flag)
"""


def finished(text: str, flagged: bool) -> str:
    code = parse_function(text)
    drop_dead_assignments(code.func, settle_flag(code.func, "flag", flagged))
    return code.text()


def test_with_flags_the_placeholder_is_and_not_flag_and_dead_masks_go() -> None:
    assert finished(LOWERED, True) == (
        "def f(x, n):\n"
        "    flag = np.zeros(len(x), dtype=bool)\n"
        "    c = x > 0\n"
        "    active = c & (n < 40) & ~flag\n"
        "    while np.any(active):\n"
        "        active = active & (x < n) & ~flag\n"
        "    return (x, flag)\n")


def test_without_flags_the_placeholder_goes_and_the_flag_returned_is_none() -> None:
    text = LOWERED.replace("    flag = np.zeros(len(x), dtype=bool)\n", "")
    assert finished(text, False) == (
        "def f(x, n):\n"
        "    c = x > 0\n"
        "    active = c & (n < 40)\n"
        "    while np.any(active):\n"
        "        active = active & (x < n)\n"
        "    return (x, None)\n")


def test_a_chain_of_dead_names_goes_and_emptied_blocks_get_pass() -> None:
    text = ("def g(x, n):\n"
            "    a = x + 1\n"
            "    b = a * 2\n"
            "    if n:\n"
            "        # line 4: c = b\n"
            "        c = b\n"
            "    else:\n"
            "        d = x\n"
            "    e = (y := x)\n"
            "    return (y, None)\n")
    assert finished(text, True) == (
        "def g(x, n):\n"
        "    if n:\n"
        "        pass\n"
        "        # line 4: c = b\n"
        "    else:\n"
        "        pass\n"
        "    e = (y := x)\n"  # its value binds y, which is read: not dead
        "    return (y, None)\n")
