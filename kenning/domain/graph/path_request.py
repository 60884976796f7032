"""A path asked for by two keys as a caller types them: the request GraphQL's ``path`` and
the MCP tool ``find_path`` both answer with ``path_between``.

The keys are parsed (normalized, canonicalized; a bad one names its field) and resolved
through the reader's client's aliases before the search, and the depth and edge types are
checked first, so every face refuses the same input with the same error.

Example: ``await path_between(graph, reader, PathEnds("Task::T-1", "user:alice"), aliases,
max_depth=4)``.
"""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import (
    Direction,
    GraphReader,
    PathView,
    check_max_depth,
    edge_type_filter,
)
from kenning.domain.graph.traverse import shortest_path
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.ports import AliasResolver


@dataclass(frozen=True, slots=True)
class PathEnds:
    """The two keys as given, and the argument names an error about each one names."""

    source: str
    target: str
    source_field: str = "from"
    target_field: str = "to"


async def path_between(
    graph: GraphReader,
    reader: Scope,
    ends: PathEnds,
    aliases: AliasResolver,
    *,
    max_depth: int,
    direction: Direction = Direction.BOTH,
    edge_types: list[str] | None = None,
) -> PathView | None:
    """One shortest path of at most ``max_depth`` edges between the ends; ``None`` when
    there is none the reader may see."""
    check_max_depth(max_depth)
    types = edge_type_filter(edge_types)
    parsed = [
        parse_key(ends.source, field=ends.source_field).key,
        parse_key(ends.target, field=ends.target_field).key,
    ]
    source, target = await alias_resolved(reader.client_id, parsed, aliases)
    return await shortest_path(
        graph, reader, source, target, max_depth=max_depth, direction=direction, edge_types=types
    )
