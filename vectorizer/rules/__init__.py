"""Operation tables: scalar.py (numbers: lowerings and when they raise; over base.py, operators.py,
calls.py) and arrays.py (per-example arrays; over the array_*.py families)."""
