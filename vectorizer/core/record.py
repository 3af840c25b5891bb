"""`Record`: a small immutable value class, without dataclasses.

Defining a frozen dataclass costs ~0.8 ms (it compiles its methods from source); three of them
were a visible share of a warm start (import + first call ~10 ms). Subclasses name their fields
in `__slots__` and assign them in `__init__` with `_set`; equality, hashing and repr come from
the fields.
"""

from __future__ import annotations

from typing import Any


class Record:
    __slots__ = ()

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.fields() == self.fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self.fields().values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.fields().items())})"
