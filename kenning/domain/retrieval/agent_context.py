"""Agent context: what an agent should know for a query, in sections keyed by info type.

- ``user_profile``: the entity's properties, then the entity's outgoing edges;
- every piece found for the query goes to the section of its own info type (pieces with
  none go to ``context``);
- the entity's other (incoming) edges go to ``context``.

Sections come in a fixed order (``user_profile``, ``instructions``, ``context``,
``skills``, then any other info type alphabetically); inside a section pieces are ordered
by score (highest first) then chunk id, edges by type then other end, properties by name,
so the same data always yields the same text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.errors import ValidationError
from kenning.domain.graph.model import Direction, EdgeView, GraphReader, NodeView
from kenning.domain.retrieval.search import (
    ChunkIndex,
    SearchConfig,
    SearchHit,
    SearchMode,
    SearchRequest,
    search,
)

SECTION_ORDER = ("user_profile", "instructions", "context", "skills")
MAX_LIMIT = 50
ENTITY_EDGES = 50
_HIDDEN_PROPERTIES = frozenset({"key", "type", "client", "project", "group"})


@dataclass(frozen=True, slots=True)
class ContextLine:
    """One line of a section and where it came from."""

    text: str
    chunk_ids: tuple[str, ...] = ()
    score: float | None = None


@dataclass(frozen=True, slots=True)
class ContextSection:
    """The lines of one info type, and their text."""

    info_type: str
    lines: tuple[ContextLine, ...]

    @property
    def text(self) -> str:
        """The section as prompt text."""
        return f"## {self.info_type}\n" + "\n".join(f"- {line.text}" for line in self.lines)


@dataclass(frozen=True, slots=True)
class AgentContext:
    """The entity (if visible) and the sections."""

    entity: NodeView | None
    sections: tuple[ContextSection, ...]

    @property
    def text(self) -> str:
        """All sections as one prompt-ready text."""
        return "\n\n".join(section.text for section in self.sections)


async def agent_context(
    query: str,
    *,
    entity: NodeView | None,
    limit: int,
    reader: Scope,
    embedder: Embedder,
    index: ChunkIndex,
    graph: GraphReader,
    config: SearchConfig | None = None,
) -> AgentContext:
    """Gather the pieces for ``query`` and the entity's profile and edges, then format."""
    if not query.strip():
        raise ValidationError("query is empty", field="query")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be 1..{MAX_LIMIT}", field="limit")
    hits = await search(
        SearchRequest(query=query, mode=SearchMode.HYBRID, limit=limit),
        reader=reader,
        embedder=embedder,
        index=index,
        config=config,
    )
    edges: list[EdgeView] = []
    if entity is not None:
        found = await graph.edges_of(reader, [entity.key], Direction.BOTH, None, ENTITY_EDGES)
        edges = found.get(entity.key, [])
    return AgentContext(entity, build_sections(entity, hits, edges))


def build_sections(
    entity: NodeView | None, hits: list[SearchHit], edges: list[EdgeView]
) -> tuple[ContextSection, ...]:
    """The deterministic sections for an entity, the search hits and the entity's edges."""
    lines: dict[str, list[ContextLine]] = {}
    if entity is not None:
        lines["user_profile"] = [
            ContextLine(f"{name}: {_value(value)}") for name, value in _profile(entity.properties)
        ]
    pieces = sorted(hits, key=lambda hit: (-hit.score, hit.chunk.id))
    for hit in pieces:
        section = hit.chunk.info_type or "context"
        text = " ".join(hit.chunk.content.split())
        lines.setdefault(section, []).append(
            ContextLine(text, (hit.chunk.id,), round(hit.score, 6))
        )
    if entity is not None:
        outgoing = sorted(
            (e for e in edges if e.from_key == entity.key), key=lambda e: (e.edge_type, e.to_key)
        )
        incoming = sorted(
            (e for e in edges if e.from_key != entity.key),
            key=lambda e: (e.edge_type, e.from_key),
        )
        for edge in outgoing:
            lines.setdefault("user_profile", []).append(
                ContextLine(f"{edge.edge_type} {edge.to_key}", edge.evidence_chunk_ids)
            )
        for edge in incoming:
            lines.setdefault("context", []).append(
                ContextLine(
                    f"{edge.from_key} {edge.edge_type} {edge.to_key}", edge.evidence_chunk_ids
                )
            )
    order = [s for s in SECTION_ORDER if lines.get(s)] + sorted(
        s for s in lines if s not in SECTION_ORDER and lines[s]
    )
    return tuple(ContextSection(s, tuple(lines[s])) for s in order)


def _profile(properties: Mapping[str, object]) -> list[tuple[str, object]]:
    return sorted((k, v) for k, v in properties.items() if k not in _HIDDEN_PROPERTIES)


def _value(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
