"""`explain`: what the compiler did to one function, annotated on the user's own source lines.

For one specialization (from sample arguments, else from the annotations: every argument
batched), it reads three things the engine already computes and maps them to file lines:

* the analysis (analysis/batched.py, `Facts`): which names are batched or uniform on each line,
  which `if`/`while`/`for` tests are batched (lowered to masks) or uniform (kept as Python);
* the generated NumPy module (explain_code.py): checks (`flag |= ...`, flag and patch),
  exact computations (`_vz_exact`, analysis/decisions.py), masked and compacted loops;
* the refusals: every `VectorizeError` of the fence, the analysis or the passes, with its place.

With sample arguments it also profiles one call of an instrumented copy (explain_profile.py).
`render_text` gives the terminal report (a margin of tags, as `git blame`); explain_html.py the
HTML one. The explanation is of the NumPy backend's code, whatever the function's backend.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from ..api import VectorizedFunction, prepare
from ..core.types import ArrayType
from ..engine.batch import Batch
from ..engine.inputs import InputError, canonical
from ..engine.kernels import Kernel, Route
from ..errors import VectorizeError, VectorizeErrorGroup, VectorizeInputError
from ..frontend.source import source_of
from ..pipeline import Statics, start
from ..specialized_analysis import decided_for_numbers
from . import explain_code, explain_profile

# tag -> (meaning, ANSI colour)
TAGS: dict[str, tuple[str, str]] = {
    "B": ("assigns a batched value (one per lane)", "34"),
    "U": ("assigns a uniform value (one for all lanes)", "2"),
    "mask": ("an `if` with a batched test: both sides run, merged under a mask", "33"),
    "if": ("an `if` with a uniform test: stays a Python `if`", "32"),
    "mloop": ("a loop with a batched test: runs while any lane is active, masked", "36"),
    "loop": ("a loop with a uniform test: stays a Python loop over whole arrays", "32"),
    "compact": ("the masked loop gathers its active lanes when few remain", "36"),
    "chk": ("carries a check: flagged lanes are re-run on the scalar function", "31"),
    "exact": ("computed with CPython's math, lane by lane (_vz_exact)", "35"),
    "ERR": ("cannot be vectorized (see the reasons)", "1;31"),
}


@dataclass
class Line:
    number: int  # in the file
    text: str
    tags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    names: dict[str, bool] = field(default_factory=dict)  # name -> batched, on this line
    seconds: float | None = None  # profile: time spent in this line's generated statements


@dataclass
class Explanation:
    qualname: str
    filename: str
    status: str  # "vectorized" | "refused" | "falls back"
    specialization: str
    lines: list[Line]
    problems: list[str] = field(default_factory=list)
    module: str | None = None  # the generated module
    profile: explain_profile.Profile | None = None
    notes: list[str] = field(default_factory=list)


def explain(vf: VectorizedFunction, args: tuple = (), kwargs: dict | None = None, html: Any = None,
            color: bool = False, key: Any = None, ndims: list[int] | None = None) -> str:
    """The text report for `vf`; with `html` (a path) also write the HTML report there. `key`
    (a specialization's key, instead of sample arguments) explains that one, without a profile."""
    expl = build(vf, args, kwargs or {}, key, ndims)
    if html is not None:
        from .explain_html import render_html

        with open(html, "w", encoding="utf-8") as out:
            out.write(render_html(expl))
    return render_text(expl, color)


def announce(vf: VectorizedFunction, key: Any) -> None:
    """`vectorize(f, explain=...)`: report each new specialization as it is made, on stderr
    (explain=True), or as an HTML report written to the path given (explain="report.html")."""
    target = vf.explain_option
    html = None if target is True else os.fspath(target)
    text = explain(vf, key=key, html=html, color=sys.stderr.isatty())
    sys.stderr.write(f"vectorizer: explain report written to {html}\n" if html else f"vectorizer explain:\n{text}\n")


def build(vf: VectorizedFunction, args: tuple = (), kwargs: dict | None = None, key: Any = None,
          ndims: list[int] | None = None) -> Explanation:
    """The explanation of one specialization: of the sample arguments' (laid out as `ndims`
    per-example dimensions each, as vmap and signature= give them), else of `key`, else of the
    annotations."""
    func = vf.scalar
    src = source_of(func)
    text_lines = src.text.splitlines()
    lines = [Line(src.first_line + i, src.file_line(i + 1)) for i in range(len(text_lines))]
    by_number = {line.number: line for line in lines}
    batch = None
    if (args or kwargs) and not vf.variadic:  # *args: refused by the fence, nothing to run
        bound = vf.__signature__.bind(*args, **(kwargs or {}))
        bound.apply_defaults()
        try:
            arrays = [canonical(n, bound.arguments[n]) for n in vf.parameter_names]
            batch = Batch(list(vf.parameter_names), arrays, ndims)
        except InputError as exc:
            raise VectorizeInputError(str(exc)) from None
        key = tuple((a.dtype.kind, batch.uniform(i), batch.example_shape(i)) for i, a in enumerate(arrays))
    made = vf.specialization(key)  # the annotations' when no key: every argument batched
    key, params, fixed, helpers = made.key, made.params(), made.fixed, made.helpers  # fixed: None/str/enum options
    spec = ", ".join([f"{n}: {_type_name(v.type)} {'batched' if v.batched else 'uniform'}" for n, v in params.items()]
                     + [f"{n}={v!r} (specialized on)" for n, v in fixed.items()])
    shown = os.path.relpath(src.filename) if not os.path.relpath(src.filename).startswith("..") else src.filename
    expl = Explanation(func.__qualname__, shown, "vectorized", spec, lines)
    try:
        route = vf.route(key)  # the cost model's pick for backend="auto", with its reason
    except VectorizeError as exc:  # backend="numba" without Numba
        route = Route(vf.options.backend, exc.message)
    expl.notes.append(f"route: {route} ({route.why})" + ("" if route == "numpy" else
                      "; this explains the NumPy route's code: the Numba lane kernel runs the same checks per "
                      "lane, without masks"))
    try:
        parsed, namespace = prepare(func, vf.namespace(), decided_for_numbers)
        parsed, facts, _ = start(parsed, namespace, params, vf.options, lanes=False,
                                 statics=Statics(fixed, helpers) if fixed or helpers else None)
    except VectorizeError as exc:
        _refused(expl, exc, by_number, vf)
        return expl
    _annotate_facts(parsed, facts, src.first_line, by_number)
    try:
        kernel = vf.generated(key, "numpy")
    except VectorizeError as exc:  # fallback="error" raises what the call would
        kernel = exc
    if not isinstance(kernel, Kernel):
        _refused(expl, kernel, by_number, vf)
        return expl
    expl.module = kernel.source
    source_text = {line.number: line.text for line in lines}
    code = explain_code.read(kernel.source, parsed.name, source_text)
    _annotate_code(code, source_text, by_number, vf.options.exact)
    if batch is not None:
        expl.profile = explain_profile.run(kernel.source, _kernel_name(kernel.source, parsed.name), code.origin,
                                           func, batch, func.__qualname__)
        for number, seconds in expl.profile.line_seconds.items():
            if number in by_number:
                by_number[number].seconds = seconds
    return expl


def _type_name(t: Any) -> str:
    if isinstance(t, ArrayType):
        return f"{t.elem.value}[{', '.join(map(str, t.shape))}]"
    return str(getattr(t, "value", t))


def _kernel_name(module: str, name: str) -> str:
    found = explain_code.kernel_def(module, name)
    return found.name if found is not None else name


def _refused(expl: Explanation, exc: VectorizeError, by_number: dict[int, Line], vf: VectorizedFunction) -> None:
    expl.status = "refused" if vf.options.fallback == "error" else "falls back"
    expl.notes.append("fallback='error': a call raises VectorizeError" if vf.options.fallback == "error" else
                      "a call runs the scalar function element by element (exact, slow) after one FallbackWarning")
    for err in exc.errors if isinstance(exc, VectorizeErrorGroup) else [exc]:
        loc = err.location
        where = f"{loc.filename}:{loc.line}:{loc.column}" if loc else "(no location)"
        hint = f" (hint: {err.hint})" if err.hint else ""
        expl.problems.append(f"{where}: {err.code}: {err.message}{hint}")
        if loc and loc.line in by_number:
            line = by_number[loc.line]
            if "ERR" not in line.tags:
                line.tags.append("ERR")
            line.notes.append(f"{err.code}: {err.message}{hint}")


def _annotate_facts(parsed: Any, facts: Any, first_line: int, by_number: dict[int, Line]) -> None:
    """Names per line (batched or not), and the kind of each `if`/loop, from the analysis."""
    for node, val in facts.vals.items():
        if isinstance(node, cst.Name) and (pos := parsed.positions.get(node)) is not None:
            line = by_number.get(first_line + pos.start.line - 1)
            if line is not None:
                line.names[node.value] = line.names.get(node.value, False) or val.batched
    for node, batched in facts.batched_test.items():
        rel = parsed.line_of(node)
        line = by_number.get(first_line + rel - 1) if rel is not None else None
        if line is None:
            continue
        if isinstance(node, cst.If):
            line.tags.append("mask" if batched else "if")
            line.notes.append("batched test: both sides run on every lane and are merged under a mask"
                              if batched else "uniform test: stays a Python `if`, decided once for all lanes")
        else:
            line.tags.append("mloop" if batched else "loop")
            line.notes.append("batched test: the loop runs while any lane is active; finished lanes are masked off"
                              if batched else "uniform test: stays a Python loop, each iteration on whole arrays")
    for line in by_number.values():
        assigned = _assigned(line.text)
        states = {line.names[n] for n in assigned if n in line.names}
        if states:
            line.tags.insert(0, "B" if True in states else "U")


def _annotate_code(code: explain_code.CodeFacts, source: dict[int, str], by_number: dict[int, Line],
                   exact: bool) -> None:
    for number, line in by_number.items():
        if number in code.compacted:
            line.tags.append("compact")
            line.notes.append("compacts: once at most half of 2048+ lanes are active, they are gathered into "
                              "short arrays; a long tail of <=128 lanes is left to the scalar function")
        if number in code.masked_loops and "mloop" not in line.tags:
            line.tags.append("mloop")
        if number in code.exits:
            line.notes.append("lanes that leave here are marked (done/brk) and masked off from what follows")
        if number in code.checks:
            line.tags.append("chk")
            for cond, callee in code.checks[number]:
                why = f"a check of the called function {callee}, inlined here" if callee \
                    else explain_code.check_reason(cond, source[number])
                line.notes.append(f"check: lanes where `{cond}` are flagged and re-run on the scalar function ({why})")
        if number in code.exact:
            line.tags.append("exact")
            fns = ", ".join(dict.fromkeys(code.exact[number]))
            line.notes.append(f"exact: {fns} computed as CPython does (the C library, in compiled loops), not by "
                              "NumPy's SIMD kernels: exact=True" if exact else
                              f"exact: {fns} computed by CPython lane by lane, not NumPy's SIMD kernels, because "
                              f"its value decides {explain_code.decided_by(number, source)}")


def _assigned(text: str) -> list[str]:
    try:
        tree = ast.parse(text.strip())
    except SyntaxError:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        out += [t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)]
    return out


# -- the terminal report -------------------------------------------------------------------------
def _paint(text: str, code: str, color: bool) -> str:
    return f"\033[{code}m{text}\033[0m" if color else text


def render_text(expl: Explanation, color: bool = False) -> str:
    """The source with a margin of tags per line, then the details, the names and the profile."""
    out = [f"{expl.qualname} ({expl.filename}:{expl.lines[0].number}): {expl.status}",
           f"specialization: {expl.specialization}"]
    out += [f"note: {n}" for n in expl.notes]
    out.append("")
    width = max([len(" ".join(line.tags)) for line in expl.lines] + [4])
    timed = expl.profile is not None
    for line in expl.lines:
        tags = " ".join(_paint(t, TAGS[t][1], color) for t in line.tags)
        pad = " " * (width - len(" ".join(line.tags)))
        ms = f"{duration(line.seconds) if line.seconds else '':>9} " if timed else ""
        out.append(f"{line.number:5d} {tags}{pad} {ms}| {line.text}")
    details = [f"  line {line.number}: {note}" for line in expl.lines for note in line.notes]
    if details:
        out += ["", "details:", *details]
    batched = sorted({n for line in expl.lines for n, b in line.names.items() if b})
    uniform = sorted({n for line in expl.lines for n, b in line.names.items() if not b})
    if batched or uniform:
        out += ["", "names:", f"  batched: {', '.join(batched) or '-'}",
                f"  uniform: {', '.join(uniform) or '-'}"
                + ("  (names in both lists are uniform on some lines, batched on others)" if set(batched) & set(uniform) else "")]
    if expl.problems:
        out += ["", f"why it is not vectorized ({len(expl.problems)}):", *(f"  {p}" for p in expl.problems)]
    if expl.profile is not None:
        out += ["", *profile_lines(expl.profile)]
    used = sorted({t for line in expl.lines for t in line.tags}, key=list(TAGS).index)
    if used:
        out += ["", "tags:", *(f"  {_paint(t, TAGS[t][1], color):<{7 + (len(TAGS[t][1]) + 7 if color else 0)}} {TAGS[t][0]}"
                               for t in used)]
    return "\n".join(out) + "\n"


def duration(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.0f} µs"


def profile_lines(p: explain_profile.Profile) -> list[str]:
    """The profile as text lines (shared by the terminal and HTML reports)."""
    out = [f"sample call: {p.lanes} lanes, {p.seconds * 1e3:.2f} ms (the second of two instrumented calls; each statement timed)"]
    if p.error:
        out.append(f"  the sample call raised {p.error}")
    if p.flagged is not None:
        out.append(f"  lanes flagged and re-run on the scalar function: {p.flagged}")
    for line, entries in sorted(p.loops.items()):
        iters = [len(e) for e in entries]
        first = entries[0] if entries else []
        counts = " ".join(str(a) for a, _ in first[:12]) + (" ..." if len(first) > 12 else "")
        comp = p.compactions.get(line, [])
        out.append(f"  loop at line {line}: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}, "
                   f"{sum(iters)} iterations (max {max(iters, default=0)}); active lanes per iteration: {counts}")
        out.append(f"    compacted at iteration {', '.join(str(i) for _, i in comp)}" if comp else
                   "    never compacted on this sample")
    if 0 in p.line_seconds:
        out.append(f"  time in generated statements with no source line: {p.line_seconds[0] * 1e3:.3f} ms")
    out.append("  not measured: the tests of if/while statements, input checks and result conversion, the "
               "re-runs' own time")
    return out
