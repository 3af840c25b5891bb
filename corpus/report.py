"""The corpus tables: results (one record per function) to JSON and Markdown."""

from __future__ import annotations

import collections
import keyword
import re
import statistics

CLASSES = ("CORRECT", "UNSUPPORTED", "WRONG", "CRASH")


def clean(detail: str) -> str:
    """A detail without this machine's paths (an installed file is named from site-packages on)."""
    return re.sub(r"/\S*/site-packages/", "", detail or "")


def _blank(match: re.Match) -> str:
    inner = match.group(0)[1:-1]  # keep Python's own words ('is not', 'try', '**kwargs'), blank names
    keep = inner.startswith("*") or all(keyword.iskeyword(w) for w in inner.split())
    return match.group(0) if keep else "'…'"


def reason_group(detail: str) -> str:
    """An UNSUPPORTED reason without the exception's class and with the user's names blanked, so
    one construct groups across functions."""
    text = re.sub(r"^\w+: ", "", clean(detail))
    text = re.sub(r"'[^']*'", _blank, text)
    text = re.sub(r"\b\d+(\.\d+)?\b", "N", text)
    return text[:140]


def summarize(records: list[dict], backend: str, key=None) -> dict[str, dict]:
    groups: dict[str, list[dict]] = collections.defaultdict(list)
    for r in records:
        if backend in r.get("backends", {}):
            groups[key(r) if key else "all"].append(r["backends"][backend])
    out = {}
    for name, verdicts in groups.items():
        counts = collections.Counter(v["cls"] for v in verdicts)
        speed = [v["speedup"] for v in verdicts if v["cls"] == "CORRECT" and v.get("speedup")]
        out[name] = {"functions": len(verdicts), **{c: counts.get(c, 0) for c in CLASSES},
                     "correct_pct": round(100 * counts.get("CORRECT", 0) / len(verdicts), 1),
                     "median_speedup": round(statistics.median(speed), 1) if speed else None,
                     "slower_than_loop": sum(s < 1 for s in speed)}
    return out


def top_reasons(records: list[dict], backend: str, n: int = 12) -> list[tuple[str, int]]:
    counter = collections.Counter(reason_group(r["backends"][backend]["detail"]) for r in records
                                  if r.get("backends", {}).get(backend, {}).get("cls") == "UNSUPPORTED")
    return counter.most_common(n)


def _fmt(x) -> str:
    return "–" if x is None else (f"{x:.1f}x" if isinstance(x, float) else str(x))


def fallback_rows(records: list[dict], backend: str) -> list[tuple[str, str, dict]]:
    """(function id, reason, fallback record) per UNSUPPORTED function on `backend`."""
    return [(r["id"], r["backends"][backend]["detail"], r["backends"][backend].get("fallback") or {})
            for r in records if r.get("backends", {}).get(backend, {}).get("cls") == "UNSUPPORTED"]


def fallback_summary(records: list[dict], backend: str) -> dict:
    ratios = [fb["ratio"] for _, _, fb in fallback_rows(records, backend) if "ratio" in fb]
    return {"measured": len(ratios), "median": round(statistics.median(ratios), 1) if ratios else None,
            "max": round(max(ratios), 1) if ratios else None, "over_1.2": sum(x > 1.2 for x in ratios)}


def _fallback_section(records: list[dict], meta: dict) -> list[str]:
    lines = ["", "## Fallback ratio of the UNSUPPORTED functions", "",
             "`vectorize(f)` with the default `fallback=\"warn\"` (element by element) against the loop a user "
             "would write instead, `[f(*t) for t in zip(*[np.broadcast_to(a, shape).ravel().tolist() ...])]`, "
             f"on the function's first non-raising lanes (a tenth of its lanes, at most {meta.get('fallback_lanes', '?')}): the median of 3 "
             "interleaved runs each after a warm-up call (first call: its own time, decoration included). "
             "1.0 is loop speed; issue 51's target is at most 1.2.", "",
             "| backend | UNSUPPORTED | measured | median ratio | max ratio | over 1.2 |", "|---|---|---|---|---|---|"]
    for b in meta["backends"]:
        s = fallback_summary(records, b)
        lines.append(f"| {b} | {len(fallback_rows(records, b))} | {s['measured']} | {_fmt(s['median'])} | {_fmt(s['max'])} | {s['over_1.2']} |")
    for b in meta["backends"]:
        lines += ["", f"### UNSUPPORTED on {b}", "",
                  "| function | reason | fallback ratio | lanes | fallback s | loop s | first call s |",
                  "|---|---|---|---|---|---|---|"]
        for fid, detail, fb in fallback_rows(records, b):
            reason = clean(detail).replace("|", "/").replace("\n", " ")[:160]
            if "ratio" in fb:
                cells = (f"{fb['ratio']:.1f}x | {fb['lanes']} | {fb['fallback_seconds']:.3g} | {fb['loop_seconds']:.3g} "
                         f"| {fb['first_call_seconds']:.3g}")
            else:
                cells = f"not measured: {clean(fb.get('error', 'no lane returns a number')).replace('|', '/')[:80]} | – | – | – | –"
            lines.append(f"| `{fid}` | {reason} | {cells} |")
    return lines


def excluded_markdown(chosen: list[dict], excluded: list[dict], rule: str | None) -> str:
    """corpus/second/excluded.md: the rule, then every excluded package, module and candidate."""
    counts = collections.Counter(e["package"] for e in excluded)
    taken = collections.Counter(e["package"] for e in chosen)
    lines = ["# Second corpus: the rule, and every candidate it excludes", "",
             "Made by `python scripts/corpus.py --corpus second select` (corpus/second/selection.py).", "",
             "## The rule", "", (rule or "").strip(), "",
             f"{len(chosen)} functions selected, {len(excluded)} excluded entries (packages, modules and functions).", "",
             "| package | selected | excluded |", "|---|---|---|"]
    lines += [f"| {p} | {taken.get(p, 0)} | {counts.get(p, 0)} |" for p in sorted(set(counts) | set(taken))]
    by_reason = collections.Counter(re.sub(r"'[^']*'", "'…'", e["reason"]).split(";")[0][:90] for e in excluded)
    lines += ["", "## Reasons, most common first", "", "| entries | reason (names blanked) |", "|---|---|"]
    lines += [f"| {k} | {r.replace('|', '/')} |" for r, k in by_reason.most_common()]
    lines += ["", "## Every excluded entry", "", "| package | what | reason |", "|---|---|---|"]
    lines += [f"| {e['package']} | `{e['what']}` | {clean(e['reason']).replace('|', '/').replace(chr(10), ' ')[:200]} |" for e in excluded]
    return "\n".join(lines) + "\n"


def markdown(records: list[dict], meta: dict) -> str:
    backends = meta["backends"]
    packages = {r["package"] for r in records}
    stdlib = " and the standard library" if "stdlib" in packages else ""
    title = "Second corpus (issue 51)" if meta.get("corpus") == "second" else "Real-code corpus"
    command = "python scripts/corpus.py --corpus second run" if meta.get("corpus") == "second" else "python scripts/corpus.py run"
    lines = [f"# {title}: results", "",
             f"{len(records)} functions from {len(packages - {'stdlib'})} third-party packages"
             f"{stdlib}; {meta['lanes']} lanes a function; made by `{command}` "
             f"({meta['date']}, vectorizer at {meta['commit']}); a function whose loop over that many would take "
             f"more than {meta.get('loop_budget', 'the time limit of')} s (timed on 1000 lanes) is measured on fewer, "
             "as its row says.", "",
             *([meta["note"], ""] if meta.get("note") else []),
             "Machine: " + meta["machine"] + ". The machine was shared with other engineers' tests while "
             "measured: the classes (CORRECT, UNSUPPORTED, WRONG, CRASH) do not depend on that; the timings "
             "(speed-ups, fallback ratios) are noisy.", "",
             "Each function's lanes are typical values with a hostile one (NaN, ±inf, -0.0, 0, ±1e308, "
             "-1, subnormal; ints near 2**63) in one argument of every 97th lane. The oracle is the "
             "function itself on each lane's Python numbers. CORRECT: on the lanes where the oracle "
             "returns numbers, every value equal (ints and bools identical, floats bit-identical or both "
             "NaN; on the NumPy backend a function reaching the C library's transcendental functions or "
             "`**` may differ by the documented 5 ulp, or by what moving those results 5 ulp makes of "
             "the function's value), and on all lanes the exception type of the first raising lane. "
             "UNSUPPORTED: a VectorizeError at decoration or first call (or, on numba, Numba could not "
             "compile and NumPy ran). WRONG: values or exceptions differ. CRASH: any other exception. "
             "Speed-up: the Python loop over the non-raising lanes, divided by the median of 3 batched "
             "calls after a warm-up call (compilation excluded).", "",
             "## Summary per backend", "",
             "| backend | functions | CORRECT | UNSUPPORTED | WRONG | CRASH | % CORRECT | median speed-up | CORRECT slower than loop |",
             "|---|---|---|---|---|---|---|---|---|"]
    for b in backends:
        s = summarize(records, b).get("all")
        if s:
            lines.append(f"| {b} | {s['functions']} | {s['CORRECT']} | {s['UNSUPPORTED']} | {s['WRONG']} | {s['CRASH']} "
                         f"| {s['correct_pct']}% | {_fmt(s['median_speedup'])} | {s['slower_than_loop']} |")
    lines += ["", "## Per package", "",
              "| package | version | functions | " + " | ".join(f"{b}: C/U/W/X | {b}: % | {b}: median" for b in backends) + " |",
              "|---|---|---|" + "---|---|---|" * len(backends)]
    per = {b: summarize(records, b, key=lambda r: r["package"]) for b in backends}
    for pkg in sorted({r["package"] for r in records}):
        cells = []
        for b in backends:
            s = per[b].get(pkg)
            cells.append("– | – | –" if s is None else
                         f"{s['CORRECT']}/{s['UNSUPPORTED']}/{s['WRONG']}/{s['CRASH']} | {s['correct_pct']}% | {_fmt(s['median_speedup'])}")
        n = sum(r["package"] == pkg for r in records)
        field = next((f" ({r['field']})" for r in records if r["package"] == pkg and r.get("field")), "")
        lines.append(f"| {pkg}{field} | {meta['versions'].get(pkg, '–')} | {n} | " + " | ".join(cells) + " |")
    for b in backends:
        lines += ["", f"## Most common UNSUPPORTED reasons ({b})", "", "| functions | reason (names blanked) |", "|---|---|"]
        lines += [f"| {k} | {reason.replace('|', '/')} |" for reason, k in top_reasons(records, b)]
    lines += _fallback_section(records, meta)
    lines += ["", "## Per function", "",
              "Class, speed-up over the Python loop (CORRECT only), and the first line of the reason.", "",
              "| function | lanes raising | " + " | ".join(f"{b} | {b} speed-up | {b} detail" for b in backends) + " |",
              "|---|---|" + "---|---|---|" * len(backends)]
    for r in records:
        cells = []
        for b in backends:
            v = r.get("backends", {}).get(b, {"cls": "–", "detail": r.get("error", "")})
            detail = clean(v.get("detail") or "").replace("|", "/").replace("\n", " ")[:110]
            cells.append(f"{v['cls']} | {_fmt(v.get('speedup'))} | {detail}")
        lanes = f" ({r['lanes']} lanes)" if r.get("lanes") not in (None, meta["lanes"]) else ""
        lines.append(f"| `{r['id']}`{lanes} | {r.get('raising_lanes', '–')} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
