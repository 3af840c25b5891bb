"""Custom pytree nodes, as `jax.tree_util.register_pytree_node` registers them.

    register_pytree_node(Point, lambda p: ((p.x, p.y), None), lambda aux, children: Point(*children))

`flatten(x) -> (children, aux)` lists a node's children (each a pytree) and static data that
must be equal between nodes of one structure; `unflatten(aux, children) -> x` rebuilds a node.
A registered type is matched exactly (not its subclasses), as in JAX. Its children's key paths
are their positions, written `b[0]`, as JAX writes a node registered without keys.

The types vmap itself gives a meaning to are refused, with a ValueError as JAX refuses its own
containers: the containers (dict, list, tuple, None; OrderedDict and defaultdict, which JAX has
registered) and the leaves (bool, int, float, complex, NumPy arrays and scalars). The registry is
one per process and has no undo: registering dict would make every vmap read its dicts through
the user's functions, registering float every number (a subclass is a type of its own: accepted).
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import numpy as np

from ..errors import VectorizeValueError

T = TypeVar("T", bound=type)

_CONTAINERS = (dict, list, tuple, type(None), OrderedDict, defaultdict)
_LEAVES = (bool, int, float, complex, np.ndarray)

_NODES: dict[type, tuple[Callable[[Any], tuple[Iterable[Any], Any]], Callable[[Any, Iterable[Any]], Any]]] = {}


def register_pytree_node(nodetype: type, flatten_func: Callable[[Any], tuple[Iterable[Any], Any]],
                         unflatten_func: Callable[[Any, Iterable[Any]], Any]) -> None:
    """Make instances of `nodetype` pytree nodes for `vmap` (JAX's signature and meaning)."""
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node needs a class, got {nodetype!r}")
    if not callable(flatten_func) or not callable(unflatten_func):
        raise TypeError("register_pytree_node needs flatten_func(x) -> (children, aux) and "
                        "unflatten_func(aux, children) -> x")
    builtin = _builtin_kind(nodetype)
    if builtin is not None:
        raise VectorizeValueError(f"register_pytree_node({nodetype.__qualname__}, ...): {nodetype.__qualname__} is "
                                  f"{builtin} vmap already knows; registering it would change every vmap in the process",
                                  hint="register a class of your own (a subclass is matched on its own, not its base)")
    if nodetype in _NODES:  # JAX refuses a second registration of a type too
        raise VectorizeValueError(f"Duplicate custom pytree node registration for {nodetype.__qualname__}")
    _NODES[nodetype] = (flatten_func, unflatten_func)


def _builtin_kind(nodetype: type) -> str | None:
    """What vmap already makes of exactly this type: 'a container' or 'a leaf', else None."""
    if nodetype in _CONTAINERS:
        return "a container"
    if nodetype in _LEAVES or (issubclass(nodetype, np.generic) and nodetype.__module__ == "numpy"):
        return "a leaf"
    return None


def register_pytree_node_class(cls: T) -> T:
    """Class decorator: `cls.tree_flatten(self) -> (children, aux)` and the classmethod
    `cls.tree_unflatten(aux, children)` make it a pytree node (JAX's decorator)."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)  # type: ignore[attr-defined]
    return cls


def is_registered(x: Any) -> bool:
    return type(x) in _NODES


def is_registered_type(cls: type) -> bool:
    return cls in _NODES


def flatten_node(x: Any) -> tuple[list[Any], Any]:
    """A registered node's children (as a list) and its aux data."""
    result = _NODES[type(x)][0](x)
    try:
        children, aux = result
    except (TypeError, ValueError):
        raise VectorizeValueError(f"the flatten function registered for {type(x).__qualname__} must return "
                                  f"(children, aux_data), got {result!r}") from None
    return list(children), aux


def unflatten_node(cls: type, aux: Any, children: list[Any]) -> Any:
    return _NODES[cls][1](aux, children)


__all__ = ["register_pytree_node", "register_pytree_node_class"]
