"""The Numba backend: generated modules compiled through the on-disk cache, vector math, and the
loops over libm that give CPython's `math` values in process (exactloops.py)."""
