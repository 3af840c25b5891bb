"""docs/contract.md's table of measured ulp distances is scripts/measure_ulps.py's output: it names
every function the script measures, and each number is within the contract's bound."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from vectorizer.rules import scalar as rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mu():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import measure_ulps
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return measure_ulps


def test_the_documented_table_is_within_the_bound(mu):
    text = (ROOT / "docs" / "contract.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d+ \| \d+ \| [\d–]+) \|$", text, re.MULTILINE))
    assert set(rows) == set(mu.FUNCTIONS), set(rows) ^ set(mu.FUNCTIONS)
    for name, cells in rows.items():
        values = [int(c) for c in cells.split(" | ") if c != "–"]
        assert values and all(v <= rules.ULP_BOUND for v in values), (name, cells)


def test_the_script_measures_within_the_bound_here(mu):
    table = mu.measure(1000)
    assert set(table) == set(mu.FUNCTIONS)
    for name, row in table.items():
        assert row["numpy"] <= rules.ULP_BOUND, (name, row)
        assert row["vector_math"] is None or row["vector_math"] <= rules.ULP_BOUND, (name, row)
    assert table["pow"]["llvm_square"] <= 1
