"""The ways in: vmap, the numpy.vectorize drop-in, the import hook (with selection.py, dual.py),
the pytest plugin, the CLI; pyproject.py reads the configuration for all of them."""
