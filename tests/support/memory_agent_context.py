"""Agent context's unit-test doubles: a chunk index and reader over given chunks, user
knowledge in a list, and ``MemoryPorts`` over them and the other memory fakes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.memory.agent_context import MemoryPorts
from kenning.domain.memory.user_knowledge import KnowledgeCategory, KnowledgeItem
from kenning.domain.retrieval.search import IndexHit, SearchFilters
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.graph_reader import FakeGraph
from tests.support.memory_procedures import FakeProcedureStore
from tests.support.memory_rules import FakeRuleStore, RecordedGroups
from tests.support.memory_session import FakeSessionStore

ACME = Scope("acme", "web")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
NO_GROUPS = ProjectGroups({})


def piece(
    chunk_id: str, content: str, info_type: str | None = None, kind: str = "note"
) -> ChunkView:
    """A stored chunk of ``acme``/``web`` with ``info_type``."""
    return ChunkView(
        id=chunk_id, source_urn=f"doc:{chunk_id}", ordinal=0, kind=kind, scope=ACME,
        content=content, graph_refs=(), knowledge_type=None, info_type=info_type, tags=(),
        source_kind=None, connection_id=None, external_id=None, revision=None,
    )  # fmt: skip


@dataclass
class GivenChunks:
    """A ``ChunkIndex`` answering both indexes with the given (chunk, score) pairs, visible
    ones only, and a ``ChunkReader`` over the same chunks (plus ``extra`` ones)."""

    hits: list[tuple[ChunkView, float]] = field(default_factory=list)
    extra: list[ChunkView] = field(default_factory=list)

    def _visible(self, reader: Scope, filters: SearchFilters) -> list[tuple[ChunkView, float]]:
        """The visible pairs that name one of the filter's entity keys (when it has some)."""
        keys = set(filters.entity_keys)
        return [
            (c, s)
            for c, s in self.hits
            if reader.can_see(c.scope, NO_GROUPS) and (not keys or keys & set(c.graph_refs))
        ]

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        return [IndexHit(c, s) for c, s in self._visible(reader, filters)[:limit]]

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        return [IndexHit(c, s) for c, s in self._visible(reader, filters)[:limit]]

    async def by_ids(self, ids: Sequence[str], reader: Scope) -> dict[str, ChunkView]:
        every = [c for c, _ in self.hits] + self.extra
        return {c.id: c for c in every if c.id in ids and reader.can_see(c.scope, NO_GROUPS)}

    async def by_kind(self, kind: str, reader: Scope, limit: int) -> list[ChunkView]:
        raise AssertionError("agent context never lists chunks by kind")


@dataclass
class GivenKnowledge:
    """A ``UserKnowledgeReader`` over a list, filtered by client and user like the real one."""

    items: list[KnowledgeItem] = field(default_factory=list)

    async def visible_items(
        self, reader: Scope, per_category: int, user_key: str | None = None
    ) -> list[KnowledgeItem]:
        return [
            i
            for i in self.items
            if reader.can_see(i.scope, NO_GROUPS) and i.user_key in (None, user_key)
        ]


def knowledge(category: KnowledgeCategory, subject: str, content: str) -> KnowledgeItem:
    """An item of ``acme``/``web``."""
    return KnowledgeItem(category, subject, content, NOW, ACME)


@dataclass
class Doubles:
    """Every fake the assembly reads, and the ports over them."""

    embedder: FakeEmbedder = field(default_factory=FakeEmbedder)
    chunks: GivenChunks = field(default_factory=GivenChunks)
    graph: FakeGraph = field(default_factory=FakeGraph)
    knowledge: GivenKnowledge = field(default_factory=GivenKnowledge)
    session: FakeSessionStore = field(default_factory=FakeSessionStore)
    procedures: FakeProcedureStore = field(default_factory=FakeProcedureStore)
    rules: FakeRuleStore = field(default_factory=FakeRuleStore)

    def ports(self) -> MemoryPorts:
        return MemoryPorts(
            embedder=self.embedder, index=self.chunks, graph=self.graph, chunks=self.chunks,
            knowledge=self.knowledge, session=self.session, procedures=self.procedures,
            rules=self.rules, groups=RecordedGroups(),
        )  # fmt: skip
