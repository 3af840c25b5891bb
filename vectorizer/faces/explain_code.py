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
_EXACT = re.compile(r"_vz_exact\(([\w.]+)")


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
    """Map the kernel `name` of `module` onto `source_lines` (file line -> text)."""
    facts = CodeFacts()
    func = kernel_def(module, name)
    if func is None:
        return facts
    by_text: dict[str, list[int]] = {}
    for line, text in source_lines.items():
        by_text.setdefault(text.strip(), []).append(line)
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
        if loop_stack and stripped.startswith(f"{loop_stack[-1][2]} = "):
            current = loop_stack[-1][1]  # the mask's update at the end of the body is the loop's test
        elif (same := by_text.get(stripped)) and (current is None or any(s > current for s in same)):
            current = min(s for s in same if current is None or s > current)  # an unchanged statement
        if current is None:
            continue
        facts.origin[i + 1] = current
        facts.kernel_lines.setdefault(current, []).append(stripped)
        if stripped.startswith("flag |= "):
            where = None if callee is None else callee + (f", its line {callee_line}" if callee_line else "")
            facts.checks.setdefault(current, []).append((stripped[len("flag |= "):], where))
        if stripped.startswith(("done = done |", "brk = brk |")):
            facts.exits.add(current)
        for fn in _EXACT.findall(stripped):
            facts.exact.setdefault(current, []).append(fn)
        if stripped.startswith("while np.any("):
            facts.masked_loops.add(current)
            loop_stack.append((indent, current, stripped[len("while np.any("):].split(")")[0]))
        if ".compact(" in stripped and loop_stack:
            facts.compacted.add(loop_stack[-1][1])
    return facts


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
