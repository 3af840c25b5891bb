"""Lower scalar operations to NumPy array operations, flagging the lanes where Python would raise.

This is where the code becomes array code. Every operation goes through the table in
`rules.py`; a check that may hold becomes a flag update, masked by the lanes that evaluate it::

    y = -x                               y = -x
    m = s > 0                            m = s > 0
    y = math.sqrt(x) if m else y   ->    flag |= m & (x < 0)
    return y                             y = _vz_where(m, np.sqrt(x), y)
                                         return y, flag

* a batched `if m:` is a masked block (from `if_to_select`): its body runs on all lanes, flags
  masked by `m`; `raise` in it flags `m`; a batched `assert` flags the lanes where it fails;
* `a if c else b`, `and`, `or`, `min`, `max` become `_vz_where` (np.where without a branch per
  lane; bool algebra for bools; their lazy operand's flags are masked by the lanes that evaluate
  it); uniform ones stay Python expressions; `min`/`max` of ints, or of floats against a constant
  other than 0.0 and NaN, are one ufunc (np.minimum, np.fmax...: `choices.min_max_ufunc`);
* `while active:` (a masked loop) becomes `while np.any(active):`, and loop masks drop flagged
  lanes (`& ~flag`) so a failing lane can never keep a loop running;
* values change storage where paths meet: bool -> int64, int -> float64 for mixed (NUM) values,
  whose int lanes are flagged when float64 cannot hold them exactly;
* operations on literals only are folded at transform time with Python's own arithmetic;
* a check the mask's own test rules out is not emitted (`if a == 0.0: ... else: c / a` needs no
  `a == 0` flag; `analysis/guards.py`), outside loops; so is a zero-divisor check of `b - a`
  under a mask that rules out `a == b` (`if b <= a: return ...`; `analysis/divisor.py`);
* an approximate operation (NumPy's `power`, `exp`, `sin`... a few ulp from the C library) whose
  value may decide an int, a bool, a branch, a trip count or an exception
  (`analysis/decisions.py`) calls CPython's `math` instead (`exactmath.py`)::

    v = n ** (1 / 3)               r = _vz_exact(math.pow, n, 0.3333333333333333)
    return v * v * v == n    ->    ...
                                   return v * v * v == n, flag      (was: np.power(n, ...))

  except a `math.sqrt` operand whose sign a witness settles on NumPy's values
  (`analysis/witnesses.py`): its check tests the witness, and the values stay NumPy's::

    h = sin(a) ** 2 + cos(p) * cos(q) * s2        t_4 = np.cos(p) * np.cos(q) * s2
    return math.sqrt(h)                     ->    h = r + t_4
                                                  flag |= np.signbit(t_4) | np.isnan(t_4)

The runtime re-runs the original function on the first flagged lane (flag and patch).

The code is built as Python `ast` nodes (core/nodes.py: rule templates filled with nodes,
masks as expressions), never as text: `lowering.Lowering` holds the state (its statements, a
line each with its indentation, flags) and its collaborators `exprs.Expressions`,
`choices.Choices`, `fold.Folder`, `loops.Loops` and `arrays.ArrayOps`; the statements become
one tree (core/pyast.py's `build`), which `tidy` finishes.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...analysis.counters import counters, positive
from ...analysis.decisions import decided
from ...analysis.int_bounds import int_bounds
from ...analysis.liveness import Liveness
from ...analysis.signs import sign_env
from ...analysis.witnesses import Witnesses
from ...core import nodes as n
from ...core import pyast
from ...core.pyast import ArrayCode
from ..base import Context, func_body
from .lowering import Lowering
from .tidy import drop_dead_assignments, settle_flag


def transform(func: cst.FunctionDef, ctx: Context) -> ArrayCode:
    """The lowered function as an `ast` tree (core/pyast.py): the lowering emits its statements
    as nodes, and they become one tree; the passes after it edit the tree, and its text is
    printed once, at the end."""
    facts = ctx.analyze(func)
    lower = Lowering(ctx, facts)
    lower.counters = counters(func)
    lower.nonzero = positive(func, lower.counters)
    lower.signs = sign_env(func, ctx.params)
    lower.int_bounds = int_bounds(func, facts, lower.exprs.call_name)
    masked = frozenset(n for n, b in facts.batched_test.items() if b and isinstance(n, cst.If))
    lower.live = Liveness(func, masked)
    call_name = lambda n: None if n in facts.calls else lower.exprs.call_name(n)  # noqa: E731
    witnesses = Witnesses(func, facts, call_name, lower.signs)
    lower.witnesses, lower.witness_nodes = witnesses.of, witnesses.nodes()
    lower.decided = decided(func, facts, call_name, frozenset(witnesses.of))
    batched = [n for n, v in ctx.params.items() if v.batched]
    init_line = len(lower.lines)
    lower.block(func_body(func), None)
    lines = lower.lines
    flagged = lower.has_flags or bool(ctx.options.compact and ctx.loop_vars)  # compact_loops flags a loop's long tail
    if not flagged:
        lower.branches.unflagged()
    if flagged:
        ctx.flag = lower.flag
        shape = n.call("len", n.name(batched[0])) if batched else ast.Tuple(elts=[], ctx=ast.Load())  # one flag per lane
        lines.insert(init_line, (1, pyast.assign(lower.flag, n.fill("np.zeros({0}, dtype=bool)", shape))))
    code = pyast.build(func.name.value, list(ctx.params), lines)
    n.unshare(code.func)  # a node in two places is two nodes: the passes after this edit them in place
    drop_dead_assignments(code.func, settle_flag(code.func, lower.flag, flagged))
    return code
