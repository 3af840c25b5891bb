"""Parse a function's source with libcst, strip its decorators, and keep positions for errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from ..errors import SourceLocation, UnsupportedSyntaxError, VectorizeError
from .source import FunctionSource


@dataclass(frozen=True)
class ParsedFunction:
    """A function definition ready for the fence and the passes."""

    source: FunctionSource
    func: cst.FunctionDef  # decorators stripped
    positions: Mapping[cst.CSTNode, CodeRange]

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
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    defs = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    if len(defs) != 1:
        raise UnsupportedSyntaxError(
            f"expected one function definition in the source of {source.qualname!r}, found {len(defs)}",
            SourceLocation(source.filename, source.first_line, 1),
            hint="vectorize a function defined with 'def'",
        )
    func = defs[0].with_changes(decorators=())
    # The stripped node is new; its children are the parsed ones, so map it like the original.
    positions = dict(positions)
    positions[func] = positions[defs[0]]
    return ParsedFunction(source, func, positions)
