"""Helpers called with constant arguments (static calls), pure and impure, and the module state
they read or write, with the `_reset()` and `_mutate()` the checker calls between runs.

Pure kinds read only their arguments, literals and module constants; `rebound` reads a module
constant that `_mutate()` rebinds (the next call must see the new value). Impure kinds read
mutable state (`read_list`, `read_dict`, `class_attr`, `env`: `_mutate()` changes it between two
rounds), or have effects and state (`counter`, `random`, `print`, `log`, `time`, classmethods
`random_cls`, `print_cls`, `counter_cls` evaluated with constant strings, `object_cls` (an
object made from a class attribute `_mutate()` changes, its attribute read), and `lane_counter`,
called with a lane's value). For each, the batched call must give the loop's
values (the helper run per lane) or be refused; never a value computed once when the code was
generated.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

PURE = ("pure", "pure_arg", "classmethod_pure", "staticmethod_pure", "rebound")
IMPURE = ("read_list", "read_dict", "class_attr", "env", "counter", "random", "random_cls", "print", "log",
          "time", "lane_counter", "print_cls", "counter_cls", "object_cls")
FLOAT_KINDS = ("pure", "pure_arg", "rebound", "read_list", "random")


@dataclass
class Static:
    name: str
    kind: str
    ty: str
    source: list[str]  # module-level lines defining it
    calls: list[str]  # call texts (constant arguments); "{arg}" where a lane's value goes

    @property
    def pure(self) -> bool:
        return self.kind in PURE


def make_static(rng: random.Random, index: int, kind: str, ty: str, module) -> Static:  # noqa: ANN001, C901
    """One static helper of `kind` returning `ty`; records the state it needs on `module`."""
    s = f"s{index}"
    k, t = module.int_constants[0], module.int_table()
    fk = module.float_constants[0]
    lits = [str(rng.randint(-3, 9)) for _ in range(2)]
    if kind == "pure":
        body = f"return {k} * {rng.randint(2, 9)} + len({t})" if ty == "int" else f"return {fk} / 4.0 + {rng.choice(('1.0', '0.5'))}"
        return Static(s, kind, ty, [f"def {s}():", f"    {body}"], [f"{s}()"])
    if kind == "pure_arg":
        body = f"return {t}[k % len({t})] * 2 + k" if ty == "int" else f"return k * 0.25 - {fk}"
        return Static(s, kind, ty, [f"def {s}(k):", f"    {body}"], [f"{s}({v})" for v in lits])
    if kind == "rebound":
        body = f"return {k} - {rng.randint(1, 5)}" if ty == "int" else f"return {fk} * 2.0"
        return Static(s, kind, ty, [f"def {s}():", f"    {body}"], [f"{s}()"])
    if kind in ("classmethod_pure", "class_attr", "random_cls", "print_cls", "counter_cls"):
        cls = f"Cz{index}"
        body = {"classmethod_pure": ["return len(name) * 3 + 1"], "class_attr": ["return cls.SCALE * len(name)"],
                "random_cls": ["return _RNG.randrange(100) + len(name)"],
                "print_cls": ['print("fz: pick", name)', "return len(name)"],
                "counter_cls": ["_CNT[0] += 1", "return _CNT[0] + len(name)"]}[kind]
        if kind == "class_attr":
            module.state("class", cls)
        if kind in ("random_cls", "counter_cls"):
            module.state("random" if kind == "random_cls" else "counter")
        lines = [f"class {cls}:", "    SCALE = 3", "", "    @classmethod", "    def pick(cls, name):",
                 *(f"        {line}" for line in body)]
        return Static(cls, kind, ty, lines, [f'{cls}.pick("{w}")' for w in rng.sample(("a", "ab", "abc", "wgs84"), 2)])
    if kind == "object_cls":  # an object made when the code is generated, from a class attribute
        cls = f"Cz{index}"
        module.state("class", cls)
        lines = [f"class {cls}:", "    SCALE = 3", "", "    def __init__(self, k):", "        self.k = k", "",
                 "    @classmethod", "    def make(cls, name):", "        return cls(cls.SCALE * len(name))"]
        return Static(cls, kind, "object", lines, [f'{cls}.make("{w}")' for w in rng.sample(("a", "ab", "abc"), 2)])
    if kind == "staticmethod_pure":
        cls = f"Cz{index}"
        lines = [f"class {cls}:", "    @staticmethod", "    def twice(k):", "        return 2 * k + 1"]
        return Static(cls, kind, ty, lines, [f"{cls}.twice({v})" for v in lits])
    if kind == "read_list":
        module.state("list")
        body = "return _MUT[0] * 2 + _MUT[1]" if ty == "int" else "return _MUTF[0] + 0.5"
        return Static(s, kind, ty, [f"def {s}():", f"    {body}"], [f"{s}()"])
    if kind == "read_dict":
        module.state("dict")
        return Static(s, kind, ty, [f"def {s}(k):", "    return _MAP.get(k, -1)"], [f"{s}({v})" for v in ("0", "1", "7")])
    if kind == "env":
        module.state("env")
        return Static(s, kind, ty, [f"def {s}():", '    return int(os.environ.get("VZF2_ENV", "3"))'], [f"{s}()"])
    if kind == "counter":
        module.state("counter")
        return Static(s, kind, ty, [f"def {s}():", "    _CNT[0] += 1", "    return _CNT[0]"], [f"{s}()"])
    if kind == "random":
        module.state("random")
        body = "return _RNG.randrange(1000)" if ty == "int" else "return _RNG.random()"
        return Static(s, kind, ty, [f"def {s}():", f"    {body}"], [f"{s}()"])
    if kind == "print":
        return Static(s, kind, ty, [f"def {s}():", f'    print("fz: {s} ran")', "    return 4"], [f"{s}()"])
    if kind == "log":
        module.state("log")
        return Static(s, kind, ty, [f"def {s}(k):", "    _LOG.append(k)", "    return k * 3"], [f"{s}({v})" for v in lits])
    if kind == "time":
        module.state("time")
        return Static(s, kind, ty, [f"def {s}():", "    return 1 if time.time() > 0.0 else 0"], [f"{s}()"])
    assert kind == "lane_counter", kind
    module.state("counter")
    return Static(s, kind, ty, [f"def {s}(v):", "    _CNT[0] += 1", "    return v + _CNT[0]"], [f"{s}({{arg}})"])


STATE_LINES = {  # what each kind of state adds: (definition, reset, mutate)
    "list": (["_MUT = [4, -2]", "_MUTF = [0.25]"], ["_MUT[:] = [4, -2]", "_MUTF[:] = [0.25]"],
             ["_MUT[0] = 9", "_MUTF[0] = -1.5"]),
    "dict": (["_MAP = {0: 3, 1: -5}"], ["_MAP.clear()", "_MAP.update({0: 3, 1: -5})"], ["_MAP[1] = 11", "_MAP[7] = 2"]),
    "env": ([], ['os.environ["VZF2_ENV"] = "3"'], ['os.environ["VZF2_ENV"] = "8"']),
    "counter": (["_CNT = [0]"], ["_CNT[0] = 0"], []),
    "random": (["_RNG = random.Random(7)"], ["_RNG.seed(7)"], []),
    "log": (["_LOG = []"], ["_LOG.clear()"], []),
    "time": ([], [], []),
}
IMPORTS = {"env": "os", "random": "random", "time": "time"}
