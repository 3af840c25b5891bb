"""Reading a function: source, parse (libcst), fence (the allowlist: fence_exprs.py,
fence_attributes.py, refusals.py), namespace, arity."""
