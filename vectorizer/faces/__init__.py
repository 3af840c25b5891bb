"""The ways in: vmap, the numpy.vectorize drop-in, the import hook, the pytest plugin, the CLI."""
