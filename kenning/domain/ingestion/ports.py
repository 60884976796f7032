"""The ports the write path needs; storage implements them, tests fake them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ConflictError
from kenning.domain.ingestion.graph_items import GraphRequest
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.relations import Declarations
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeEnding,
    EdgeRecord,
    IngestRequest,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
)

T = TypeVar("T")


class LockWaitError(ConflictError):
    """A write unit waited longer than it allowed itself (``limit_lock_wait``) for another
    transaction; nothing of it was written."""


class WriteUnit(Protocol):
    """One transaction over chunks, sources and the graph; all or nothing."""

    async def lock_source(self, scope: Scope, source_urn: str) -> None:
        """Serialize writers of one source until the unit ends."""
        ...

    async def source(self, scope: Scope, source_urn: str) -> SourceRecord | None:
        """The stored record of a source, if any."""
        ...

    async def remove_source(self, scope: Scope, source_urn: str) -> tuple[PurgeCounts, list[str]]:
        """Delete a source's chunks, its evidence on edges, edges left with none, and its
        mentions; return the counts and the keys it mentioned (orphan candidates)."""
        ...

    async def remove_files(self, scope: Scope, source_urn: str) -> int:
        """Delete the source's stored originals written at exactly ``scope`` (their bytes
        too), once a writer holding one (``hold_file``) has ended; return how many."""
        ...

    async def hold_file(self, file_id: str) -> bool:
        """Keep the stored original ``file_id`` from being deleted until the unit ends;
        False when it is gone already (purged)."""
        ...

    async def write_chunks(self, chunks: Sequence[ChunkRecord]) -> None:
        """Insert chunks (their ids are new within the unit)."""
        ...

    async def upsert_nodes(
        self, scope: Scope, nodes: Sequence[NodeRecord], provenance: NodeProvenance | None = None
    ) -> None:
        """Create missing vertices; merge given properties into existing ones. Every value a
        property takes or loses is kept in the node's history, stated by ``provenance``."""
        ...

    async def upsert_edges(self, scope: Scope, edges: Sequence[EdgeRecord]) -> None:
        """Create missing edges; unite evidence into existing ones."""
        ...

    async def record_source(self, record: SourceRecord) -> None:
        """Remember a source's hash and the node keys it mentions."""
        ...

    async def add_mentions(self, scope: Scope, source_urn: str, keys: Collection[str]) -> None:
        """Add canonical ``keys`` to what a stored source mentions (its other record stays)."""
        ...

    async def delete_orphans(self, scope: Scope, keys: Collection[str]) -> int:
        """Delete those vertices no source mentions and no edge touches; return how many."""
        ...

    async def existing_keys(self, scope: Scope, keys: Collection[str]) -> set[str]:
        """Those of ``keys`` that are vertices at ``scope``."""
        ...

    async def sources_of_connection(self, scope: Scope, connection_id: str) -> list[str]:
        """Source URNs of one connection at ``scope``."""
        ...

    async def supersede(
        self, scope: Scope, sources: Sequence[str], by: str, at: datetime | None
    ) -> None:
        """Mark ``sources`` (at exactly ``scope``) replaced by source ``by`` as of ``at``
        (None: now): every edge all of whose evidence is theirs ends (SUPERSEDED, by
        ``by``), and their chunks no longer hold. Raises ``ScopeError`` when one is not
        stored at ``scope``, whether or not it exists elsewhere."""
        ...

    async def end_edges(self, scope: Scope, endings: Sequence[EdgeEnding]) -> int:
        """End those of ``endings`` whose edge holds now at exactly ``scope`` (an edge of
        another scope or client is never touched); return how many were ended. The edges
        stay, with their evidence, in their history."""
        ...

    async def declare_relations(self, client_id: str, declared: Declarations) -> int:
        """Store ``declared``'s relations for ``client_id`` (as ``defineRelation``: every
        edge of theirs is re-timed); return how many current edges ended. Raises
        ``TooLargeError`` when the client would pass ``MAX_RELATIONS``."""
        ...

    async def limit_lock_wait(self, seconds: float) -> None:
        """From now on, waiting over ``seconds`` for another transaction's lock ends the
        unit with ``LockWaitError`` (rolled back, not retried)."""
        ...

    async def merge_alias(self, client_id: str, alias_key: str, canonical_key: str) -> int:
        """Merge the alias vertex into the canonical one in every scope of the client
        (edges re-pointed, evidence united, refs and mentions re-keyed); return merges."""
        ...


class KnowledgeStore(Protocol):
    """Runs write units, retrying ones that lost a deadlock or serialization race."""

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        """The stored content hash of a source (outside any unit, for the fast path)."""
        ...

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction; commit when it returns, roll back if it raises."""
        ...


class PurgedJobs(Protocol):
    """The queue, as a purge sees it (the queue's ``JobQueue`` implements it)."""

    async def cancel_purged(
        self, scope: Scope, *, source_urn: str | None = None, connection_id: str | None = None
    ) -> int:
        """Cancel the QUEUED and RUNNING jobs written at exactly ``scope`` of the source or
        the connection, because what they would write is being purged; return how many."""
        ...


class AliasResolver(Protocol):
    """Per client: alias key → canonical key."""

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        """Map those of ``keys`` that are aliases to their canonical keys."""
        ...


class WriteGuard(Protocol):
    """A check every write of a client passes before anything else (the tombstones of its
    erased subjects, ``kenning.domain.erasure.tombstone``): the request as it may be stored,
    or a ``KenningError`` naming the field that may not be."""

    async def guarded(self, request: IngestRequest) -> IngestRequest: ...

    async def guarded_graph(self, request: GraphRequest) -> GraphRequest:
        """The same check of a structured write (``ingestGraph``, files, pages, code)."""
        ...

    async def guarded_fields(
        self, client_id: str, fields: Mapping[str, object], identifiers: Collection[str] = ()
    ) -> dict[str, object]:
        """The same check of a memory write's fields (JSON values, by input name); a field
        of ``identifiers`` naming an erased subject is refused in any mode."""
        ...
