"""`for c in bin(x)[k:]` whose `c` is only compared with string literals is a loop over the
positions of that string, `c` the character's code (part of frontend/desugar.py; issue 51:
primefac's Lucas chains, `for bit in bin(a)[3:]: ... if bit == "0" else ...`). Before::

    for bit in bin(a)[3:]:
        if bit == "0":
            v = v * v % n

After::

    bit_int_1 = a
    bit_len_1 = bit_int_1.bit_length()
    bit_pre_1 = 3 if bit_int_1 < 0 else 2
    bit_end_1 = bit_pre_1 + max(bit_len_1, 1)
    bit_abs_1 = abs(int(bit_int_1))
    for bit_pos_1 in range(3, bit_end_1):
        bit = 48 + (bit_abs_1 >> bit_end_1 - 1 - bit_pos_1 & 1) if bit_pos_1 >= bit_pre_1 else \
            (98 if bit_pos_1 == bit_pre_1 - 1 else (48 if bit_pos_1 == bit_pre_1 - 2 else 45))
        if bit == 48:
            v = v * v % n

`bin(x)` is `'0b'` then the binary digits of x (`'0'` for 0), with a `'-'` first for a negative
x; its slice from `k` is the characters at positions k, k + 1, ... of that string: a prefix
character ('-' 45, '0' 48, 'b' 98) before `bit_pre`, then the digits of |x| from the highest,
each 48 or 49. A comparison `c == "s"` (`!=`, either side) of one character is then `c == ord(s)`,
and of any other string `c == -1` (never equal: a character is one character). x is evaluated
once, before the loop, as Python evaluates `bin(x)[k:]` once; `bin` of a float raises TypeError,
and `x.bit_length()` flags those lanes (re-run by the scalar function, which raises bin's own
error; `int` of an int is that int, and keeps the digits' shifts typed as ints where x is a float,
whose lanes are flagged already); `abs` of -2**63 flags its lane as an int64 overflow (re-run the
same way).

Rewritten only when `bin` is the builtin, `k` is omitted or a non-negative int literal (no upper
bound, no step), the target is one name that nothing else binds, and every other read of it is
in the loop's body, one side of a single `==` or `!=` whose other side is a string literal;
otherwise the loop is left to the fence, which refuses it.
"""

from __future__ import annotations

import ast

import libcst as cst

from .namespace import Namespace
from .paths import PathTransformer


class BinLoops(PathTransformer):
    """The rewrite of the module docstring."""

    def __init__(self, ns: Namespace, func: cst.FunctionDef, local: set[str], binds: dict[str, int],
                 taken: set[str]) -> None:
        super().__init__()
        self.ns, self.func, self.local, self.binds, self.taken = ns, func, local, binds, taken
        self.count = 0
        self.codes: dict[int, int] = {}  # id of a compared string literal -> the code it stands for

    def wants(self, node: cst.CSTNode) -> bool:
        return self._parts(node) is not None or id(node) in self.codes

    def _is_bin(self, func: cst.BaseExpression) -> bool:
        if not isinstance(func, cst.Name) or func.value != "bin" or "bin" in self.local:
            return False
        glob = self.ns.resolve("bin")
        return glob.kind == "builtin" or glob.kind == "unknown" and glob.name == "bin" \
            and (self.ns.globals is None or "bin" not in self.ns.globals)

    def _parts(self, node: cst.CSTNode) -> tuple[cst.BaseExpression, int] | None:
        """(x, k) of a `for c in bin(x)[k:]` this rewrites, None for any other node."""
        if not (isinstance(node, cst.For) and node.asynchronous is None and node.orelse is None
                and isinstance(node.target, cst.Name)):
            return None
        it, k = node.iter, 0
        if isinstance(it, cst.Subscript):
            if len(it.slice) != 1 or not isinstance(it.slice[0].slice, cst.Slice):
                return None
            part = it.slice[0].slice
            if part.upper is not None or part.step is not None or not (part.lower is None or isinstance(part.lower, cst.Integer)):
                return None
            k = 0 if part.lower is None else int(part.lower.value.replace("_", ""), 0)
            it = it.value
        if not (isinstance(it, cst.Call) and self._is_bin(it.func) and len(it.args) == 1
                and it.args[0].keyword is None and not it.args[0].star):
            return None
        name = node.target.value
        if self.binds.get(name) != 1:
            return None
        compared = _Compared(name)
        self.func.body.visit(compared)
        inside = _Compared(name)
        node.body.visit(inside)
        if compared.other or len(compared.literals) != len(inside.literals):
            return None  # read otherwise, or compared outside the loop
        for literal in inside.literals:
            text = ast.literal_eval(literal.value)
            self.codes[id(literal)] = ord(text) if isinstance(text, str) and len(text) == 1 else -1
        return it.args[0].value, k

    def _fresh(self, c: str) -> tuple[str, ...]:
        """`c_int_k`, `c_len_k`, ...: one suffix k for the loop, the first no name of the function has."""
        while True:
            self.count += 1
            names = tuple(f"{c}_{s}_{self.count}" for s in ("int", "len", "pre", "end", "abs", "pos"))
            if not self.taken & set(names):
                self.taken.update(names)
                return names

    def leave_SimpleString(self, original: cst.SimpleString, updated: cst.SimpleString) -> cst.BaseExpression:
        code = self.codes.get(id(original))
        if code is None:
            return updated
        return cst.Integer(str(code)) if code >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer("1"))

    def leave_For(self, original: cst.For, updated: cst.For):  # noqa: ANN201 - libcst's union
        parts = self._parts(original)
        if parts is None:
            return updated
        x, k = parts
        c = original.target.value  # type: ignore[attr-defined]
        n, length, pre, end, mag, pos = self._fresh(c)
        text = (f"{n} = 0\n{length} = {n}.bit_length()\n{pre} = 3 if {n} < 0 else 2\n"
                f"{end} = {pre} + max({length}, 1)\n{mag} = abs(int({n}))\n")
        lines = list(cst.parse_module(text).body)
        lines[0] = lines[0].with_changes(body=[lines[0].body[0].with_changes(value=x)])  # type: ignore[attr-defined]
        code = cst.parse_statement(
            f"{c} = 48 + (({mag} >> ({end} - 1 - {pos})) & 1) if {pos} >= {pre} else "
            f"(98 if {pos} == {pre} - 1 else (48 if {pos} == {pre} - 2 else 45))\n")
        body = updated.body
        inner = list(body.body) if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(list(body.body))]
        loop = updated.with_changes(target=cst.Name(pos), iter=cst.parse_expression(f"range({k}, {end})"),
                                    body=cst.IndentedBlock([code, *inner]))
        for new in (*lines, code, loop):
            self.rebuilt[id(new)] = (new, original)
            if isinstance(new, cst.SimpleStatementLine):
                self.rebuilt[id(new.body[0])] = (new.body[0], original)
        return cst.FlattenSentinel([*lines, loop])


class _Compared(cst.CSTVisitor):
    """The string literals compared with `name` (`name == "1"`, `"0" != name`), and whether
    `name` is read any other way."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.literals: list[cst.SimpleString] = []
        self.allowed: set[int] = set()
        self.other = False

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name) and node.target.value == self.name:
            self.allowed.add(id(node.target))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal | cst.NotEqual):
            return
        left, right = node.left, node.comparisons[0].comparator
        for mine, other in ((left, right), (right, left)):
            if isinstance(mine, cst.Name) and mine.value == self.name and isinstance(other, cst.SimpleString) \
                    and not any(ch in other.prefix.lower() for ch in "bf"):
                self.allowed.add(id(mine))
                self.literals.append(other)
                return

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.allowed:
            self.other = True
