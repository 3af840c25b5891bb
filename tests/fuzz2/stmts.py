"""Typed random statements and function bodies of a fuzz2 program (lines of text, 4-space blocks).

Programs always terminate: `for` loops run over `range` of a masked or capped int, or over a
module tuple; every `while` has its own counter, incremented as the first statement of its body
(so `continue` cannot skip it) and tested with the data-dependent condition. New variables are
bound only on the function's top level, before they are read, so no read is ever unbound; inside
blocks variables are only rebound, to a value of their own type. Loop indices and counters are
never rebound.
"""

from __future__ import annotations

import random

from .exprs import HANDLERS, Exprs, Scope

Lines = list[tuple[int, str]]


def indent(lines: Lines, by: int = 1) -> Lines:
    return [(level + by, text) for level, text in lines]


class Stmts:
    def __init__(self, rng: random.Random, ex: Exprs) -> None:
        self.rng, self.ex, self.on = rng, ex, ex.on
        self.fresh = 0
        self.readonly: set[str] = set()

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # -- a function body ------------------------------------------------------------------------
    def body(self, sc: Scope, ret: tuple[str, ...], size: int, depth: int = 2, objects: bool = False) -> Lines:
        """Declarations (with `objects`, the static objects first: `o0 = Cz0.make("ab")`, whose
        `o0.k` is then read as an int), then `size` statements, then the final return."""
        r = self.rng
        lines: Lines = []
        for i, static in enumerate(self.ex.module.statics_of("object") if objects else []):
            lines.append((0, f"o{i} = {r.choice(static.calls)}"))
            sc.vars[f"o{i}.k"] = "int"
            self.readonly.add(f"o{i}.k")
        for _ in range(r.randint(1, 3)):
            ty = r.choice(("int", "int", "float", "bool") if self.on("bools") else ("int", "int", "float"))
            var = self.name({"int": "n", "float": "y", "bool": "c"}[ty])
            lines.append((0, f"{var} = {self.ex.of(ty, 2, sc)}"))
            sc.vars[var] = ty
        for _ in range(size):
            lines += self.stmt(sc, ret, depth)
        lines.append((0, self.return_(sc, ret, final=True)))
        return lines

    def return_(self, sc: Scope, ret: tuple[str, ...], final: bool = False) -> str:
        values = [self.ex.of(ty, 2, sc) for ty in ret]
        module = self.ex.module
        if final and ret[0] != "bool" and module.statics and sc.statics and self.rng.random() < 0.8:
            # a static call's value reaches the result: one computed once instead of per lane shows
            ty = self.rng.choice([t for t in ("int", ret[0]) if module.statics_of(t)] or [None])
            if ty is not None:
                values[0] = f"{values[0]} + {module.static_call(ty, self.rng, sc)}"
        objects = [n for n in sc.vars if n.endswith(".k")]
        if final and ret[0] != "bool" and objects and self.rng.random() < 0.8:
            values[0] = f"{values[0]} + {self.rng.choice(objects)}"
        return "return " + (values[0] if len(values) == 1 else ", ".join(values))

    def block(self, sc: Scope, ret: tuple[str, ...], depth: int, size: int | None = None) -> Lines:
        lines: Lines = []
        for _ in range(size or self.rng.randint(1, 3)):
            lines += self.stmt(sc, ret, depth)
        return indent(lines or [(0, "pass")])

    # -- one statement --------------------------------------------------------------------------
    def stmt(self, sc: Scope, ret: tuple[str, ...], depth: int) -> Lines:
        r, on = self.rng, self.on
        kinds = ["assign", "assign", "assign", "aug", "aug"]
        if depth > 0:
            kinds += ["if", "if"] + ["for"] * on("for") + ["while"] * on("while") + ["try", "try"] * on("try")
        kinds += ["return"] * on("early") + ["raise"] * on("raise") * (on("risky") or r.random() < 0.3)
        kinds += ["assert"] * on("assert") * (on("risky") or r.random() < 0.3)
        kinds += ["unpack"] * on("unpack") + ["exprstmt"] * on("exprstmt") + ["accumulate"] * 2 * on("bigint")
        if sc.loops:
            kinds += ["break", "continue"]
        kind = r.choice(kinds)
        return getattr(self, f"_{kind}")(sc, ret, depth)

    def _target(self, sc: Scope, ty: str | None = None) -> str | None:
        names = [n for n, t in sc.vars.items() if n not in self.readonly and (ty is None or t == ty)]
        return self.rng.choice(names) if names else None

    def _assign(self, sc: Scope, ret, depth) -> Lines:
        var = self._target(sc)
        if var is None:
            return []
        if sc.loops:
            sc.carried.add(var)
        return [(0, f"{var} = {self.ex.of(sc.vars[var], 3, sc)}")]

    def _aug(self, sc: Scope, ret, depth) -> Lines:
        var = self._target(sc, self.rng.choice(("int", "int", "float")))
        if var is None:
            return self._assign(sc, ret, depth)
        ty = sc.vars[var]
        ops = ["+=", "-=", "*=", "//=", "%="] + (["|=", "^=", "&="] if ty == "int" else [])
        op = self.rng.choice(ops)
        if sc.loops:
            sc.carried.add(var)
        value = self.ex.int_leaf(sc, growth_safe=True) if op == "*=" and ty == "int" else self.ex.of(ty, 2, sc)
        if op in ("//=", "%=") and not self.ex.raw(0.4):
            value = f"({value} or {self.rng.choice(('3', '-2', '0.5') if ty == 'float' else ('3', '-2'))})"
        return [(0, f"{var} {op} {value}")]

    def _if(self, sc: Scope, ret, depth) -> Lines:
        r = self.rng
        lines = [(0, f"if {self.ex.bool_(3, sc)}:"), *self.block(sc.child(), ret, depth - 1)]
        for _ in range(r.choice((0, 0, 1, 2))):
            test = self.ex.bool_(2, sc.without_calls() if r.random() < 0.9 else sc)
            lines += [(0, f"elif {test}:"), *self.block(sc.child(), ret, depth - 1)]
        if r.random() < 0.5:
            lines += [(0, "else:"), *self.block(sc.child(), ret, depth - 1)]
        return lines

    def _loop_scope(self, sc: Scope) -> Scope:
        """Inside a loop every variable the body may rebind counts as carried (growth control)."""
        inner = sc.child()
        inner.loops += 1
        inner.carried |= {n for n in inner.vars if n not in self.readonly}
        return inner

    def _for(self, sc: Scope, ret, depth) -> Lines:
        r = self.rng
        index = self.name("i")
        inner = self._loop_scope(sc)
        tables = [t for t, (tt, _) in self.ex.module.tables.items()]
        if tables and r.random() < 0.3:
            table = r.choice(tables)
            inner.vars[index] = self.ex.module.tables[table][0]
            header = f"for {index} in {table}:"
        else:
            inner.vars[index] = "int"
            bound = r.choice((str(r.randint(0, 6)), f"{self.ex.int_(2, sc)} % {r.randint(1, 6)}",
                              f"min(max({self.ex.int_(2, sc)}, 0), {r.randint(1, 6)})"))
            header = f"for {index} in range({bound}):"
        self.readonly.add(index)
        return [(0, header), *self.block(inner, ret, depth - 1)]

    def _while(self, sc: Scope, ret, depth) -> Lines:
        counter = self.name("k")
        inner = self._loop_scope(sc)
        inner.vars[counter] = "int"
        self.readonly.add(counter)
        cond = self.ex.bool_(3, inner.without_calls() if self.rng.random() < 0.9 else inner)
        limit = self.rng.randint(1, 8)
        test = f"{counter} < {limit} and {cond}" if self.rng.random() < 0.5 else f"{cond} and {counter} < {limit}"
        body = self.block(inner, ret, depth - 1)
        return [(0, f"{counter} = 0"), (0, f"while {test}:"), (1, f"{counter} += 1"), *body]

    def _try(self, sc: Scope, ret, depth) -> Lines:
        r = self.rng
        lines = [(0, "try:"), *indent(self.risky(sc)), *self.block(sc.child(), ret, depth - 1, r.randint(0, 2))]
        handlers = r.sample(HANDLERS, r.randint(1, 3))
        if r.random() < 0.3 and len(handlers) > 1:  # a tuple of exception types in one clause
            handlers = [f"({handlers[0]}, {handlers[1]})", *handlers[2:]]
        for handler in handlers:
            lines += [(0, f"except {handler}:"), *self.block(sc.child(), ret, depth - 1)]
        if r.random() < 0.3:
            lines += [(0, "else:"), *self.block(sc.child(), ret, depth - 1)]
        return lines

    def risky(self, sc: Scope) -> Lines:
        """A statement likely to raise on some lanes: a division, a math domain, a conversion, a
        table index, a pow with a modulus, a helper that raises."""
        r, ex = self.rng, self.ex
        var = self._target(sc, "int") if r.random() < 0.6 else self._target(sc, "float")
        if var is None:
            return []
        if sc.loops:
            sc.carried.add(var)
        if sc.vars[var] == "int":
            value = r.choice((f"{ex.int_(1, sc)} // {ex.int_(1, sc)}", f"{ex.int_(1, sc)} % {ex.int_(1, sc)}",
                              f"math.isqrt({ex.int_(1, sc)})", f"int({ex.float_(1, sc)})",
                              f"pow({ex.int_(1, sc)}, {ex.int_(1, sc)} % 9 - 2, {ex.int_(1, sc)})",
                              ex.table_item("int", 1, sc), f"round({ex.float_(1, sc)})"))
        else:
            value = r.choice((f"math.sqrt({ex.float_(1, sc)})", f"{ex.float_(1, sc)} / {ex.float_(1, sc)}",
                              f"math.log({ex.float_(1, sc)})" if ex.on("libm") else f"math.fmod({ex.float_(1, sc)}, {ex.float_(1, sc)})",
                              f"float({ex.int_(2, sc)})", f"abs({ex.float_(1, sc)}) ** {ex.float_(1, sc)}"))
        lines = [(0, f"{var} = {value}")]
        if ex.module.calls(sc, "int") and r.random() < 0.3:
            lines.append((0, f"{var} = {ex.call('int', 1, sc)}" if sc.vars[var] == "int" else f"{var} = float({ex.call('int', 1, sc)})"))
        return lines

    def _return(self, sc: Scope, ret, depth) -> Lines:
        return [(0, f"if {self.ex.bool_(2, sc)}:"), (1, self.return_(sc, ret))]

    def _raise(self, sc: Scope, ret, depth) -> Lines:
        r = self.rng
        cls = r.choice(("FzError", "FzError", "ValueError", "ZeroDivisionError", "OverflowError"))
        message = r.choice(('"fz: bad lane"', '"fz: out of range"', "f\"fz: {" + self.ex.int_leaf(sc) + "}\""))
        return [(0, f"if {self.ex.bool_(2, sc)} and {self.ex.bool_(2, sc)}:"), (1, f"raise {cls}({message})")]

    def _assert(self, sc: Scope, ret, depth) -> Lines:
        message = self.rng.choice(("", ', "fz: assertion"', ", 'fz: checked'"))
        return [(0, f"assert {self.ex.bool_(2, sc)} or {self.ex.bool_(2, sc)}{message}")]

    def _unpack(self, sc: Scope, ret, depth) -> Lines:
        a, b = self._target(sc, "int"), self._target(sc)
        if a is None or b is None or a == b:
            return self._assign(sc, ret, depth)
        if sc.loops:
            sc.carried |= {a, b}
        if sc.vars[b] == "int" and self.rng.random() < 0.5:
            return [(0, f"{a}, {b} = divmod({self.ex.int_(2, sc)}, {self.ex.int_(2, sc)})")]
        return [(0, f"{a}, {b} = {self.ex.int_(2, sc)}, {self.ex.of(sc.vars[b], 2, sc)}")]

    def _exprstmt(self, sc: Scope, ret, depth) -> Lines:
        checkers = [h for h in self.ex.module.helpers if h.checker and h in sc.callable]
        if checkers and self.rng.random() < 0.7:
            return [(0, self.rng.choice(checkers).call_text(self.ex, 1, sc))]
        if self.ex.raw(1.0):  # kept for the exception it may raise
            return [(0, f"{self.ex.int_(1, sc)} // {self.ex.int_(1, sc)}")]
        return self._assign(sc, ret, depth)

    def _accumulate(self, sc: Scope, ret, depth) -> Lines:
        """An int that may pass int64 on some lanes (Python's ints do not wrap): the batched code
        must detect it and patch those lanes, or refuse a result int64 cannot hold."""
        r, ex = self.rng, self.ex
        var = self._target(sc, "int")
        if var is None:
            return self._assign(sc, ret, depth)
        index = self.name("i")
        self.readonly.add(index)
        inner = self._loop_scope(sc)
        inner.vars[index] = "int"
        factor = r.choice((ex.int_leaf(inner, growth_safe=True), str(r.choice((3, 10, 1000, 2**31, 2**62))), index))
        step = r.choice((f"{var} = {var} * {factor} + {ex.int_(1, inner)}", f"{var} += {factor} * {ex.int_leaf(inner, True)}",
                         f"{var} -= {ex.int_leaf(inner, True)} << {r.randint(1, 62)}", f"{var} *= {factor}"))
        lines = [(0, f"for {index} in range({r.randint(1, 6)}):"), (1, step)]
        if r.random() < 0.4:  # back into int64 on some lanes: the overflow was only on the way
            lines.append((0, r.choice((f"{var} %= {r.choice((97, 1000003, 2**61 - 1))}", f"{var} >>= {r.choice((32, 64, 100))}",
                                       f"{var} = {var} // {r.choice((2**40, 3, -(2**62)))}"))))
        if sc.loops:
            sc.carried.add(var)
        return lines

    def _break(self, sc: Scope, ret, depth) -> Lines:
        return [(0, f"if {self.ex.bool_(2, sc)}:"), (1, "break")]

    def _continue(self, sc: Scope, ret, depth) -> Lines:
        return [(0, f"if {self.ex.bool_(2, sc)}:"), (1, "continue")]
