"""`vectorizer explain` / `VectorizedFunction.explain`: the source annotated with what the compiler did.

The annotations are checked on a function with a batched `if`, a uniform `if`, a `while` loop
whose trip count differs per lane, a division (a check) and an exactly computed power; the
profile's active-lane counts against trip counts derived from the scalar function itself; a
refused function's reasons with their lines; the CLI in a real subprocess; the HTML report in a
real headless Chromium (a screenshot that is not blank, and the DOM with the annotated lines).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import shutil
import struct
import subprocess
import sys
import textwrap
import zlib
from html import escape as html_escape
from pathlib import Path

import numpy as np
import pytest

from vectorizer import vectorize
from vectorizer.backends.numba import jit
from vectorizer.faces.explain import build, render_text

SOURCE = textwrap.dedent('''\
    import math


    def demo(x: float, y: float, n: int = 5) -> float:
        scale = 2.0
        if n > 3:
            scale = 3.0
        if x > 0.0:
            r = x / y
        else:
            r = -x
        k = 0
        while r > 1.0:
            r = r / scale
            k += 1
        v = math.exp(r) ** 2
        if v > 10.0:
            k += 1
        return r + k


    def helper(a: float) -> float:
        return math.sqrt(a)


    def caller(x: float) -> float:
        for i in range(3):
            x = x - 1.0
        return helper(x)


    def refused(x: float) -> float:
        with open("f") as fh:
            x = x + len(fh.read())
        try:
            return 1.0 / x
        finally:
            x = 0.0
    ''')
LINES = {text.strip(): i + 1 for i, text in enumerate(SOURCE.splitlines())}


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "explained.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("explained_for_test", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def _tags(expl, text: str) -> list[str]:
    return next(line.tags for line in expl.lines if line.number == LINES[text])


def test_annotations_batched_uniform_loop_check_exact(module):
    rng = np.random.default_rng(1)
    x, y = rng.uniform(-50, 50, 3000), rng.uniform(0.5, 3.0, 3000)
    # exact=False: NumPy's functions, but CPython's where a value decides something (tagged `exact`)
    expl = build(vectorize(module.demo, exact=False), (x, y, 5))  # n a scalar: uniform
    assert expl.status == "vectorized"
    assert "if" in _tags(expl, "if n > 3:") and "mask" not in _tags(expl, "if n > 3:")
    assert "mask" in _tags(expl, "if x > 0.0:")
    assert "mloop" in _tags(expl, "while r > 1.0:")
    assert "compact" in _tags(expl, "while r > 1.0:")
    assert "chk" in _tags(expl, "r = x / y") and "chk" not in _tags(expl, "r = -x")
    assert "exact" in _tags(expl, "v = math.exp(r) ** 2")
    assert _tags(expl, "scale = 2.0") == ["U"] and _tags(expl, "r = -x") == ["B"]
    notes = " ".join(n for line in expl.lines for n in line.notes)
    assert "(y == 0)" in notes and "ZeroDivisionError" in notes
    assert f"`if v > 10.0` (line {LINES['if v > 10.0:']})" in notes
    # The profile: active lanes per iteration are the lanes whose scalar trip count is larger.
    trips = []
    for xi, yi in zip(x.tolist(), y.tolist()):
        r, k = (xi / yi if xi > 0.0 else -xi), 0
        while r > 1.0:
            r, k = r / 3.0, k + 1
        trips.append(k)
    counts = [active for active, _ in expl.profile.loops[LINES["while r > 1.0:"]][0]]
    assert counts == [sum(t > i for t in trips) for i in range(max(trips))]
    # Compaction points: where the runtime's rule (2048+ lanes carried, at most half active) fires.
    size, expected = 3000, []
    for i, active in enumerate(counts):
        if size >= 2048 and active <= 0.5 * size:
            expected.append((0, i))
            size = active
    assert expected and expl.profile.compactions[LINES["while r > 1.0:"]] == expected
    assert expl.profile.flagged == 0 and expl.profile.lanes == 3000
    assert expl.profile.line_seconds[LINES["r = r / scale"]] > 0
    # The default, exact=True: every transcendental value is CPython's; the route and why
    default = build(vectorize(module.demo), (x, y, 5))
    line = next(v for v in default.lines if v.text.strip() == "v = math.exp(r) ** 2")
    assert "exact" in line.tags and any("exact=True" in n for n in line.notes), line.notes
    route = next(n for n in default.notes if n.startswith("route: "))
    assert route.startswith("route: numba (Numba lane kernel" if jit.available() else "route: numpy (Numba is not"), route


def test_annotations_from_annotations_make_every_if_a_mask(module):
    expl = build(vectorize(module.demo))  # no sample: every argument batched, no profile
    assert "mask" in _tags(expl, "if n > 3:") and expl.profile is None
    assert _tags(expl, "scale = 3.0") == ["B"]


def test_uniform_loop_and_a_check_inside_an_inlined_callee(module):
    expl = build(vectorize(module.caller))
    assert "loop" in _tags(expl, "for i in range(3):") and "mloop" not in _tags(expl, "for i in range(3):")
    assert "chk" in _tags(expl, "return helper(x)")
    notes = next(line.notes for line in expl.lines if line.number == LINES["return helper(x)"])
    assert any("called function helper" in n and "`x < 0`" in n for n in notes)


def test_text_report_margin_and_colour(module):
    vf = vectorize(module.demo)
    text = vf.explain()
    row = next(line for line in text.splitlines() if line.endswith("|         r = x / y"))
    assert row.split()[:3] == [str(LINES["r = x / y"]), "B", "chk"]
    assert "\033[" not in text  # colour only when asked (the CLI asks on a terminal)
    assert "\033[31mchk\033[0m" in render_text(build(vf), color=True)


def test_refused_function_lists_every_reason_with_its_line(module):
    vf = vectorize(module.refused)
    text = vf.explain(np.array([1.0, 0.0]))
    expl = build(vf, (np.array([1.0, 0.0]),))
    assert expl.status == "falls back"
    assert "ERR" in _tags(expl, "try:") and "ERR" in _tags(expl, 'with open("f") as fh:')
    assert [p.split(": ")[0] for p in expl.problems] == [f"{module.__file__}:{LINES[t]}:5" for t in ('with open("f") as fh:', "try:")]
    assert all("VEC-SYNTAX" in p and "hint:" in p for p in expl.problems)
    assert "why it is not vectorized (2):" in text and "'try' with 'finally' is not supported" in text


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), env.get("PYTHONPATH", "")])
    env.pop("FORCE_COLOR", None)
    return env


def test_cli_in_a_subprocess(tmp_path):
    (tmp_path / "explained.py").write_text(SOURCE)
    cmd = [sys.executable, "-m", "vectorizer", "explain", "explained.py::demo"]
    done = subprocess.run([*cmd, "--sample", "3000", "--range", "x=-50:50", "--uniform", "n=2"],
                          capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=300)
    assert done.returncode == 0, done.stderr
    rows = {line.split("|", 1)[1]: line.split("|", 1)[0].split() for line in done.stdout.splitlines() if "|" in line}
    assert rows["     if n > 3:"][1] == "if" and rows["     if x > 0.0:"][1] == "mask"
    assert rows["         r = x / y"][1:3] == ["B", "chk"]
    assert "sample call: 3000 lanes" in done.stdout and "loop at line 13" in done.stdout
    assert "\033[" not in done.stdout  # not a terminal: no colour
    refused = subprocess.run([*cmd[:-1], "explained.py::refused"], capture_output=True, text=True, cwd=tmp_path,
                             env=_env(), timeout=300)
    assert refused.returncode == 0 and "VEC-SYNTAX" in refused.stdout and f"explained.py:{LINES['try:']}:" in refused.stdout
    coloured = subprocess.run([*cmd, "--color", "always"], capture_output=True, text=True, cwd=tmp_path, env=_env(),
                              timeout=300)
    assert coloured.returncode == 0 and "\033[31mchk\033[0m" in coloured.stdout
    for bad, code in (("explained.py", 2), ("missing.py::demo", 2), ("explained.py::nothing", 1)):
        done = subprocess.run([*cmd[:-1], bad], capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=300)
        assert done.returncode == code, (bad, done.stderr)


def test_html_is_one_self_contained_page(module, tmp_path):
    report = tmp_path / "r.html"
    text = vectorize(module.refused).explain(html=report)
    html = report.read_text()
    assert "<script" not in html and "<link" not in html and "src=" not in html and "url(" not in html
    assert "why it is not vectorized (2)" in text and "Why it is not vectorized (2)" in html
    assert html.count('<td class="code">') == len(inspect.getsource(module.refused).splitlines())


# -- the HTML report in a real browser -------------------------------------------------------------
def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI") or os.environ.get("VECTORIZER_REQUIRE_CHROMIUM"):  # .ci/run sets the latter
            pytest.fail("chromium is not installed, under CI: .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium); CI installs it")
    return found


def _png_pixels(data: bytes) -> tuple[int, int, np.ndarray]:
    """Width, height and the RGB(A) pixels of an 8-bit non-interlaced PNG (stdlib zlib, the five filters)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0 and color in (2, 6)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    out = np.zeros((height, stride), dtype=np.int64)
    prev = np.zeros(stride, dtype=np.int64)
    for row in range(height):
        kind, line = raw[row * (stride + 1)], np.frombuffer(raw, np.uint8, stride, row * (stride + 1) + 1).astype(np.int64)
        cur = np.zeros(stride, dtype=np.int64)
        if kind in (0, 2):
            cur = (line + (prev if kind == 2 else 0)) % 256
        else:  # Sub, Average, Paeth depend on the pixel to the left: byte by byte
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                if kind == 1:
                    pred = a
                elif kind == 3:
                    pred = (a + b) // 2
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[i] = (line[i] + pred) % 256
        out[row], prev = cur, cur
    return width, height, out.reshape(height, width, bpp)


def test_html_report_renders_in_headless_chromium(module, tmp_path):
    chromium = _chromium()
    rng = np.random.default_rng(2)
    report = tmp_path / "report.html"
    vectorize(module.demo).explain(rng.uniform(-50, 50, 4000), rng.uniform(0.5, 3.0, 4000), 5, html=report)
    html = report.read_text()
    assert "<script" not in html and "http" not in html.replace("http://www.w3.org/2000/svg", "")  # self-contained
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "shot.png"
    subprocess.run([chromium, *flags, f"--screenshot={shot}", "--window-size=1200,900", report.as_uri()],
                   capture_output=True, timeout=120, check=True)
    width, height, pixels = _png_pixels(shot.read_bytes())
    assert (width, height) == (1200, 900)
    gray = pixels[..., :3].mean(axis=2)
    assert gray.std() > 10 and (gray < 128).mean() > 0.005  # text and tags drawn, not a blank page
    dom = subprocess.run([chromium, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    for text in ("if x > 0.0:", "r = x / y", "while r > 1.0:", "v = math.exp(r) ** 2"):
        assert f'<td class="code">{html_escape(SOURCE.splitlines()[LINES[text] - 1], quote=False)}</td>' in dom
    assert "(y == 0)" in dom and "Loop at line 13" in dom and ">compact</text>" in dom
