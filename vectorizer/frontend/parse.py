"""Parse a function's source with libcst, strip its decorators, and keep positions for errors
(resolved when an error first needs them) and each statement's line (for origin comments)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..errors import SourceLocation, UnsupportedSyntaxError, VectorizeError
from .lines import statement_lines
from .source import FunctionSource


@dataclass(frozen=True)
class ParsedFunction:
    """A function definition ready for the fence and the passes."""

    source: FunctionSource
    func: cst.FunctionDef  # decorators stripped
    module: cst.Module  # as parsed: `func` is its FunctionDef without the decorators
    lines: Mapping[cst.CSTNode, int] | None  # statement -> first line (of source.text), if mapped
    # (parameters, refusal) when the code was decided for number lanes to get past `refusal`
    # (frontend/prepare.py): a call giving any of those parameters another value gets the refusal
    numbers_only: tuple[frozenset[str], Exception] | None = None

    @functools.cached_property
    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Each parsed node's range in source.text (libcst re-prints the module to find them)."""
        positions = dict(MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider))
        original = next(s for s in self.module.body if isinstance(s, cst.FunctionDef))
        positions[self.func] = positions[original]  # a new node over the parsed children
        return positions

    def line_of(self, node: cst.CSTNode) -> int | None:
        """The line of statement `node` in source.text, or None for statements the passes created."""
        if self.lines is not None:
            return self.lines.get(node)
        rng = self.positions.get(node)
        return rng.start.line if rng is not None else None

    @property
    def name(self) -> str:
        return self.func.name.value

    def location(self, node: cst.CSTNode) -> SourceLocation | None:
        """Where `node` is in the user's file, or None for nodes the passes created."""
        rng = self.positions.get(node)
        if rng is None:
            return None
        src = self.source
        line = src.first_line + rng.start.line - 1
        col = src.indent + rng.start.column + 1
        end = src.indent + rng.end.column + 1 if rng.end.line == rng.start.line else None
        return SourceLocation(src.filename, line, col, end, src.file_line(rng.start.line))


def parse_function(source: FunctionSource) -> ParsedFunction:
    """Parse `source`, which must hold exactly one (possibly decorated) function definition."""
    try:
        module = cst.parse_module(source.text)
    except cst.ParserSyntaxError as exc:
        line = source.first_line + exc.raw_line - 1
        loc = SourceLocation(
            source.filename, line, source.indent + exc.raw_column + 1, None,
            source.file_line(exc.raw_line),
        )
        raise VectorizeError(f"syntax error: {exc.message}", loc, code="VEC-PARSE") from None
    defs = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    if len(defs) != 1:
        raise UnsupportedSyntaxError(
            f"expected one function definition in the source of {source.qualname!r}, found {len(defs)}",
            SourceLocation(source.filename, source.first_line, 1),
            hint="vectorize a function defined with 'def'",
        )
    return ParsedFunction(source, defs[0].with_changes(decorators=()), module, statement_lines(module, source.text))
