"""``agent_context``: every memory layer an agent needs for one query, in one deterministic text:
the three-layer retrieve of the knowledge-integration design (003 §Stage 3) plus the memory
Kenning keeps beside it.

Three layers, read at once:

1. **Metadata**: the user entity's properties, and the client's global metadata (the
   ``global:global`` entity, shown in every context of the client); the other named
   entities' properties open ``context``.
2. **Pieces**: a hybrid search of the query, filtered by knowledge type and tags when asked,
   and to the entities' pieces (a chunk whose graph references name the user or one of the
   entities, the search's ``entity_keys`` filter) when asked.
3. **Graph**: breadth-first from the user and the named entities up to ``depth`` hops
   (``kenning.domain.retrieval.context_graph``), every neighbour scored ``1 / hop``, the
   pieces its edge links merged with the search's: one per piece, the higher score kept,
   sorted by (-score, chunk id).

They are routed by info type (``context_lines``' table) into sections, in this order, each
only when it has something to say:

1. ``rules``: every hard rule in force for the reader (client-wide, overridden by the
   project's), by key. Mandatory, so never cut by the budget and never mixed with soft memory.
2. ``user_profile``: metadata, global metadata, what is known about the user (user knowledge,
   by category then subject) and pieces of that info type, then its relationships.
3. ``instructions``, ``context``, ``skills``, then any other info type alphabetically, each
   with its pieces and relationships; ``context`` opens with the other entities' metadata.
4. ``session``: the session's recent entries, newest first.
5. ``procedures``: the client's procedures whose trigger is the query or that are similar to
   it, best first.
6. ``history`` (only when asked, ``include_history``): what no longer holds, each line with
   its validity: the entities' ended edges, by (relation, target, source), then superseded
   pieces in rank order.

**Only what holds is stated as current.** Edges are the ones valid now (or at ``as_of``);
a piece that was superseded (every edge it is evidence for ended, or its source was
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
from kenning.domain.graph.model import EdgeView, GraphReader, NodeView, check_depth
from kenning.domain.memory import procedures, rules, session, user_knowledge
from kenning.domain.memory.context_sections import Found, build_sections
from kenning.domain.retrieval import context_graph as graph_layer
from kenning.domain.retrieval.agent_context import AgentContext, OnceEmbedder
from kenning.domain.retrieval.context_format import DEFAULT_FORMAT, ContextFormat
from kenning.domain.retrieval.search import (
    MAX_QUERY_LENGTH,
    ChunkIndex,
    SearchConfig,
    SearchFilters,
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
GLOBAL_KEY: Final = "global:global"
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


@dataclass(frozen=True, slots=True)
class When:
    """What time the context answers for (None: now), and whether it lists what no longer
    holds in a ``history`` section."""

    as_of: datetime | None = None
    include_history: bool = False


@dataclass(frozen=True, slots=True)
class Shape:
    """How far and what the retrieve reads, and how its text reads: the graph's ``depth``
    (1..3 hops), the search's knowledge types and tags (none: every one), whether it keeps
    only the entities' pieces (those whose graph references name the user or one of the
    entities), the formatter."""

    depth: int = graph_layer.DEFAULT_DEPTH
    knowledge_types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    fmt: ContextFormat = field(default=DEFAULT_FORMAT)
    entity_pieces: bool = False

    @classmethod
    def asked(
        cls,
        depth: int = graph_layer.DEFAULT_DEPTH,
        knowledge_types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        fmt: ContextFormat | None = None,
        entity_pieces: bool = False,
    ) -> Shape:
        """The shape a face's arguments ask for (None: no filter, the default format)."""
        types, tagged = tuple(knowledge_types or ()), tuple(tags or ())
        return cls(depth, types, tagged, fmt or DEFAULT_FORMAT, entity_pieces)


def check_request(
    query: str, entity_count: int, limit: int, budget: int | None, depth: int = 2
) -> None:
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
    check_depth(depth)


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
    shape: Shape | None = None,
    global_metadata: NodeView | None = None,
) -> AgentContext:
    """Read every layer for ``query``, the user entity and the other entities, then format.

    The memory items are ``user_key``'s and the shared ones (``user``'s key when None: a
    user named by key has memory before the graph has a node for them)."""
    shape = shape or Shape()
    check_request(query, len(entities), limit, budget, shape.depth)
    whose = user_key if user_key is not None else (user.key if user else None)
    found = await gather(
        query, user, entities, limit, reader, now, ports, when or When(), whose, shape
    )
    found.global_metadata, found.fmt = global_metadata, shape.fmt
    return AgentContext(user, build_sections(found, budget), shape.fmt)


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
    shape: Shape | None = None,
) -> Found:
    """Every layer's items, read concurrently; the query is embedded once. The memory
    items are ``user_key``'s and the shared ones (None: the shared ones)."""
    shape = shape or Shape()
    embedder = OnceEmbedder(ports.embedder)
    keys = list(dict.fromkeys([*([user.key] if user else []), *(e.key for e in entities)]))
    # The entities' pieces: the search keeps the chunks naming one of them, in its SQL.
    owned = tuple(keys) if shape.entity_pieces else ()
    filters = SearchFilters(
        knowledge_types=shape.knowledge_types, tags=shape.tags, entity_keys=owned
    )
    request = SearchRequest(query=query, mode=SearchMode.HYBRID, limit=limit, filters=filters)
    graph = ports.graph.at(when.as_of)
    hits, layer, knowledge, hard, recent, matched = await asyncio.gather(
        _pieces_search(request, reader, embedder, ports, none=shape.entity_pieces and not keys),
        graph_layer.read_graph(graph, ports.chunks, reader, keys, shape.depth),
        user_knowledge.user_context(reader, ports.knowledge, user_key=user_key),
        _rules(reader, ports),
        _recent(reader, min(limit, session.MAX_ENTRIES), ports.session, user_key),
        procedures.find_procedures(
            reader.client_id,
            _as_trigger(query),
            query,
            min(limit, procedures.MAX_LIMIT),
            now,
            store=ports.procedures,
            embedder=embedder,
            user_key=user_key,
        ),
    )
    found = Found(user, [e for e in entities if not user or e.key != user.key], hard)
    found.knowledge = [item for group in knowledge.categories for item in group.items]
    found.edges, found.nodes = [r.edge for r in layer.reached], layer.nodes
    found.edge_scores = {r.edge.id: r.score for r in layer.reached}
    found.session, found.procedures = recent, matched
    soft = [h for h in hits if not h.chunk.kind.startswith(_KNOWLEDGE_KIND)]
    pieces = _pieces(found, soft, layer, when.as_of)
    if when.include_history:
        found.history = True
        found.superseded = [h for h in pieces if not _held(h.chunk, when.as_of)]
        found.ended = await _ended(ports.graph, reader, keys, {e.id for e in found.edges})
    return found


async def _pieces_search(
    request: SearchRequest, reader: Scope, embedder: Embedder, ports: MemoryPorts, *, none: bool
) -> list[SearchHit]:
    """The search's hits; none when the entities' pieces are asked with no entity."""
    if none:
        return []
    return await search(
        request, reader=reader, embedder=embedder, index=ports.index, config=ports.config
    )


def _pieces(
    found: Found, hits: list[SearchHit], layer: graph_layer.GraphLayer, as_of: datetime | None
) -> list[SearchHit]:
    """Search hits and linked pieces merged (every one, superseded ones too); the current
    ones become ``found``'s hits, and the info types the edges are routed by."""
    # User knowledge is in the profile already: never a linked piece.
    chunks = {i: c for i, c in layer.chunks.items() if not c.kind.startswith(_KNOWLEDGE_KIND)}
    pieces = graph_layer.merged(hits, graph_layer.linked_pieces(layer.reached, chunks))
    found.hits = [h for h in pieces if _held(h.chunk, as_of)]
    found.piece_types = graph_layer.piece_types(c for c in chunks.values() if _held(c, as_of))
    return pieces


async def _ended(
    graph: GraphReader, reader: Scope, keys: list[str], held: set[int]
) -> list[EdgeView]:
    every = await graph.every_edge_of(reader, keys, ENTITY_EDGES) if keys else {}
    ended = {e.id: e for key in keys for e in every.get(key, []) if e.id not in held}
    return [ended[i] for i in sorted(ended)]


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
