"""The ulps a float result may differ by where NumPy computes transcendental functions (a
parameter: 0 demands bit-identical floats, as the Numba backend and the exact NumPy default do).

With `bound` > 0 (NumPy's SIMD kernels, each operation within `bound` ulp of the C library's),
the program is run again with every `math.exp`-like call and every `**` moved `bound` ulp down,
then up (an AST rewrite of its text into a second module): the largest distance of those results
from the exact ones, over the batch's lanes, is the tolerance derived for this program and batch
(as tests/oracle.py's `libm_ulps` does for `math` calls; `**` is covered here too). Ints, bools and
exceptions are still compared exactly.
"""

from __future__ import annotations

import ast
import math
import os

LIBM = frozenset({"exp", "log", "sin", "cos", "atan", "tanh", "log1p", "expm1", "atan2", "hypot"})
PRELUDE = """
_FZ_STEPS = 0


def _fz_move(value):
    if isinstance(value, float) and math.isfinite(value) and value != 0.0:
        for _ in range(abs(_FZ_STEPS)):
            value = math.nextafter(value, math.copysign(math.inf, _FZ_STEPS))
    return value
"""


def libm_bound(backend: str) -> int:
    """`VECTORIZER_FUZZ2_LIBM_ULPS` if set, else 0 on Numba and, on NumPy, the oracle's bound for
    this CPU (tests/oracle.py `simd_ulps`: ULP_BOUND where NumPy's SIMD kernels run, else 0)."""
    if backend != "numpy":
        return 0
    if "VECTORIZER_FUZZ2_LIBM_ULPS" in os.environ:
        return int(os.environ["VECTORIZER_FUZZ2_LIBM_ULPS"])
    import oracle

    return oracle.simd_ulps()


class _Mover(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math" \
                and func.attr in LIBM:
            return ast.Call(ast.Name("_fz_move", ast.Load()), [node], [])
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.Call(ast.Name("_fz_move", ast.Load()), [node], [])
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            target = ast.Name(node.target.id, ast.Load()) if isinstance(node.target, ast.Name) else node.target
            value = ast.BinOp(target, ast.Pow(), node.value)
            return ast.Assign([node.target], ast.Call(ast.Name("_fz_move", ast.Load()), [value], []))
        return node


def uses_libm(source: str) -> bool:
    tree = ast.parse(source)
    return any(isinstance(n, ast.BinOp | ast.AugAssign) and isinstance(n.op, ast.Pow)
               or isinstance(n, ast.Attribute) and n.attr in LIBM and isinstance(n.value, ast.Name) and n.value.id == "math"
               for n in ast.walk(tree))


def moved_source(source: str) -> str:
    tree = _Mover().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n" + PRELUDE


def _floats(value) -> list[float]:  # noqa: ANN001
    items = value if isinstance(value, tuple) else (value,)
    return [v for v in items if isinstance(v, float)]


def _ulps(a: float, b: float) -> int:
    import oracle

    return oracle.ulp_distance(a, b)


def derived_ulps(edge, prepare, lanes: list[tuple], exact: list, bound: int) -> int:  # noqa: ANN001
    """The tolerance for this batch: `edge` is the moved module, `prepare(module)` resets its
    state, `exact` the exact outcomes (("value", v) / ("raise", exc)) of `lanes`."""
    worst = 0
    for steps in (-bound, bound):
        edge._FZ_STEPS = steps
        prepare(edge)
        for lane, (kind, value) in zip(lanes, exact):
            try:
                moved = edge.f(*lane)
            except Exception:  # noqa: BLE001 - a lane that raises here is compared exactly
                continue
            if kind != "value":
                continue
            for a, b in zip(_floats(value), _floats(moved)):
                if math.isfinite(a) and math.isfinite(b):
                    worst = max(worst, _ulps(a, b))
    edge._FZ_STEPS = 0
    return worst
