"""A batched argument's stand-in in the generation-time interpreter (frontend/pure_eval.py): the
lane's kind is known, its value is not (issue 51).

Array-or-number library code asks what its argument is before it computes anything::

    def shape(a):
        if not isinstance(a, Sequence):
            return ()
        ...

For a lane, a Python bool, int or float (the oracle runs the function on `.tolist()` values),
`shape(a)` is `()` whatever the number: the value of such a call depends on the kind alone, as a
JAX trace's Python control flow depends on shapes alone. So the interpreter evaluates the call
with a `LaneStandIn` in the argument's place, and the call's value is decided when the code is
generated, exactly when the evaluation never reads the stand-in's value:

* `isinstance(lane, C)` and `type(lane)` are answered from the kind, where the answer is the
  same for every type the kind admits (`NUMBER`, used before the call's kinds are known, admits
  bool, int and float: `isinstance(lane, Sequence)` is False for all three, `isinstance(lane, int)`
  is not decided); `C` must be a plain class or an ABC, whose check depends on the type alone;
* `lane is None` (or any object no lane can be) is False;
* anything else (arithmetic, comparisons, truth, `len`, attributes, passing it to a built-in,
  `lane is other`) would read the value: `Impure`, and the call is left to the vectorized code.

A result that holds a stand-in (`return a`) is not decided either (static_values.py checks).
"""

from __future__ import annotations

import abc
import types

import numpy as np

from .pure_builtins import Impure

# Any lane kind of the vectorized function: a Python bool, int or float (decided before the
# call's kinds are known). Not a callee's "number" (analysis/one_d.py kind_of), which may be a
# NumPy scalar too, whose isinstance differs (np.int64 is no int): decided only where all agree.
NUMBER = "bool, int or float"
REAL = "real"  # a callee's float argument: Python's float or NumPy's float64 (a float subclass)
KIND_TYPES: dict[str, tuple[type, ...]] = {"bool": (bool,), "int": (int,), "float": (float,),
                                           NUMBER: (bool, int, float), REAL: (float, np.float64)}
_SAMPLES = {bool: True, int: 1, float: 1.0, np.float64: np.float64(1.0)}


class LaneStandIn:
    """A lane of kind `kind` (a key of KIND_TYPES), named `name` for the reasons given."""

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name

    def __repr__(self) -> str:
        return f"<a {self.kind} lane of {self.name!r}>"

    def read(self, *args: object, **kwargs: object) -> object:
        raise Impure(f"it reads the value of {self.name!r}, which differs from lane to lane")

    # Every operation Python could apply to a number reads it: none may run on the stand-in.
    __bool__ = __len__ = __iter__ = __contains__ = __getitem__ = __setitem__ = __hash__ = read  # type: ignore[assignment]
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = read  # type: ignore[assignment]
    __neg__ = __pos__ = __invert__ = __abs__ = __index__ = __int__ = __float__ = __complex__ = read
    __round__ = __trunc__ = __floor__ = __ceil__ = __format__ = __call__ = read
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = read
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __divmod__ = read
    __rdivmod__ = __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = __and__ = __rand__ = read
    __or__ = __ror__ = __xor__ = __rxor__ = __matmul__ = __rmatmul__ = read


def is_instance(lane: LaneStandIn, classes: object) -> bool:
    """`isinstance(lane, classes)`, the same for every type the lane's kind admits; else Impure."""
    answers = {_is_instance(_SAMPLES[t], classes, lane) for t in KIND_TYPES[lane.kind]}
    if len(answers) != 1:
        raise Impure(f"isinstance({lane.name}, ...) differs between the kinds of number {lane.name!r} may hold")
    return answers.pop()


def type_of(lane: LaneStandIn) -> type:
    """`type(lane)`, when the kind admits one type."""
    kinds = KIND_TYPES[lane.kind]
    if len(kinds) != 1:
        raise Impure(f"type({lane.name}) differs between the kinds of number {lane.name!r} may hold")
    return kinds[0]


def _is_instance(sample: object, classes: object, lane: LaneStandIn) -> bool:
    for cls in _flat(classes, lane):
        if isinstance(sample, cls):
            return True
    return False


def _flat(classes: object, lane: LaneStandIn) -> list[type]:
    if isinstance(classes, tuple):
        return [c for item in classes for c in _flat(item, lane)]
    if isinstance(classes, types.UnionType):
        return _flat(classes.__args__, lane)
    if isinstance(classes, type) and type(classes) in (type, abc.ABCMeta):
        return [classes]  # its check depends on the type alone (no __instancecheck__ of the user's)
    origin = getattr(classes, "__origin__", None)
    if type(classes).__name__ == "_SpecialGenericAlias" and type(classes).__module__ == "typing" \
            and isinstance(origin, type):
        return _flat(origin, lane)  # typing.Sequence: isinstance checks collections.abc.Sequence
    raise Impure(f"isinstance({lane.name}, {classes!r}) may run code of the class")


def holds_stand_in(value: object, depth: int = 0) -> bool:
    """Whether `value` is a stand-in or a container holding one (a value that is no constant)."""
    if isinstance(value, LaneStandIn):
        return True
    if isinstance(value, tuple | list | set | frozenset) and depth < 8:
        return any(holds_stand_in(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 8:
        return any(holds_stand_in(v, depth + 1) for v in (*value, *value.values()))
    return False
