"""NumPy-only code that generated kernels call, and modules carry a copy of: helpers, exact math, special functions."""
