"""`while_loop(body, carry)`: `lax.while_loop` on a carry that ends with the lane's (failed, done,
live) flags, `live` the loop's test.

A name may enter a loop as a Python number or exact and leave it with a bound, or be bound first
inside it (UNDEF): the carry's form (dtype, and whether its bound and taint are traced) is the
join of its forms before and after one iteration, found by tracing the body abstractly
(`jax.eval_shape`) until it is stable. Taints do not travel round a loop: a carried value that may
differ from CPython's flags its lane, which stops (`_settle`), so a loop carries plain values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .approx import Approx, either, error_dtype, is_false, is_python, is_zero, lift
from .control import UNDEF, _bool, _Undefined, unsure_of

# -- loops ----------------------------------------------------------------------------------------
jax.tree_util.register_pytree_node(_Undefined, lambda u: ((), None), lambda aux, children: UNDEF)


@dataclass(frozen=True)
class _Form:
    """A carry item's form: its dtype, its bound's dtype (None: not traced), whether its taint is traced."""

    dtype: object
    err: str | None  # the bound's dtype's name where it is traced (float32 on an emulated float64)
    unsure: bool


def _norm(x):
    """A carry item as Approx arrays (Python numbers: int64, float64, bool)."""
    if isinstance(x, tuple):
        return tuple(_norm(v) for v in x)
    if x is UNDEF:
        return x
    if isinstance(x, Approx):
        return Approx(jnp.asarray(x.value), x.err, x.unsure)
    return lift(x) if is_python(x) else Approx(jnp.asarray(x))


def _form(x):
    if isinstance(x, tuple):
        return tuple(_form(v) for v in x)
    if x is UNDEF:
        return None
    err = None if is_zero(x.err) else np.dtype(jnp.result_type(x.err, error_dtype())).name
    return _Form(np.dtype(x.value.dtype), err, not is_false(x.unsure))


def _join(f, g):
    if f is None or g is None:
        return g if f is None else f
    if isinstance(f, tuple) or isinstance(g, tuple):
        return tuple(_join(a, b) for a, b in zip(f, g))
    dtype = f.dtype if f.dtype == g.dtype else np.dtype(jnp.promote_types(f.dtype, g.dtype))
    err = f.err if g.err is None else g.err if f.err is None else np.dtype(jnp.promote_types(f.err, g.err)).name
    return _Form(dtype, err, f.unsure or g.unsure)


def _cast(x, form):
    """x in the carry form `form` (zeros where it was UNDEF)."""
    if isinstance(form, tuple):
        return tuple(_cast(UNDEF if x is UNDEF else v, f) for v, f in zip(form if x is UNDEF else x, form))
    if form is None:
        return x
    if x is UNDEF:
        x = Approx(jnp.zeros((), form.dtype))
    value = jnp.asarray(x.value).astype(form.dtype)
    err = jnp.asarray(x.err).astype(form.err) if form.err is not None else x.err
    unsure = jnp.asarray(x.unsure, jnp.bool_) if form.unsure else x.unsure
    return Approx(value, err, unsure)


def _settle(carry: tuple, stop: bool = True) -> tuple:
    """The carry with its values' taints moved into the lane's flag: a lane whose carried value
    may differ from CPython's is flagged and done (its loop stops, unless `stop` is False: a range
    over uniform bounds, which ends for every lane, runs on; its flagged lanes' later values are
    never read), and the loop carries no taint. The carry ends with (failed, done, live)."""
    *values, failed, done, live = carry
    unsure = False
    for v in values:
        unsure = either(unsure, unsure_of(v))
    if is_false(unsure):
        return carry
    failed, done = _bool(failed), _bool(done)
    new = jnp.logical_and(unsure, jnp.logical_not(done))
    stripped = tuple(_strip(v) for v in values)
    live = Approx(_bool(live) & jnp.logical_not(new)) if stop else live
    return (*stripped, Approx(failed | new), Approx(done | new), live)


def _strip(v):
    if isinstance(v, tuple):
        return tuple(_strip(x) for x in v)
    if isinstance(v, Approx):
        return Approx(v.value, v.err, False)
    return v


def while_loop(body: Callable, carry: tuple, uniform: bool = False) -> tuple:
    """Run `body` while the carry's last item (a bool) holds; the carry's form is fixed first.
    The carry is (names..., failed, done, live). `uniform`: a range over uniform bounds, whose
    test stays one for all lanes (a scalar loop under vmap: no per-lane selects of the carry)."""
    init = _settle(_norm(tuple(carry)), not uniform)
    body = _settled(body, not uniform)
    form = _form(init)
    for _ in range(8):
        shaped = jax.eval_shape(lambda c: _norm(tuple(body(c))), _cast(init, form))
        joined = _join(form, _form(shaped))
        if joined == form:
            break
        form = joined
    else:
        raise RuntimeError("a loop's carry did not settle on one form")

    def step(c):
        return _cast(_norm(tuple(body(c))), form)

    return lax.while_loop(lambda c: c[-1].value, step, _cast(init, form))


def _settled(body: Callable, stop: bool) -> Callable:
    def run(carry):
        return _settle(_norm(tuple(body(carry))), stop)

    return run
