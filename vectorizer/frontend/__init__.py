"""Reading a function: source, parse (libcst), fence (the allowlist), namespace, arity."""
