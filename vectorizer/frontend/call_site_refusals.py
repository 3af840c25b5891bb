"""A callee's refusal, reported at the call in the vectorized function that reaches it: the user
sees which of THEIR calls cannot be vectorized, and what in the callee stops it
(analysis/calls.py raises it for callees of this module and of others).
"""

from __future__ import annotations

import types

from ..errors import SourceLocation, VectorizeError, VectorizeErrorGroup
from .namespace import Global
from .source import FunctionSource


def users_name(glob: Global) -> str:
    """The name a message gives a function of the code: the user's (its qualname), never the name
    of a copy the compiler made (`Env_spread_static`, `dynetz__delta_1`) or a link name."""
    if isinstance(glob.value, types.FunctionType):
        return glob.value.__qualname__
    return glob.value.qualname if isinstance(glob.value, FunctionSource) else glob.name  # (a copy: sequence_args.py)


def at_call_site(exc: VectorizeError, glob: Global, where: SourceLocation | None) -> VectorizeError:
    """A callee's refusal, reported at its call in the vectorized function: the user sees which of
    THEIR calls cannot be vectorized, and (in the message and a note) what in the callee stops it."""
    if where is None:
        return exc
    inner = exc.errors if isinstance(exc, VectorizeErrorGroup) else [exc]
    first = inner[0]
    name = users_name(glob)
    message = f"the call to {name!r} cannot be vectorized: {first.message}"
    if first.location is not None:
        message += f" (at {first.location})"
    error = type(first)(message, where, hint=first.hint, construct=first.construct or "Call", code=first.code)
    for e in inner:
        error.add_note(f"in {name!r}: {e}")
    return error

