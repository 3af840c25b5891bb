"""The pass lists' contract (passes/order.py): checked at import, true of the code it describes,
and broken by swapping two passes whose order the pipeline depends on."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest

from vectorizer import pipeline
from vectorizer.passes.base import Context
from vectorizer.passes.order import ARRAY_AST, TREE, Pass, PassOrderError, check_order

LISTS = {"NUMPY_PASSES": pipeline.NUMPY_PASSES, "LANE_PASSES": pipeline.LANE_PASSES,
         "JAX_PASSES": pipeline.JAX_PASSES}
FIELDS = {f.name for f in dataclasses.fields(Context)}
# Fields a pass fills for later ones; the rest are set by the driver when it makes the Context.
PASS_WRITTEN = set().union(*(p.writes for passes in LISTS.values() for p in passes))
MUTATORS = {"add", "update", "append", "extend", "setdefault", "pop", "clear", "discard", "remove"}
ANALYZE_READS = {"loop_masks", "predicated"}  # what Context.analyze hands the analysis


def _swapped(passes: list[Pass], a: str, b: str) -> list[Pass]:
    names = [p.name for p in passes]
    i, j = names.index(a), names.index(b)
    out = list(passes)
    out[i], out[j] = out[j], out[i]
    return out


def test_the_pipelines_lists_keep_their_contract():
    for label, passes in LISTS.items():
        check_order(label, passes)
    assert PASS_WRITTEN == {"loop_masks", "predicated", "branch_lanes", "constants", "loop_vars", "flag"}


@pytest.mark.parametrize("a, b, says", [
    ("while_to_masked", "if_to_select", "reads ctx.loop_masks before 'while_to_masked' writes it"),
    ("select_chains", "if_to_select", "'select_chains' must run before 'if_to_select'"),
    ("share_branch_math", "if_to_select", "must run before 'if_to_select', which comes first"),
    ("ops_to_numpy", "compact_loops", "'compact_loops' takes array ast, but the code is tree"),
    ("merge_checks", "vector_math", "'merge_checks' must run before 'vector_math'"),
    ("select_to_fmax", "merge_checks", "'select_to_fmax' must run before 'merge_checks'"),
    ("for_to_while", "break_continue", "'for_to_while' must run before 'break_continue'"),
    ("annotate_origins", "canonicalize", "'annotate_origins' must run before 'cut_recursion'"),
])
def test_swapping_two_passes_fails_the_check(a, b, says):
    with pytest.raises(PassOrderError) as info:
        check_order("NUMPY_PASSES", _swapped(pipeline.NUMPY_PASSES, a, b))
    assert says in str(info.value), str(info.value)


def test_a_lane_pass_after_the_lowering_to_the_array_ast_is_refused():
    passes = [*pipeline.NUMPY_PASSES, pipeline.LANE_PASSES[-1]]
    with pytest.raises(PassOrderError, match="'if_convert_lanes' takes lanes, but the code is array ast"):
        check_order("mixed", passes)


def _files(p: Pass) -> list[Path]:
    """The source files of a pass: its module, or every module of its package."""
    module = sys.modules[p.run.__module__]
    path = Path(module.__file__)
    return sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]


def _context_uses(files: list[Path]) -> tuple[set[str], set[str], bool]:
    """(fields loaded, fields stored or mutated, calls ctx.analyze) over `files`, where the
    context is a name `ctx` or an attribute `.ctx` (a pass's visitor keeps it as self.ctx)."""
    loads, stores, analyzes = set(), set(), False
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr in FIELDS | {"analyze"}):
                continue
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id == "ctx" or isinstance(owner, ast.Attribute) and owner.attr == "ctx"):
                continue
            if node.attr == "analyze":
                analyzes = True
                continue
            up = parents.get(node)
            mutated = isinstance(node.ctx, ast.Store) \
                or isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Store) \
                or isinstance(up, ast.Attribute) and up.attr in MUTATORS and isinstance(parents.get(up), ast.Call)
            (stores if mutated else loads).add(node.attr)
    return loads, stores, analyzes


@pytest.mark.parametrize("p", sorted({p.name: p for ps in LISTS.values() for p in ps}.values(), key=lambda p: p.name),
                         ids=lambda p: p.name)
def test_each_pass_declares_what_its_code_reads_and_writes(p):
    loads, stores, analyzes = _context_uses(_files(p))
    assert stores & FIELDS == p.writes, f"{p.name} writes ctx.{sorted(stores)}, declares {sorted(p.writes)}"
    undeclared = (loads & PASS_WRITTEN) - p.needs - p.writes
    assert not undeclared, f"{p.name} reads ctx.{sorted(undeclared)}, which another pass writes: declare it in needs"
    unused = p.needs - loads - (ANALYZE_READS if analyzes else set())
    assert not unused, f"{p.name} declares needs {sorted(unused)} its code never reads"


def test_the_scan_sees_a_context_field_touched_by_a_pass(tmp_path):
    """The checker itself: stores, mutations and loads through `ctx` and `self.ctx` are told apart."""
    src = tmp_path / "fake_pass.py"
    src.write_text("def transform(func, ctx):\n"
                   "    ctx.flag = 'f'\n"
                   "    self.ctx.loop_vars['m'] = []\n"
                   "    ctx.loop_masks.add('m')\n"
                   "    if ctx.predicated:\n"
                   "        return ctx.analyze(func)\n")
    loads, stores, analyzes = _context_uses([src])
    assert stores == {"flag", "loop_vars", "loop_masks"} and loads == {"predicated"} and analyzes


def test_a_pass_that_hides_a_field_it_writes_is_caught(monkeypatch):
    """Declarations are checked against the code: dropping ops_to_numpy's `writes` fails."""
    real = next(p for p in pipeline.NUMPY_PASSES if p.name == "ops_to_numpy")
    hidden = dataclasses.replace(real, writes=frozenset())
    with pytest.raises(AssertionError, match="ops_to_numpy writes ctx"):
        test_each_pass_declares_what_its_code_reads_and_writes(hidden)
    assert real.takes == TREE and real.gives == ARRAY_AST


def _halve_or_negate(x: float) -> float:
    if x > 0:
        return x / 2.0
    return -x


@pytest.mark.parametrize("backend, passes", [("numpy", "NUMPY_PASSES"), ("numba", "LANE_PASSES")])
def test_an_unexpected_exception_in_a_pass_is_one_internal_error_naming_the_pass(monkeypatch, tmp_path, backend,
                                                                               passes):
    """Any exception a pass did not mean (here an injected KeyError) is a VEC-BUG InternalError that
    names the pass and the function, raised from the original; the default fallback runs the loop."""
    import numpy as np

    from vectorizer import FallbackWarning, VectorizeError, vectorize
    from vectorizer.errors import InternalError

    pass_list = getattr(pipeline, passes)
    index = [p.name for p in pass_list].index("canonicalize")

    def broken(code, ctx):
        raise KeyError("injected")

    monkeypatch.setenv("VECTORIZER_CACHE_DIR", str(tmp_path))  # generated now, not loaded from a cache
    patched = list(pass_list)
    patched[index] = dataclasses.replace(pass_list[index], run=broken)
    monkeypatch.setattr(pipeline, passes, patched)
    x = np.array([3.0, -1.0, 0.0, -0.0, np.nan])
    with pytest.raises(InternalError) as info:
        vectorize(_halve_or_negate, backend=backend, fallback="error")(x)
    message = str(info.value)
    assert isinstance(info.value, VectorizeError) and info.value.code == "VEC-BUG", message
    assert "in pass 'canonicalize'" in message and "_halve_or_negate" in message and "KeyError" in message, message
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.warns(FallbackWarning, match="in pass 'canonicalize'"):
        got = vectorize(_halve_or_negate, backend=backend)(x)
    assert got.tobytes() == np.array([_halve_or_negate(v) for v in x.tolist()]).tobytes()
