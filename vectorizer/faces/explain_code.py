"""Read a generated NumPy module back onto the user's source lines (for `explain`).

The NumPy pipeline comments each lowered block with the source line it came from
(`# line N: <source>`, passes/annotate_origins.py). Statements it did not rewrite carry no
comment; they are matched to the user's line by their text. From the kernel's text this module
finds, per source line: the checks (`flag |= cond`: lanes where `cond` holds are re-run on the
scalar function), the exact computations (`_vz_exact(math.f, ...)`: CPython's own bits), masked
while loops (`while np.any(active)`) and their compaction points (`lanes.compact(...)`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

ORIGIN = re.compile(r"^\s*# line (\d+): ")


@dataclass
class CodeFacts:
    """What the generated kernel does for each user line (file line numbers)."""

    origin: dict[int, int] = field(default_factory=dict)  # kernel module line -> user file line
    checks: dict[int, list[tuple[str, str | None]]] = field(default_factory=dict)
    # user line -> flagged conditions (and the inlined callee, and its line, they come from)
    exact: dict[int, list[str]] = field(default_factory=dict)  # user line -> functions run exactly
    masked_loops: set[int] = field(default_factory=set)  # user lines of `while` lowered to masks
    compacted: set[int] = field(default_factory=set)  # masked loops that compact their lanes
    exits: set[int] = field(default_factory=set)  # `return`/`break` lowered to a lane mask (done, brk)
    kernel_lines: dict[int, list[str]] = field(default_factory=dict)  # user line -> generated lines


def kernel_def(module: str, name: str) -> ast.FunctionDef | None:
    """The kernel function of a generated module: `name` (the cache's modules) or `_kernel_name`."""
    defs = {n.name: n for n in ast.parse(module).body if isinstance(n, ast.FunctionDef)}
    return defs.get(f"_kernel_{name}") or defs.get(name)


def read(module: str, name: str, source_lines: dict[int, str]) -> CodeFacts:
    """Map the kernel `name` of `module` onto `source_lines` (file line -> text). Which user line
    a generated line stands for comes from the origin comments (text: comments are not in the
    tree) and from statements left as the user wrote them; what a statement does (a check, an
    exit, an exact call, a masked loop, a compaction) from its tree."""
    facts = CodeFacts()
    func = kernel_def(module, name)
    if func is None:
        return facts
    by_text: dict[str, list[int]] = {}
    for line, text in source_lines.items():
        by_text.setdefault(text.strip(), []).append(line)
    starts = {stmt.lineno: stmt for stmt in _statements(func.body)}  # module line -> the statement it starts
    lines = module.splitlines()
    current: int | None = None
    callee_line: int | None = None  # inside an inlined callee: the callee's line
    callee: str | None = None  # inside an inlined callee: its name
    loop_stack: list[tuple[int, int, str]] = []  # (indent, user line, mask) of the masked loops we are in
    for i in range(func.lineno, (func.end_lineno or func.lineno)):  # 0-based index of the line after `def`
        text = lines[i]
        stripped = text.strip()
        if not stripped:
            continue
        indent = len(text) - len(text.lstrip())
        while loop_stack and indent <= loop_stack[-1][0]:
            current = loop_stack.pop()[1]  # after a masked loop: its write-back (lanes.expand) is the loop's
        if m := ORIGIN.match(text):
            line = int(m.group(1))
            if line in source_lines:
                current, callee_line, callee = line, None, None
            else:  # an inlined same-module function's line: charged to the call's line
                callee_line = line
            continue
        if stripped.startswith("# inlined: "):
            callee = stripped[len("# inlined: "):].split("(")[0]
            continue
        if stripped.startswith("#"):
            continue
        stmt = starts.get(i + 1)
        if loop_stack and stmt is not None and _assigns(stmt, loop_stack[-1][2]):
            current = loop_stack[-1][1]  # the mask's update at the end of the body is the loop's test
        elif (same := by_text.get(stripped)) and (current is None or any(s > current for s in same)):
            current = min(s for s in same if current is None or s > current)  # an unchanged statement
        if current is None:
            continue
        facts.origin[i + 1] = current
        facts.kernel_lines.setdefault(current, []).append(stripped)
        if stmt is None:
            continue  # a statement's continuation line: the statement was read at its first
        if (cond := _check(stmt)) is not None:
            where = None if callee is None else callee + (f", its line {callee_line}" if callee_line else "")
            facts.checks.setdefault(current, []).append((ast.get_source_segment(module, cond) or ast.unparse(cond), where))
        if _exit(stmt):
            facts.exits.add(current)
        for fn in _exact_calls(stmt):
            facts.exact.setdefault(current, []).append(fn)
        if (mask := _masked_loop(stmt)) is not None:
            facts.masked_loops.add(current)
            loop_stack.append((indent, current, mask))
        if loop_stack and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "compact"
                              for e in _own(stmt) for n in ast.walk(e)):  # lanes.compact(...)
            facts.compacted.add(loop_stack[-1][1])
    return facts


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Every statement of `body`, nested ones too."""
    out: list[ast.stmt] = []
    for stmt in body:
        out.append(stmt)
        for field_name in ("body", "orelse", "finalbody"):
            out += _statements(getattr(stmt, field_name, []))
        for handler in getattr(stmt, "handlers", []):
            out += _statements(handler.body)
    return out


def _own(stmt: ast.stmt) -> list[ast.AST]:
    """What a statement computes on its own lines: a compound statement's header, else all of it."""
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, ast.With):
        return list(stmt.items)
    if isinstance(stmt, ast.Try | ast.FunctionDef | ast.ClassDef):
        return []
    return [stmt]


def _assigns(stmt: ast.stmt, name: str) -> bool:
    """`name = ...`."""
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and stmt.targets[0].id == name


def _check(stmt: ast.stmt) -> ast.expr | None:
    """The condition of a check, `flag |= cond` (lanes where it holds are re-run), else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.BitOr) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id == "flag":
        return stmt.value
    return None


def _exit(stmt: ast.stmt) -> bool:
    """`done = done | ...` / `brk = brk | ...`: lanes that return or break are marked."""
    return isinstance(stmt, ast.Assign) and any(_assigns(stmt, n) for n in ("done", "brk")) \
        and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, ast.BitOr) \
        and isinstance(stmt.value.left, ast.Name) and stmt.value.left.id == stmt.targets[0].id  # type: ignore[attr-defined]


def _exact_calls(stmt: ast.stmt) -> list[str]:
    """The functions `_vz_exact(math.f, ...)` calls compute on the statement's lines, in order."""
    calls = [n for e in _own(stmt) for n in ast.walk(e) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "_vz_exact" and n.args and isinstance(n.args[0], ast.Name | ast.Attribute)]
    return [ast.unparse(c.args[0]) for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset))]


def _masked_loop(stmt: ast.stmt) -> str | None:
    """The mask of a masked loop, `while np.any(mask):`, else None."""
    if isinstance(stmt, ast.While) and isinstance(stmt.test, ast.Call) and ast.unparse(stmt.test.func) == "np.any" \
            and len(stmt.test.args) == 1 and isinstance(stmt.test.args[0], ast.Name):
        return stmt.test.args[0].id
    return None


def check_reason(cond: str, source: str) -> str:
    """A short guess at what a flagged condition guards, from the condition and the user's line."""
    if "9007199254740992" in cond:
        return "an int beyond 2**53 meets a float: not exact as a float64, so Python's own arithmetic decides"
    if re.search(r"==\s*0\b", cond) and re.search(r"[^/]/[^/]|//|%|divmod", source):
        return "division by zero (ZeroDivisionError)"
    if "1e+308" in cond or "709.7" in cond or "_vz_overflow" in cond or "OverflowError" in cond:
        return "float overflow (OverflowError)"
    if re.search(r"int64|2 \*\* 63|9223372036854775807", cond) or "_vz_int_overflow" in cond:
        return "int64 overflow: the exact Python int is patched in"
    if re.search(r"<\s*0|<=\s*0|> 1\.0|< -1\.0", cond) and "math." in source:
        return "math domain error (ValueError)"
    if "raise" in source or "assert" in source:
        return "the line raises on these lanes"
    return "a lane that may raise or overflow"


def decided_by(line: int, source_lines: dict[int, str]) -> str:
    """What the value computed on `line` decides, read from the later lines that use its names
    (a name-level guess, as analysis/decisions.py's slice is name-level)."""
    try:
        tree = ast.parse(source_lines[line].strip())
    except SyntaxError:
        return "a discrete outcome"
    names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)
             for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target) if isinstance(t, ast.Name)}
    if not names:
        return "a branch, a comparison or an exception check on this line"
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    for later in sorted(n for n in source_lines if n > line):
        text = source_lines[later].strip()
        if pattern.search(text) and re.match(r"(if|elif|while|assert)\b|.*(<|>|==|!=|//|%|\bint\(|\bround\()", text):
            return f"`{text.rstrip(':')}` (line {later})"
    return "a later discrete outcome (a comparison, an int, a check)"
