"""pytest plugin (placeholder until the import hook lands): registers nothing yet."""
