"""Module emission: header, imports, constants, the lowered function and the helpers it carries."""
