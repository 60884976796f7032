"""``agent_context``: every memory layer an agent needs for one query, in one deterministic text.

Sections, in this order, each only when it has something to say:

1. ``rules``: every hard rule in force for the reader (client-wide, overridden by the
   project's), by key. Mandatory, so never cut by the budget and never mixed with soft memory.
2. ``user_profile``: the user entity's metadata (properties by name), what is known about the
   user (user knowledge, by category then subject), pieces of info type ``user_profile``, then
   the user entity's outgoing edges by (relation, target).
3. ``instructions``, ``context``, ``skills``, then any other info type alphabetically: the
   search hits routed by their own info type (none: ``context``), ranked by (-score, id). Edges
   of the other entities (and edges into the user) go to the info type of the first of their
   evidence chunks that has one, else to ``context``, by (relation, target, source);
   ``context`` opens with the other entities' metadata.
4. ``session``: the session's recent entries, newest first.
5. ``procedures``: the client's procedures whose trigger is the query or that are similar to
   it, best first.
6. ``history`` (only when asked, ``include_history``): what no longer holds, each line with
   its validity: the entities' ended edges, by (relation, target, source), then superseded
   search hits in rank order.

**Only what holds is stated as current.** Edges are the ones valid now (or at ``as_of``);
a hit whose chunk was superseded (every edge it is evidence for ended, or its source was
replaced) never enters the other sections: with ``include_history`` it goes to ``history``,
otherwise nowhere.

A per-section character budget cuts each section's lowest-ranked lines first and says so
(see ``kenning.domain.retrieval.agent_context``). The query is embedded once for the search and
the procedures together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from kenning.domain.access.project_groups import ProjectGroupStore
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.graph.chunk_view import ChunkReader, ChunkView
from kenning.domain.graph.model import Direction, EdgeView, GraphReader, NodeView
from kenning.domain.memory import context_lines as formats
from kenning.domain.memory import procedures, rules, session, user_knowledge
from kenning.domain.retrieval.agent_context import (
    AgentContext,
    ContextLine,
    ContextSection,
    OnceEmbedder,
    entity_line,
    fit,
    piece_line,
    property_lines,
    ranked_hits,
    section_order,
)
from kenning.domain.retrieval.search import (
    MAX_QUERY_LENGTH,
    ChunkIndex,
    SearchConfig,
    SearchHit,
    SearchMode,
    SearchRequest,
    search,
)

MAX_LIMIT: Final = 50
MAX_ENTITIES: Final = 20
ENTITY_EDGES: Final = 50
MIN_BUDGET: Final = 100
MAX_BUDGET: Final = 1_000_000
# Hits of these kinds are already in the profile, as user knowledge.
_KNOWLEDGE_KIND: Final = "user_knowledge_"


@dataclass(frozen=True, slots=True)
class MemoryPorts:
    """Every store the assembly reads, all confined to the reader's scope or client."""

    embedder: Embedder
    index: ChunkIndex
    graph: GraphReader
    chunks: ChunkReader
    knowledge: user_knowledge.UserKnowledgeReader
    session: session.SessionStore
    procedures: procedures.ProcedureStore
    rules: rules.RuleStore
    groups: ProjectGroupStore
    config: SearchConfig | None = None


@dataclass(slots=True)
class Found:
    """What the stores returned for one request, before it is formatted."""

    user: NodeView | None = None
    entities: list[NodeView] = field(default_factory=list)
    rules: list[rules.HardRule] = field(default_factory=list)
    knowledge: list[user_knowledge.KnowledgeItem] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)
    edges: list[EdgeView] = field(default_factory=list)
    evidence_types: dict[str, str] = field(default_factory=dict)
    session: list[session.SessionEntry] = field(default_factory=list)
    procedures: list[procedures.ProcedureMatch] = field(default_factory=list)
    ended: list[EdgeView] = field(default_factory=list)  # history only
    superseded: list[SearchHit] = field(default_factory=list)  # history only
    history: bool = False


@dataclass(frozen=True, slots=True)
class When:
    """What time the context answers for (None: now), and whether it lists what no longer
    holds in a ``history`` section."""

    as_of: datetime | None = None
    include_history: bool = False


def check_request(query: str, entity_count: int, limit: int, budget: int | None) -> None:
    """Raise a typed error naming the argument that is out of bounds."""
    if not query.strip():
        raise ValidationError("query is empty", field="query")
    if len(query) > MAX_QUERY_LENGTH:
        raise TooLargeError(f"query is longer than {MAX_QUERY_LENGTH} characters", field="query")
    if entity_count > MAX_ENTITIES:
        raise TooLargeError(f"at most {MAX_ENTITIES} entityKeys", field="entityKeys")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be 1..{MAX_LIMIT}", field="limit")
    if budget is not None and not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ValidationError(f"budget must be {MIN_BUDGET}..{MAX_BUDGET}", field="budget")


async def agent_context(
    query: str,
    *,
    user: NodeView | None,
    entities: Sequence[NodeView] = (),
    limit: int = 10,
    budget: int | None = None,
    reader: Scope,
    now: datetime,
    ports: MemoryPorts,
    when: When | None = None,
    user_key: str | None = None,
) -> AgentContext:
    """Read every layer for ``query``, the user entity and the other entities, then format.

    The memory items are ``user_key``'s and the shared ones (``user``'s key when None: a
    user named by key has memory before the graph has a node for them)."""
    check_request(query, len(entities), limit, budget)
    whose = user_key if user_key is not None else (user.key if user else None)
    found = await gather(query, user, entities, limit, reader, now, ports, when or When(), whose)
    return AgentContext(user, build_sections(found, budget))


async def gather(
    query: str,
    user: NodeView | None,
    entities: Sequence[NodeView],
    limit: int,
    reader: Scope,
    now: datetime,
    ports: MemoryPorts,
    when: When,
    user_key: str | None = None,
) -> Found:
    """Every layer's items, read concurrently; the query is embedded once. The memory
    items are ``user_key``'s and the shared ones (None: the shared ones)."""
    embedder = OnceEmbedder(ports.embedder)
    keys = list(dict.fromkeys([*([user.key] if user else []), *(e.key for e in entities)]))
    request = SearchRequest(query=query, mode=SearchMode.HYBRID, limit=limit)
    hits, edges, knowledge, hard, recent, matched = await asyncio.gather(
        search(request, reader=reader, embedder=embedder, index=ports.index, config=ports.config),
        _edges(ports.graph.at(when.as_of), reader, keys),
        user_knowledge.user_context(reader, ports.knowledge, user_key=user_key),
        _rules(reader, ports),
        _recent(reader, min(limit, session.MAX_ENTRIES), ports.session, user_key),
        procedures.find_procedures(
            reader.client_id, _as_trigger(query), query, min(limit, procedures.MAX_LIMIT), now,
            store=ports.procedures, embedder=embedder, user_key=user_key,
        ),
    )  # fmt: skip
    found = Found(user, [e for e in entities if not user or e.key != user.key], hard)
    found.knowledge = [item for group in knowledge.categories for item in group.items]
    soft = [h for h in hits if not h.chunk.kind.startswith(_KNOWLEDGE_KIND)]
    found.hits = [h for h in soft if _held(h.chunk, when.as_of)]
    found.edges, found.session, found.procedures = edges, recent, matched
    found.evidence_types = await _evidence_types(found, reader, ports.chunks)
    if when.include_history:
        found.history = True
        found.superseded = [h for h in soft if not _held(h.chunk, when.as_of)]
        held = {e.id for e in edges}
        every = await ports.graph.every_edge_of(reader, keys, ENTITY_EDGES) if keys else {}
        ended = {e.id: e for key in keys for e in every.get(key, []) if e.id not in held}
        found.ended = [ended[i] for i in sorted(ended)]
    return found


def _held(chunk: ChunkView, as_of: datetime | None) -> bool:
    """Whether the chunk was current then (now when ``as_of`` is None)."""
    if as_of is None:
        return chunk.superseded_at is None
    if chunk.observed_at is not None and chunk.observed_at > as_of:
        return False
    return chunk.superseded_at is None or as_of < chunk.superseded_at


def _as_trigger(query: str) -> str | None:
    """The query, when it could be a trigger: a procedure whose trigger it is matches."""
    return query if len(procedures.normalize_trigger(query)) <= procedures.MAX_TRIGGER else None


def build_sections(found: Found, budget: int | None) -> tuple[ContextSection, ...]:
    """The deterministic sections of what was found, each fitted to ``budget``."""
    heads: dict[str, list[ContextLine]] = {}
    pieces: dict[str, list[ContextLine]] = {}
    graph: dict[str, list[tuple[tuple[str, str, str], ContextLine]]] = {}
    if found.user is not None:
        heads["user_profile"] = property_lines(found.user.properties)
    heads.setdefault("user_profile", []).extend(formats.knowledge_line(i) for i in found.knowledge)
    heads["context"] = [entity_line(e) for e in sorted(found.entities, key=lambda e: e.key)]
    for hit in ranked_hits(found.hits):
        pieces.setdefault(formats.routed(hit.chunk.info_type), []).append(piece_line(hit))
    user_key = found.user.key if found.user else None
    for edge in found.edges:
        section, rank, line = formats.edge_line(edge, user_key, found.evidence_types)
        graph.setdefault(section, []).append((rank, line))
    named = {*heads, *pieces, *graph}
    ordered = [
        (name, [*heads.get(name, []), *pieces.get(name, []),
                *(line for _, line in sorted(graph.get(name, []), key=lambda g: g[0]))])
        for name in section_order(named)
    ]  # fmt: skip
    sections = [ContextSection("rules", tuple(formats.rule_line(r) for r in found.rules))]
    sections += [fit(name, lines, budget) for name, lines in ordered]
    sections.append(fit("session", [formats.session_line(e) for e in found.session], budget))
    sections.append(
        fit("procedures", [formats.procedure_line(m) for m in found.procedures], budget)
    )
    if found.history:
        ended = sorted(found.ended, key=lambda e: (e.edge_type, e.to_key, e.from_key, e.id))
        lines = [formats.ended_line(e) for e in ended]
        lines += [formats.superseded_line(h) for h in ranked_hits(found.superseded)]
        sections.append(fit("history", lines, budget))
    return tuple(s for s in sections if s.lines or s.omitted)


async def _edges(graph: GraphReader, reader: Scope, keys: list[str]) -> list[EdgeView]:
    if not keys:
        return []
    found = await graph.edges_of(reader, keys, Direction.BOTH, None, ENTITY_EDGES)
    unique = {edge.id: edge for key in keys for edge in found.get(key, [])}
    return [unique[i] for i in sorted(unique)]


async def _rules(reader: Scope, ports: MemoryPorts) -> list[rules.HardRule]:
    if not reader.client_id:  # rules belong to a client
        return []
    target = rules.rule_scope(reader, None)
    return await rules.active_rules(reader, target, ports.rules, ports.groups)


async def _recent(
    reader: Scope, limit: int, store: session.SessionStore, user_key: str | None
) -> list[session.SessionEntry]:
    if not reader.client_id:  # so does a session
        return []
    return await session.session_memory(reader, limit, store, user_key)


async def _evidence_types(found: Found, reader: Scope, chunks: ChunkReader) -> dict[str, str]:
    """The info type of every evidence chunk of the edges that are routed by it."""
    known = {h.chunk.id: h.chunk.info_type for h in found.hits}
    user_key = found.user.key if found.user else None
    wanted = sorted(
        {c for e in found.edges if e.from_key != user_key for c in e.evidence_chunk_ids}
        - set(known)
    )
    if wanted:
        known |= {i: c.info_type for i, c in (await chunks.by_ids(wanted, reader)).items()}
    return {chunk_id: info for chunk_id, info in known.items() if info}
