"""The Numba backend: generated modules compiled through the on-disk cache, and vector math."""
