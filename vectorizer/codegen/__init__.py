"""Module emission: header, imports, constants and the lowered function."""
