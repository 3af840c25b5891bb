"""Backends that compile generated code; each imports its compiler lazily."""
