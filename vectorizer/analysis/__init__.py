"""Analyses of the parsed function (batched vs uniform, liveness, guards...): side tables by node."""
