"""Operation tables: scalar.py (numbers: lowerings and when they raise), arrays.py (per-example arrays)."""
