"""Reading a function: source, parse (libcst), fence (the allowlist: fence_exprs.py, refusals.py),
namespace, arity."""
