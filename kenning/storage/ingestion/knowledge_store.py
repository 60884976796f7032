"""``PgKnowledgeStore``: the write path's transaction over chunks, sources and the AGE graph."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.ports import LockWaitError
from kenning.domain.ingestion.relations import Declarations
from kenning.domain.ingestion.request import (
    ChunkRecord,
    EdgeEnding,
    EdgeRecord,
    NodeRecord,
    PurgeCounts,
    SourceRecord,
    source_identity,
)
from kenning.domain.off_loop import off_loop
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.alias_guard import (
    AliasGuard,
    rekey_chunks,
    rekey_edges,
    rekey_nodes,
    rekey_source,
)
from kenning.storage.ingestion.alias_merge import merge_alias, merged_groups
from kenning.storage.ingestion.edge_endings import write_endings
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.knowledge_rows import CHUNK_INSERT, chunk_records, edge_columns
from kenning.storage.ingestion.node_writes import upsert_vertices
from kenning.storage.ingestion.relation_store import declare_all
from kenning.storage.ingestion.source_files import hold_file, remove_files
from kenning.storage.ingestion.source_removal import remove_source
from kenning.storage.ingestion.source_rows import (
    chunk_times,
    connection_sources,
    insert_mentions,
    limit_lock_wait,
    read_source,
    upsert_source,
)
from kenning.storage.ingestion.supersession import supersede
from kenning.storage.ingestion.timelines import settle

T = TypeVar("T")
logger = logging.getLogger("kenning.storage")

_RETRIES = 5


def _scope(scope: Scope) -> tuple[str, str, str]:
    return scope.client_id, scope.project_id, scope.group_id


class PgWriteUnit:
    """One open transaction; implements the domain's ``WriteUnit``.

    Every key written is re-resolved through the aliases table under ``AliasGuard``'s locks,
    whatever the caller resolved before the unit began (see ``alias_guard``). Chunks are
    held until the unit's next statement: ``upsert_nodes`` then resolves their references
    with its own keys in one read, and any other method (or the commit) writes them first.
    """

    def __init__(self, conn: Connection, sql: GraphSql) -> None:
        self._conn = conn
        self._sql = sql
        self._aliases = AliasGuard(conn)
        self._written: dict[tuple[str, str, str], set[str]] = {}
        self._pending: list[ChunkRecord] = []
        # (scope, from key, edge type) groups whose edges changed: their timelines settle
        # before the commit (``timelines.settle``); the chunks written, and the observed times
        # of evidence chunks (those written that have one, and stored ones: ``upsert_edges``).
        self.touched: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
        self._fresh: set[str] = set()
        self._observed: dict[str, datetime] = {}

    @property
    def connection(self) -> Connection:
        """The unit's connection, for adapters that write in the same transaction."""
        return self._conn

    async def lock_source(self, scope: Scope, source_urn: str) -> None:
        await self.flush()
        key = source_identity(scope, source_urn)
        await self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", key)

    async def source(self, scope: Scope, source_urn: str) -> SourceRecord | None:
        await self.flush()
        return await read_source(self._conn, scope, source_urn)

    async def remove_source(self, scope: Scope, source_urn: str) -> tuple[PurgeCounts, list[str]]:
        await self.flush()
        touched = self.touched.setdefault(_scope(scope), set())
        return await remove_source(self._conn, self._sql, scope, source_urn, touched)

    async def remove_files(self, scope: Scope, source_urn: str) -> int:
        await self.flush()
        return await remove_files(self._conn, scope, source_urn)

    async def hold_file(self, file_id: str) -> bool:
        await self.flush()
        return await hold_file(self._conn, file_id)

    async def write_chunks(self, chunks: Sequence[ChunkRecord]) -> None:
        self._pending.extend(chunks)
        self._fresh.update(c.id for c in chunks)
        self._observed.update((c.id, c.observed_at) for c in chunks if c.observed_at)

    async def flush(self, also: Mapping[str, Collection[str]] | None = None) -> None:
        """Write the held chunks, resolving their references (and ``also``: client → keys
        the caller is about to write) in one read per client."""
        chunks, self._pending = self._pending, []
        wanted: dict[str, set[str]] = {k: set(v) for k, v in (also or {}).items()}
        for c in chunks:
            wanted.setdefault(c.scope.client_id, set()).update(c.graph_refs)
        resolved = {
            client: await self._aliases.resolve(client, wanted[client]) for client in sorted(wanted)
        }
        if not chunks:
            return
        rekeyed = [
            c
            for client in sorted({c.scope.client_id for c in chunks})
            for c in rekey_chunks(
                [c for c in chunks if c.scope.client_id == client], resolved[client]
            )
        ]
        size = sum(len(c.content) for c in rekeyed)
        records = await off_loop(size, lambda: chunk_records(rekeyed))
        await self._conn.executemany(CHUNK_INSERT, records)

    async def upsert_nodes(
        self, scope: Scope, nodes: Sequence[NodeRecord], provenance: NodeProvenance | None = None
    ) -> None:
        await self.flush({scope.client_id: {n.key for n in nodes}} if nodes else None)
        if not nodes:
            return
        keys = await self._aliases.resolve(scope.client_id, {n.key for n in nodes})
        ordered = rekey_nodes(nodes, keys)
        parts = _scope(scope)
        self._written.setdefault(parts, set()).update(n.key for n in ordered)
        await self._conn.execute(
            self._sql.lock_keys(exclusive=False), *parts, [n.key for n in ordered]
        )
        await upsert_vertices(self._conn, self._sql, parts, ordered, provenance)

    async def upsert_edges(self, scope: Scope, edges: Sequence[EdgeRecord]) -> None:
        await self.flush()
        if not edges:
            return
        ends = {k for e in edges for k in (e.from_key, e.to_key)}
        keys = await self._aliases.resolve(scope.client_id, ends)
        size = sum(len(e.evidence_chunk_ids) for e in edges) * 40  # about the JSON's size
        rekeyed = rekey_edges(edges, keys)
        # Evidence stored before this unit (graph extraction's) is valid from its own time.
        stored = {c for e in rekeyed for c in e.evidence_chunk_ids if c not in self._fresh}
        stored -= self._observed.keys()
        self._observed.update(await chunk_times(self._conn, scope.client_id, stored))
        columns = await off_loop(size, lambda: edge_columns(rekeyed, self._observed))
        await self._conn.execute(self._sql.upsert_edges(), *_scope(scope), *columns)
        self.touched.setdefault(_scope(scope), set()).update(
            (e.from_key, e.edge_type) for e in rekeyed
        )

    async def supersede(
        self, scope: Scope, sources: Sequence[str], by: str, at: datetime | None
    ) -> None:
        await self.flush()
        groups = await supersede(self._conn, self._sql, _scope(scope), sources, by, at)
        self.touched.setdefault(_scope(scope), set()).update(groups)

    async def end_edges(self, scope: Scope, endings: Sequence[EdgeEnding]) -> int:
        await self.flush()
        groups, ended = await write_endings(self._conn, self._sql, _scope(scope), endings)
        self.touched.setdefault(_scope(scope), set()).update(groups)
        return ended

    async def declare_relations(self, client_id: str, declared: Declarations) -> int:
        await self.flush()
        return await declare_all(self._conn, self._sql, client_id, declared)

    async def settle(self) -> None:
        """Recompute the touched groups' timelines (see ``timelines.settle``)."""
        await self.flush()
        touched, self.touched = self.touched, {}
        await settle(self._conn, self._sql, touched)

    async def record_source(self, record: SourceRecord) -> None:
        await self.flush()
        named = {*record.mentions, *([record.main_node_key] if record.main_node_key else [])}
        record = rekey_source(record, await self._aliases.resolve(record.scope.client_id, named))
        await upsert_source(self._conn, record)
        await self.add_mentions(record.scope, record.source_urn, record.mentions)

    async def add_mentions(self, scope: Scope, source_urn: str, keys: Collection[str]) -> None:
        await self.flush()
        if keys:
            await insert_mentions(self._conn, scope, source_urn, keys)

    async def delete_orphans(self, scope: Scope, keys: Collection[str]) -> int:
        await self.flush()
        # Keys this unit wrote are mentioned by its source, so never orphans; leaving them
        # out spares an exclusive lock on keys it holds shared (two such units would deadlock).
        ordered = sorted(set(keys) - self._written.get(_scope(scope), set()))
        if not ordered:
            return 0
        await self._conn.execute(self._sql.lock_keys(exclusive=True), *_scope(scope), ordered)
        deleted = await self._conn.fetchval(self._sql.delete_orphans(), *_scope(scope), ordered)
        return int(deleted)

    async def existing_keys(self, scope: Scope, keys: Collection[str]) -> set[str]:
        await self.flush()
        if not keys:
            return set()
        canonical = await self._aliases.resolve(scope.client_id, keys)
        rows = await self._conn.fetch(
            self._sql.existing_keys(), *_scope(scope), sorted(set(canonical.values()))
        )
        found = {r["key"] for r in rows}
        return {key for key in keys if canonical[key] in found}

    async def sources_of_connection(self, scope: Scope, connection_id: str) -> list[str]:
        await self.flush()
        return await connection_sources(self._conn, scope, connection_id)

    async def limit_lock_wait(self, seconds: float) -> None:
        await self.flush()
        await limit_lock_wait(self._conn, seconds)

    async def merge_alias(self, client_id: str, alias_key: str, canonical_key: str) -> int:
        await self.flush()
        merged = await merge_alias(self._conn, self._sql, client_id, alias_key, canonical_key)
        for parts, groups in (
            await merged_groups(self._conn, self._sql, client_id, canonical_key)
        ).items():
            self.touched.setdefault(parts, set()).update(groups)
        return merged


class PgKnowledgeStore:
    """Implements the domain's ``KnowledgeStore`` over an asyncpg pool."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        self._pool = pool
        self._sql = GraphSql(graph)

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        value = await self._pool.fetchval(
            """SELECT content_hash FROM sources WHERE client_id = $1 AND project_id = $2
               AND group_id = $3 AND source_urn = $4""",
            *_scope(scope),
            source_urn,
        )
        return None if value is None else str(value)

    async def write(self, work: Callable[[PgWriteUnit], Awaitable[T]]) -> T:
        for attempt in range(1, _RETRIES + 1):
            try:
                async with self._pool.acquire() as conn, conn.transaction():
                    unit = PgWriteUnit(conn, self._sql)
                    done = await work(unit)
                    await unit.settle()
                    return done
            except asyncpg.LockNotAvailableError:
                raise LockWaitError("another transaction held what this write needed") from None
            except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError):
                if attempt == _RETRIES:
                    raise
                logger.warning("storage.write.retry", extra={"attempt": attempt})
                await asyncio.sleep(0.01 * 2**attempt)
        raise AssertionError("unreachable")
