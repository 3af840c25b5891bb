"""One fuzz2 program from one seed: a module with tables, constants, helpers (plain, raising,
recursive, mutually recursive), static helpers (statics.py) and the function `f`.

`generate(seed)` is deterministic (the text depends on the seed alone). Each program turns on a
random subset of the grammar's FEATURES, so programs differ in kind as well as in detail.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field

from .exprs import INT_LITERALS, Exprs, Scope
from .statics import (
    FLOAT_KINDS,
    IMPORTS,
    IMPURE,
    PURE,
    STATE_LINES,
    Static,
    make_static,
)
from .stmts import Stmts

FEATURES = ("bits", "intmath", "tables", "conv", "andor", "libm", "mixed", "floatpow", "chained", "bools",
            "for", "while", "try", "early", "raise", "assert", "unpack", "exprstmt", "helpers", "recursion",
            "statics", "impure", "bigint", "risky")
PARAM_NAMES = {"int": ("a", "b", "m"), "float": ("x", "z", "w"), "bool": ("flag", "on", "up")}


@dataclass
class Helper:
    name: str
    params: list[tuple[str, str]]
    ret: str
    kind: str = "plain"  # plain / checker / recursive
    checker: bool = False

    def call_text(self, ex: Exprs, d: int, sc: Scope) -> str:
        args = []
        for i, (_, ty) in enumerate(self.params):
            if self.kind == "recursive" and i == len(self.params) - 1:  # the depth: small, masked
                args.append(ex.rng.choice((str(ex.rng.randint(0, 7)), f"{ex.int_(1, sc)} % {ex.rng.randint(2, 8)}")))
            elif ty == "int" and (sc.growth_limited() or self.kind == "recursive"):
                args.append(ex.int_leaf(sc, growth_safe=True))
            else:
                args.append(ex.of(ty, d, sc))
        return f"{self.name}({', '.join(args)})"


@dataclass
class Module:
    features: set[str]
    int_constants: list[str] = field(default_factory=list)
    float_constants: list[str] = field(default_factory=list)
    tables: dict[str, tuple[str, tuple]] = field(default_factory=dict)
    helpers: list[Helper] = field(default_factory=list)
    statics: list[Static] = field(default_factory=list)
    states: set[str] = field(default_factory=set)
    classes: set[str] = field(default_factory=set)
    ex: Exprs | None = None

    def state(self, kind: str, cls: str | None = None) -> None:
        self.states.add(kind)
        if cls:
            self.classes.add(cls)

    def int_table(self) -> str:
        return next(name for name, (ty, _) in self.tables.items() if ty == "int")

    def calls(self, sc: Scope, ty: str) -> list[Helper]:
        return [h for h in sc.callable if h.ret == ty]

    def statics_of(self, ty: str) -> list[Static]:
        return [s for s in self.statics if s.ty == ty]

    def static_call(self, ty: str, rng: random.Random, sc: Scope | None = None) -> str:
        call = rng.choice(rng.choice(self.statics_of(ty)).calls)
        return call.replace("{arg}", self.ex.int_leaf(sc, growth_safe=True) if sc else "1")


@dataclass
class Program:
    seed: int
    source: str
    params: list[tuple[str, str]]
    features: frozenset[str]
    static_kinds: frozenset[str]

    @property
    def impure(self) -> bool:
        return bool(self.static_kinds & set(IMPURE))


def _float_table(rng: random.Random) -> tuple:
    pool = (0.5, -1.25, 3.0, 1e300, -0.0, 2.5, 1e-310, float("inf"), 7.0, -3.5)
    return tuple(rng.choice(pool) for _ in range(rng.randint(2, 6)))


def _literal(value) -> str:  # noqa: ANN001
    text = repr(value)
    return {"inf": "math.inf", "-inf": "-math.inf", "nan": "math.nan"}.get(text, text)


def generate(seed: int) -> Program:
    rng = random.Random(seed)
    features = {f for f in FEATURES if rng.random() < 0.55} | {"andor", "chained"}
    module = Module(features)
    ex = module.ex = Exprs(rng, module)
    module.int_constants, module.float_constants = ["K0"], ["F0"]
    module.tables["T0"] = ("int", tuple(rng.choice(INT_LITERALS[:14]) for _ in range(rng.randint(2, 7))))
    if "tables" in features:
        module.tables["U0"] = ("float", _float_table(rng))
    constants = {"K0": rng.choice((12, -7, 2**62, 3)), "F0": rng.choice((2.5, -0.0, 1e300, 0.1))}

    statics_lines: list[str] = []
    if "statics" in features:
        kinds = list(PURE) + (list(IMPURE) * 2 if "impure" in features else [])
        for i in range(rng.randint(1, 3)):
            kind = rng.choice(kinds)
            ty = rng.choice(("int", "float")) if kind in FLOAT_KINDS else "int"
            static = make_static(rng, i, kind, ty, module)
            module.statics.append(static)
            statics_lines += static.source + ["", ""]

    helper_lines: list[str] = []
    stmts = Stmts(rng, ex)
    if "helpers" in features:
        for i in range(rng.randint(1, 3)):
            helper_lines += _plain_helper(rng, module, stmts, f"g{i}", checker=rng.random() < 0.3)
    if "recursion" in features:
        helper_lines += _recursive_helper(rng, module, "r0")
        if rng.random() < 0.4:
            helper_lines += _mutual_helpers(rng, module)

    n_params = rng.randint(1, 3)
    types = [rng.choice(("int", "int", "float", "float", "bool") if "bools" in features else ("int", "float")) for _ in range(n_params)]
    params = [(PARAM_NAMES[ty][types[:i].count(ty)], ty) for i, ty in enumerate(types)]
    ret = tuple(rng.choice(("int", "float", "bool", "int")) for _ in range(rng.choice((1, 1, 1, 2))))
    sc = Scope(dict(params), callable=list(module.helpers))
    body = stmts.body(sc, ret, size=rng.randint(2, 7), depth=rng.choice((1, 2, 2, 3)), objects=True)
    f_lines = [f"def f({', '.join(n for n, _ in params)}):"] + ["    " * (lvl + 1) + text for lvl, text in body]

    text = _assemble(seed, module, constants, statics_lines, helper_lines, f_lines)
    source = ast.unparse(ast.parse(text)) + "\n"
    return Program(seed, source, params, frozenset(features), frozenset(s.kind for s in module.statics))


def _plain_helper(rng: random.Random, module: Module, stmts: Stmts, name: str, checker: bool) -> list[str]:
    types = [rng.choice(("int", "int", "float")) for _ in range(rng.randint(1, 2))]
    params = [(f"p{i}", ty) for i, ty in enumerate(types)]
    ret = "int" if checker else rng.choice(("int", "float"))
    sc = Scope(dict(params), callable=list(module.helpers))
    if checker:  # raises on some lanes, returns its argument: also called as a statement
        first = params[0][0]
        body = [(0, f"if {module.ex.bool_(2, sc)} and {module.ex.bool_(1, sc)}:"), (1, f'raise FzError("fz: {name} refused")'),
                (0, f"return {first}" if types[0] == "int" else f"return int({first} > 0)")]
    else:
        body = stmts.body(sc, (ret,), size=rng.randint(1, 3), depth=1)
    module.helpers.append(Helper(name, params, ret, "checker" if checker else "plain", checker))
    return [f"def {name}({', '.join(n for n, _ in params)}):"] + ["    " * (lvl + 1) + t for lvl, t in body] + ["", ""]


def _recursive_helper(rng: random.Random, module: Module, name: str) -> list[str]:
    """`name(n, d)`: base case when d <= 0 (or a condition on n), else itself on d - 1."""
    ex = module.ex
    ret = rng.choice(("int", "int", "float"))
    var = "n" if ret == "int" else "v"
    helper = Helper(name, [(var, ret), ("d", "int")], ret, "recursive")
    sc = Scope({var: ret, "d": "int"}, carried={var}, bounded_growth=True, callable=list(module.helpers))
    base = ex.of(ret, 2, sc)
    step = ex.of(ret, 1, sc)
    rec = f"{name}({step}, d - 1)"
    op = rng.choice(("+", "-", "^", "|") if ret == "int" else ("+", "-", "*"))
    combined = rng.choice((f"{rec} {op} {ex.of(ret, 1, sc)}", f"({rec} if {ex.bool_(1, sc)} else {ex.of(ret, 1, sc)})",
                           f"max({rec}, {name}({ex.of(ret, 1, sc)}, d - 2))"))
    lines = [f"def {name}({var}, d):", f"    if d <= 0 or {ex.bool_(1, sc)}:", f"        return {base}"]
    if rng.random() < 0.3:
        lines += [f"    if {ex.bool_(1, sc)} and {ex.bool_(1, sc)}:", '        raise FzError("fz: recursion refused")']
    module.helpers.append(helper)
    return lines + [f"    return {combined}", "", ""]


def _mutual_helpers(rng: random.Random, module: Module) -> list[str]:
    ex = module.ex
    sc = Scope({"n": "int", "d": "int"}, carried={"n"}, bounded_growth=True)
    lines = []
    for me, other in (("q0", "q1"), ("q1", "q0")):
        lines += [f"def {me}(n, d):", f"    if d <= 0 or {ex.bool_(1, sc)}:", f"        return {ex.int_(1, sc)}",
                  f"    return {other}({ex.int_(1, sc)}, d - 1) {rng.choice(('+', '-', '^'))} {ex.int_(1, sc)}", "", ""]
    module.helpers.append(Helper("q0", [("n", "int"), ("d", "int")], "int", "recursive"))
    return lines


def _assemble(seed: int, module: Module, constants: dict, statics_lines, helper_lines, f_lines) -> str:
    imports = ["import math"] + sorted({f"import {IMPORTS[s]}" for s in module.states if s in IMPORTS})
    state_def, reset, mutate = [], [], []
    for kind in sorted(module.states - {"class"}):
        d, r, m = STATE_LINES[kind]
        state_def += d
        reset += r
        mutate += m
    for cls in sorted(module.classes):
        reset.append(f"{cls}.SCALE = 3")
        mutate.append(f"{cls}.SCALE = 5")
    rng = random.Random(seed ^ 0x5EED)
    names = list(constants) + list(module.tables)
    consts = [f"{k} = {_literal(v)}" for k, v in constants.items()]
    consts += [f"{k} = ({', '.join(_literal(x) for x in vals)},)" for k, (_, vals) in module.tables.items()]
    moved = {"K0": _literal(constants["K0"] + rng.choice((1, -3, 2**40))), "F0": _literal(rng.choice((-1.5, 0.5, 1e308)))}
    table = next(iter(module.tables.values()))[1]
    moved["T0"] = "(" + ", ".join(_literal(v) for v in (table[1:] + table[:1] if rng.random() < 0.7 else table[:-1] or (5,))) + ",)"
    reset_fn = ["def _reset():", f"    global {', '.join(names)}"] + [f"    {c}" for c in consts + reset]
    mutate_fn = ["def _mutate():", "    global K0, F0, T0"] + [f"    {k} = {v}" for k, v in moved.items()] + [f"    {m}" for m in mutate]
    return "\n".join([f'"""fuzz2 program, seed {seed}."""', *imports, "",
                      "class FzError(Exception):", "    pass", "", *consts, *state_def, "", *reset_fn, "", *mutate_fn,
                      "", *statics_lines, *helper_lines, *f_lines, ""])
