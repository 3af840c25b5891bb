"""The value lattice: what one lane of a variable can hold, and whether it varies across lanes.

    BOOL  Python bool                          stored as np.bool_
    INT   Python int (checked to fit int64)    stored as np.int64
    FLOAT Python float                         stored as np.float64
    NUM   int on some lanes, float on others   stored as np.float64; an int must be exact there

`join` is the type a variable has where two paths meet: bool and int join to INT (a bool *is* an
int in Python arithmetic); int and float join to NUM: the lowering flags int lanes beyond 2**53 and
the scalar re-run stores them when float64 holds them exactly (2**60 yes, 2**53 + 1 no).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Type(enum.Enum):
    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    NUM = "num"

    @property
    def dtype(self) -> str:
        """The NumPy dtype name that stores this type."""
        return {"bool": "bool", "int": "int64", "float": "float64", "num": "float64"}[self.value]

    @property
    def is_intlike(self) -> bool:
        return self in (Type.BOOL, Type.INT)

    @property
    def is_floatlike(self) -> bool:
        return self in (Type.FLOAT, Type.NUM)


BOOL, INT, FLOAT, NUM = Type.BOOL, Type.INT, Type.FLOAT, Type.NUM


def join(a: Type, b: Type) -> Type:
    if a is b:
        return a
    if a.is_intlike and b.is_intlike:
        return INT
    return NUM


def arith(a: Type, b: Type) -> Type:
    """Result of + - * // % on two numbers: bools count as ints; a float operand makes a float."""
    if a is FLOAT or b is FLOAT:
        return FLOAT
    if a is NUM or b is NUM:
        return NUM
    return INT


@dataclass(frozen=True)
class ArrayType:
    """A per-example NumPy array: element type and shape (a size may be None when only known at
    run time). Batched arrays are stored with the lanes as their first axis."""

    elem: Type
    shape: tuple[int | None, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> str:
        return self.elem.dtype


@dataclass(frozen=True)
class TupleType:
    """A fixed-length tuple of numbers (a module constant, divmod, a tuple-returning helper)."""

    items: tuple[Type, ...]


@dataclass(frozen=True)
class Val:
    """What the analysis knows about one value."""

    type: Type | TupleType | ArrayType
    batched: bool = False
    const: object = None  # the Python value when known at transform time (literals, constants)
    numpy: bool = False  # a NumPy scalar (read from an array): NumPy arithmetic, no Python errors
    fresh: bool = False  # an array this function created (it may be written into)
    # A 0-d array (np.asarray of a number): arithmetic on it is NumPy's scalars' but for `**`,
    # where it is NumPy's array power (its SIMD kernel, and x * x for an exponent of 2). None:
    # a 0-d array on some paths only.
    zero_d: bool | None = False
    # A one-element 1-d array (np.atleast_1d of a number, analysis/one_d.py): on a lane, the number
    # with NumPy's semantics, its `**` the array power (zero_d is True too); what it derives by
    # arithmetic stays one. None: one on some paths only.
    one_d: bool | None = False

    def with_batched(self, batched: bool) -> Val:
        return Val(self.type, batched, self.const if not batched else None, self.numpy, self.fresh, self.zero_d,
                   self.one_d)


def type_of_python(value: object) -> Type | TupleType:
    """The lattice type of a Python constant."""
    if isinstance(value, tuple):
        return TupleType(tuple(type_of_python(v) for v in value))  # type: ignore[misc]
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    return FLOAT


def rank(t: object) -> int:
    return t.rank if isinstance(t, ArrayType) else 0


def elem(t: object) -> Type:
    return t.elem if isinstance(t, ArrayType) else t  # type: ignore[return-value]


def numpy_promote(a: Type, b: Type) -> Type:
    """NumPy's promotion of two element types (bools stay bools: np.bool_ + np.bool_ is or)."""
    if a is b:
        return a if a is not NUM else FLOAT
    if FLOAT in (a, b) or NUM in (a, b):
        return FLOAT
    return INT


def type_of_dtype(kind: str) -> Type:
    """The lattice type for a canonical NumPy dtype kind ('b', 'i', 'f')."""
    return {"b": BOOL, "i": INT, "f": FLOAT}[kind]


@dataclass(frozen=True)
class ResultKind:
    """How the runtime stores one returned value: its element type, and for a value that is an
    array in each lane, its rank and whether the kernel gives it with a lanes axis (`batched`)
    or as one array for every lane. A generated module declares its results as text
    (`VECTORIZER_RESULT = ('float', 'float:2:b')`), which `text` writes and `parse` reads; the
    runtime a generated module carries reads that text itself (engine/patch.py `Result`)."""

    elem: Type
    rank: int = 0  # 0: a number per lane
    batched: bool = True  # for an array: b, the first axis is the lanes; u: the same for every lane

    @classmethod
    def of(cls, v: Val) -> ResultKind:
        """The kind of a returned value as the analysis types it (never a tuple: they are split)."""
        assert not isinstance(v.type, TupleType)
        if isinstance(v.type, ArrayType):
            return cls(v.type.elem, v.type.rank, v.batched)
        return cls(v.type)

    @classmethod
    def parse(cls, text: str) -> ResultKind:
        """The kind a module's declaration text gives: "float", "float:2:b", "int:1:u"."""
        elem, _, rest = text.partition(":")
        if not rest:
            return cls(Type(elem))
        rank, _, lanes = rest.partition(":")
        return cls(Type(elem), int(rank), lanes == "b")

    @property
    def text(self) -> str:
        """As a module declares it: "float" for a number per lane, "float:2:b" for an array."""
        if not self.rank:
            return self.elem.value
        return f"{self.elem.value}:{self.rank}:{'b' if self.batched else 'u'}"
