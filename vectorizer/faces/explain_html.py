"""The `explain` report as one self-contained HTML page: inline CSS and SVG, no script, no
external asset (it renders the same offline, in a mail attachment or a CI artifact).

The page shows the annotated source (tags, time per line, notes), the reasons a function is not
vectorized, the names, the sample call's profile (per masked loop an SVG bar chart of the active
lanes per iteration with the compaction points marked) and, folded, the generated module.
"""

from __future__ import annotations

import math
from html import escape

from .explain import TAGS, Explanation, duration, profile_lines
from .explain_profile import Profile

_COLORS = {"B": "#1f5fbf", "U": "#6b7280", "mask": "#b45309", "if": "#15803d", "mloop": "#0e7490",
           "loop": "#15803d", "compact": "#0e7490", "chk": "#b91c1c", "exact": "#7e22ce", "ERR": "#991b1b"}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#111827;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:22px 0 8px}
.meta{color:#4b5563;margin:2px 0}.status{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:13px}
.vectorized{background:#15803d}.refused,.falls-back{background:#b91c1c}
table.src th{padding:2px 8px}
table.src{border-collapse:collapse;width:100%;font:13px/1.5 ui-monospace,'DejaVu Sans Mono',Menlo,monospace}
table.src td{padding:1px 8px;vertical-align:top;border-bottom:1px solid #f1f5f9}
td.no{color:#9ca3af;text-align:right;width:1%}td.tags{width:1%;white-space:nowrap}
td.code{white-space:pre;width:1%;padding-right:24px}td.notes{font:12px/1.4 system-ui,sans-serif;color:#374151}
td.time{width:1%;white-space:nowrap;font-size:11px;color:#374151}
.bar{display:inline-block;height:9px;background:#f59e0b;margin-right:4px;vertical-align:middle}
.tag{display:inline-block;padding:0 5px;margin-right:3px;border-radius:4px;color:#fff;font-size:11px;line-height:16px}
tr.err td.code{background:#fef2f2}tr.masked td.code{background:#fffbeb}
.problems{background:#fef2f2;border:1px solid #fecaca;padding:8px 12px 8px 30px;border-radius:6px}
.problems li{margin:4px 0;font-family:ui-monospace,monospace;font-size:12px}
.legend span.tag{width:4.5em;text-align:center}.legend div{margin:2px 0}
pre.gen{background:#f8fafc;border:1px solid #e5e7eb;padding:8px;font-size:12px;overflow:auto}
.note{color:#4b5563;font-size:12px}
"""


def _tag(t: str) -> str:
    return f'<span class="tag" style="background:{_COLORS[t]}" title="{escape(TAGS[t][0])}">{t}</span>'


def render_html(expl: Explanation) -> str:
    """The whole page, as text."""
    p = expl.profile
    most = max([line.seconds or 0.0 for line in expl.lines] + [1e-12])
    rows = []
    for line in expl.lines:
        cls = "err" if "ERR" in line.tags else "masked" if {"mask", "mloop"} & set(line.tags) else ""
        names = ""
        if line.names:
            b = [n for n, v in sorted(line.names.items()) if v]
            u = [n for n, v in sorted(line.names.items()) if not v]
            names = "<br>".join(x for x in (f"batched: {escape(', '.join(b))}" if b else "",
                                            f"uniform: {escape(', '.join(u))}" if u else "") if x)
        notes = "".join(f"<div>{escape(n)}</div>" for n in line.notes)
        if names:
            notes += f'<div class="note">{names}</div>'
        time = ""
        if p is not None:
            time = '<td class="time"></td>'
            if line.seconds:
                width = max(1, round(60 * line.seconds / most))
                time = f'<td class="time"><span class="bar" style="width:{width}px"></span>{duration(line.seconds)}</td>'
        rows.append(f'<tr class="{cls}"><td class="no">{line.number}</td><td class="tags">'
                    f'{"".join(_tag(t) for t in line.tags)}</td>{time}<td class="code">{escape(line.text)}</td>'
                    f'<td class="notes">{notes}</td></tr>')
    status_cls = expl.status.replace(" ", "-")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>vectorizer explain: {escape(expl.qualname)}</title><style>{_CSS}</style></head><body>",
        f'<h1>{escape(expl.qualname)} <span class="status {status_cls}">{escape(expl.status)}</span></h1>',
        f'<p class="meta">{escape(expl.filename)}:{expl.lines[0].number} &middot; specialization: '
        f"{escape(expl.specialization)}</p>",
        *(f'<p class="meta">note: {escape(n)}</p>' for n in expl.notes),
    ]
    if expl.problems:
        parts += [f"<h2>Why it is not vectorized ({len(expl.problems)})</h2>", '<ul class="problems">',
                  *(f"<li>{escape(x)}</li>" for x in expl.problems), "</ul>"]
    head = "<th>time</th>" if p is not None else ""
    parts += ["<h2>Source</h2>", '<table class="src"><thead><tr style="text-align:left;color:#6b7280;font-size:12px">'
              f"<th>line</th><th>tags</th>{head}<th>code</th><th>what the compiler did</th></tr></thead><tbody>",
              *rows, "</tbody></table>"]
    if p is not None:
        parts += ["<h2>Profile of a sample call</h2>", *_profile(p)]
    used = [t for t in TAGS if any(t in line.tags for line in expl.lines)]
    if used:
        parts += ['<h2>Tags</h2><div class="legend">',
                  *(f"<div>{_tag(t)} {escape(TAGS[t][0])}</div>" for t in used), "</div>"]
    if expl.module:
        parts += ["<h2>Generated code</h2>", "<details><summary>the generated NumPy module (click to open)</summary>",
                  f'<pre class="gen">{escape(expl.module)}</pre></details>']
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _profile(p: Profile) -> list[str]:
    lines = profile_lines(p)
    out = [f"<p>{escape(lines[0])}</p>", "<ul>", *(f"<li>{escape(x.strip())}</li>" for x in lines[1:]
                                                    if not x.lstrip().startswith(("loop at", "compacted", "never"))),
           "</ul>"]
    for line, entries in sorted(p.loops.items()):
        comp = [i for e, i in p.compactions.get(line, []) if e == 0]
        total = sum(len(e) for e in entries)
        out.append(f"<h3 style='font-size:14px;margin:14px 0 4px'>Loop at line {line}: {len(entries)} "
                   f"entr{'y' if len(entries) == 1 else 'ies'}, {total} iterations"
                   f"{'; compacted at iteration ' + ', '.join(map(str, comp)) if comp else '; not compacted'}</h3>")
        if entries and entries[0]:
            out.append(_chart(entries[0], comp, len(entries) > 1))
    return out


COLUMNS = 380  # the chart's bars at most: a longer loop is drawn downsampled, every iteration counted


def _chart(counts: list[tuple[int, int]], compactions: list[int], first_only: bool) -> str:
    """Active lanes per iteration of one entry into a loop, over the WHOLE run: at most COLUMNS
    bars, each the most lanes active in the iterations it stands for (its tooltip gives the range),
    on a log scale (the few lanes of a long tail stay visible beside thousands); every compaction
    is a red mark at its iteration."""
    total = len(counts)
    columns = min(total, COLUMNS)
    width, height, left, top_pad = 760, 170, 56, 20
    plot = height - top_pad - 22
    top = max(a for a, _ in counts) or 1
    step = (width - left - 10) / columns

    def y(active: int) -> float:  # log scale: 0 lanes at the axis, `top` lanes at the top
        return height - 22 - plot * math.log10(1 + active) / math.log10(1 + top)

    parts = []
    for k in range(1, int(math.log10(top)) + 1):  # grid lines at powers of ten, labelled clear of the top's
        label = f'<text x="4" y="{y(10 ** k) + 4:.1f}" font-size="11">{10 ** k:,}</text>' if y(10 ** k) - y(top) > 12 else ""
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(10 ** k):.1f}" y2="{y(10 ** k):.1f}" '
                     f'stroke="#e5e7eb"/>{label}')
    for j in range(columns):
        first, last = j * total // columns, max((j + 1) * total // columns - 1, j * total // columns)
        chunk = [a for a, _ in counts[first:last + 1]]
        span = f"iteration {first}" if first == last else f"iterations {first}-{last}"
        parts.append(f'<rect x="{left + j * step:.1f}" y="{y(max(chunk)):.1f}" width="{max(step - (step > 2), 0.8):.1f}" '
                     f'height="{height - 22 - y(max(chunk)):.1f}" fill="#0e7490"><title>{span}: {max(chunk):,} '
                     f'active at most, {min(chunk):,} at least</title></rect>')
    for n, i in enumerate(compactions):
        x = left + (i * columns / total) * step
        label = f'<text x="{x + 3:.1f}" y="12" font-size="11" fill="#dc2626">compact</text>' if n == 0 else ""
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top_pad - 4}" y2="{height - 22}" stroke="#dc2626" '
                     f'stroke-dasharray="4 3"><title>compacted at iteration {i}</title></line>{label}')
    parts.append(f'<text x="4" y="{y(top) + 4:.1f}" font-size="11">{top:,}</text>'
                 f'<text x="4" y="{height - 22}" font-size="11">0</text>'
                 f'<text x="{left}" y="{height - 4}" font-size="11">iteration 0</text>'
                 f'<text x="{width - 10}" y="{height - 4}" font-size="11" text-anchor="end">iteration {total - 1:,}</text>'
                 f'<line x1="{left}" x2="{width - 10}" y1="{height - 22}" y2="{height - 22}" stroke="#9ca3af"/>')
    caption = (f"active lanes per iteration (log scale), all {total:,} iterations"
               + (f", {total / columns:.3g} a bar (its highest count)" if columns < total else "")
               + (f"; {len(compactions)} compaction{'s' * (len(compactions) != 1)} in red" if compactions else "")
               + ("; the first entry of the loop" if first_only else ""))
    return (f'<figure style="margin:0"><svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'role="img" aria-label="{escape(caption)}">{"".join(parts)}</svg>'
            f'<figcaption class="note">{escape(caption)}</figcaption></figure>')
