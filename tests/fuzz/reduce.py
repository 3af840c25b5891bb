"""A small C-Reduce for regression files: shrink the program text while the failure keeps its kind.

Hypothesis shrinks the generator's choices; this works on the source text that came out, with
edits the generator cannot express: delete a statement, replace an if/loop by its body, drop an
else branch, replace an expression by one of its operands or by a literal, drop unused helpers
and constants. An edit is kept when the vectorized program still fails the same way on the same
inputs (same first line of the failure, values taken out). The fuel counters of while loops are
never touched, so every candidate still terminates.

    python -m fuzz.reduce tests/fuzz/regressions/reg_xxx.py [--seconds 300]   (from tests/)

rewrites the file in place (the header is kept; the expected/got lines are refreshed).
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import time
from pathlib import Path

from fuzz import harness

LIBM = {"exp", "expm1", "exp2", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "cbrt", "atan2", "hypot", "pow"}


def kind(detail: str) -> str:
    first = detail.splitlines()[0] if detail else ""
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    return re.sub(r"[-+]?\d[\w.+-]*", "N", first)[:160]


class _Shim(ast.NodeTransformer):
    """The NumPy-valued twin of a program (see shim.py): libm calls and ** on non-constants."""

    def visit_BinOp(self, node: ast.BinOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and not _constant(node):
            return ast.Call(ast.Attribute(ast.Name("fuzz_shim", ast.Load()), "power", ast.Load()),
                            [node.left, node.right], [])
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        f = node.func
        if _constant(node):
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math" and f.attr in LIBM:
            node.func = ast.Attribute(ast.Name("fuzz_shim", ast.Load()), f.attr, ast.Load())
        elif isinstance(f, ast.Name) and f.id == "pow":
            node.func = ast.Attribute(ast.Name("fuzz_shim", ast.Load()), "power", ast.Load())
        return node


BUILTINS = {"abs", "min", "max", "round", "int", "float", "bool", "pow", "len", "math"}


def _constant(node: ast.AST) -> bool:
    """Only literals and module constants (vectorizer folds these with Python's own math)."""
    return all(re.fullmatch(r"[KT]_\d+", n.id) or n.id in BUILTINS
               for n in ast.walk(node) if isinstance(n, ast.Name))


def shim_source(source: str) -> str:
    tree = _Shim().visit(ast.parse(source))
    text = ast.unparse(ast.fix_missing_locations(tree))
    return text.replace("import math", "import math\nfrom fuzz import shim as fuzz_shim", 1) + "\n"


def outcome(source: str, args: list, classb: bool) -> harness.Outcome:
    module = harness.load(source, "reduce")
    shim = harness.load(shim_source(source), "reduceshim") if classb else None
    return harness.differential(module, shim, args, classb, twice=False)


# -- candidate edits --------------------------------------------------------------------------------
def _bodies(tree: ast.AST):
    """Every statement list in the tree, as (owner, field)."""
    for node in ast.walk(tree):
        for fld in ("body", "orelse"):
            stmts = getattr(node, fld, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield node, fld


def _mentions_fuel(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and "fuel" in n.id for n in ast.walk(node))


def _fuel(s: ast.stmt) -> bool:
    """`fuel += 1` and `if fuel > L: break`: what keeps a while loop finite."""
    if isinstance(s, ast.AugAssign):
        return "fuel" in ast.unparse(s.target)
    return isinstance(s, ast.If) and _mentions_fuel(s.test) and any(isinstance(b, ast.Break) for b in s.body)


def _protected(tree: ast.AST) -> set[int]:
    """Expressions the reducer leaves alone: the fuel parts of loop tests and counters."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        parts = []
        if isinstance(node, ast.While) and _mentions_fuel(node.test):
            parts.append(node.test)
        elif isinstance(node, ast.stmt) and _fuel(node):
            parts.append(node)
        for part in parts:
            ids.update(id(n) for n in ast.walk(part) if _mentions_fuel(n))
    return ids


def statement_edits(tree: ast.Module):
    for owner_i, (owner, fld) in enumerate(list(_bodies(tree))):
        stmts = getattr(owner, fld)
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Import | ast.ImportFrom) or _fuel(s):
                continue
            if len(stmts) > 1:
                yield ("delete", owner_i, fld, i, None)
            if isinstance(s, ast.If | ast.For):
                yield ("inline", owner_i, fld, i, None)
            if isinstance(s, ast.If) and s.orelse:
                yield ("drop-else", owner_i, fld, i, None)
                yield ("take-else", owner_i, fld, i, None)


def apply_statement_edit(tree: ast.Module, edit) -> ast.Module | None:
    tree = copy.deepcopy(tree)
    what, owner_i, fld, i, _ = edit
    owner, fld = list(_bodies(tree))[owner_i]
    stmts = getattr(owner, fld)
    s = stmts[i]
    if what == "delete":
        del stmts[i]
    elif what == "inline":
        stmts[i:i + 1] = s.body
    elif what == "drop-else":
        s.orelse = []
    elif what == "take-else":
        stmts[i:i + 1] = s.orelse
    return tree


def _simpler(node: ast.expr) -> list[ast.expr]:
    out: list[ast.expr] = []
    if isinstance(node, ast.BinOp):
        out += [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        out.append(node.operand)
    elif isinstance(node, ast.BoolOp):
        out += node.values
    elif isinstance(node, ast.IfExp):
        out += [node.body, node.orelse, node.test]
    elif isinstance(node, ast.Compare):
        out.append(node.left)
        out += node.comparators
        if len(node.comparators) > 1:
            out.append(ast.Compare(node.left, node.ops[:1], node.comparators[:1]))
    elif isinstance(node, ast.Call):
        out += [a for a in node.args]
    if not isinstance(node, ast.Constant):
        out += [ast.Constant(0), ast.Constant(0.0), ast.Constant(True)]
    elif node.value not in (0, 1) or isinstance(node.value, float):
        out += [ast.Constant(0), ast.Constant(1)]
    return out


def _expressions(tree: ast.Module) -> list[ast.expr]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.expr) and not isinstance(n, ast.Name | ast.Attribute)
            and not isinstance(n, ast.Tuple | ast.Load | ast.Store)]


def expression_edits(tree: ast.Module):
    protected = _protected(tree)
    for k, node in enumerate(_expressions(tree)):
        if id(node) in protected:
            continue
        for j in range(len(_simpler(node))):
            yield ("expr", k, j)


def apply_expression_edit(tree: ast.Module, edit) -> ast.Module | None:
    tree = copy.deepcopy(tree)
    _, k, j = edit
    target = _expressions(tree)[k]
    replacement = _simpler(target)[j]

    class Swap(ast.NodeTransformer):
        def visit(self, node):
            if node is target:
                return copy.deepcopy(replacement)
            return self.generic_visit(node)

    return Swap().visit(tree)


def unused_definitions(tree: ast.Module):
    text_of = {id(s): ast.unparse(s) for s in tree.body}
    for i, s in enumerate(tree.body):
        name = s.name if isinstance(s, ast.FunctionDef) else s.targets[0].id if isinstance(s, ast.Assign) and \
            isinstance(s.targets[0], ast.Name) else None
        if name is None or name == "f":
            continue
        used = any(re.search(rf"\b{name}\b", text_of[id(o)]) for o in tree.body if o is not s)
        if not used:
            yield i


# -- the loop -------------------------------------------------------------------------------------
def reduce_source(source: str, args: list, classb: bool, seconds: float = 300.0) -> str:
    target = kind(outcome(source, args, classb).detail)
    old_timeout = harness.CALL_TIMEOUT, harness.ORACLE_TIMEOUT
    harness.CALL_TIMEOUT = harness.ORACLE_TIMEOUT = 3.0
    deadline = time.monotonic() + seconds
    tree = ast.parse(source)
    try:
        changed = True
        while changed and time.monotonic() < deadline:
            changed = False
            for i in sorted(unused_definitions(tree), reverse=True):
                cand = copy.deepcopy(tree)
                del cand.body[i]
                if _same(cand, target, args, classb):
                    tree, changed = cand, True
            for edits, apply in ((statement_edits, apply_statement_edit), (expression_edits, apply_expression_edit)):
                k = 0
                while time.monotonic() < deadline:
                    todo = list(edits(tree))
                    if k >= len(todo):
                        break
                    cand = apply(tree, todo[k])
                    if cand is not None and _same(cand, target, args, classb):
                        tree, changed = cand, True
                    else:
                        k += 1
    finally:
        harness.CALL_TIMEOUT, harness.ORACLE_TIMEOUT = old_timeout
    return ast.unparse(tree) + "\n"


def _same(tree: ast.Module, target: str, args: list, classb: bool) -> bool:
    try:
        source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        compile(source, "<candidate>", "exec")
        with harness.time_limit(3.0, "scalar program"):  # the candidate must still terminate
            harness.describe_oracle(harness.load(source, "reduce").f, args)
        result = outcome(source, args, classb)
    except harness.FuzzTimeout:
        return False
    except Exception:  # noqa: BLE001 - an invalid candidate is just not kept
        return False
    return result.status == "fail" and kind(result.detail) == target


def reduce_file(path: Path, seconds: float = 300.0) -> None:
    reg = harness.read_regression(path)
    text = path.read_text()
    start = text.index("import math")
    header = [line for line in text[:start].splitlines() if not line.startswith("# | ")]
    source = text[start:].split("\n# shim|")[0]
    if outcome(source, reg.args, reg.classb).status != "fail":
        print(f"{path}: passes now, left as it is")
        return
    reduced = reduce_source(source, reg.args, reg.classb, seconds)
    result = outcome(reduced, reg.args, reg.classb)
    lines = header + [f"# | {line}" for line in result.detail.splitlines()[:40]]
    body = reduced
    if reg.classb:
        body += "\n" + "\n".join(f"# shim| {line}" for line in shim_source(reduced).splitlines()) + "\n"
    path.write_text("\n".join(lines) + "\n\n" + body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--seconds", type=float, default=300.0)
    ns = parser.parse_args(argv)
    for path in ns.files:
        before = path.read_text().count("\n")
        reduce_file(path, ns.seconds)
        print(f"{path}: {before} -> {path.read_text().count(chr(10))} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
