"""NumPy-only code that generated modules call or carry a copy of: kernel harness, special functions."""
