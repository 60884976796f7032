"""A source's rows inside a write unit: its ``sources`` record (read and written), what it
mentions, when its stored chunks were true, the sources of a connection, and how long the
unit waits for another writer's locks."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import SourceRecord
from kenning.storage.db.pool import Connection


async def read_source(conn: Connection, scope: Scope, source_urn: str) -> SourceRecord | None:
    """The source's record at exactly ``scope``, its chunk ids in order; None when absent."""
    row = await conn.fetchrow(
        """SELECT s.kind, s.content_hash, s.main_node_key, s.connection_id,
                  ARRAY(SELECT c.id FROM chunks c WHERE c.client_id = s.client_id
                        AND c.project_id = s.project_id AND c.group_id = s.group_id
                        AND c.source_urn = s.source_urn ORDER BY c.ordinal) AS chunk_ids,
                  ARRAY(SELECT m.node_key FROM source_mentions m
                        WHERE m.client_id = s.client_id AND m.project_id = s.project_id
                        AND m.group_id = s.group_id AND m.source_urn = s.source_urn
                        ORDER BY m.node_key) AS mentions
           FROM sources s
           WHERE s.client_id = $1 AND s.project_id = $2 AND s.group_id = $3
             AND s.source_urn = $4""",
        scope.client_id,
        scope.project_id,
        scope.group_id,
        source_urn,
    )
    if row is None:
        return None
    return SourceRecord(
        scope=scope,
        source_urn=source_urn,
        kind=row["kind"],
        content_hash=row["content_hash"],
        main_node_key=row["main_node_key"],
        connection_id=row["connection_id"],
        chunk_ids=tuple(row["chunk_ids"]),
        mentions=tuple(row["mentions"]),
    )


async def chunk_times(
    conn: Connection, client_id: str, chunk_ids: Collection[str]
) -> dict[str, datetime]:
    """When each stored chunk was true: its ``observed_at``, else its creation."""
    if not chunk_ids:
        return {}
    rows = await conn.fetch(
        """SELECT id, coalesce(observed_at, created_at) AS at FROM chunks
           WHERE client_id = $1 AND id = ANY($2::text[])""",
        client_id,
        sorted(chunk_ids),
    )
    return {r["id"]: r["at"] for r in rows}


async def upsert_source(conn: Connection, record: SourceRecord) -> None:
    """Store (or replace) the source's record."""
    scope = record.scope
    await conn.execute(
        """INSERT INTO sources (client_id, project_id, group_id, source_urn, kind,
                                content_hash, main_node_key, connection_id, chunk_count)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (client_id, project_id, group_id, source_urn) DO UPDATE
           SET kind = EXCLUDED.kind, content_hash = EXCLUDED.content_hash,
               main_node_key = EXCLUDED.main_node_key,
               connection_id = EXCLUDED.connection_id,
               chunk_count = EXCLUDED.chunk_count, updated_at = now()""",
        scope.client_id,
        scope.project_id,
        scope.group_id,
        record.source_urn,
        record.kind,
        record.content_hash,
        record.main_node_key,
        record.connection_id,
        len(record.chunk_ids),
    )


async def insert_mentions(
    conn: Connection, scope: Scope, source_urn: str, keys: Collection[str]
) -> None:
    """Add canonical ``keys`` to what the source mentions."""
    await conn.execute(
        """INSERT INTO source_mentions
               (client_id, project_id, group_id, source_urn, node_key)
           SELECT $1, $2, $3, $4, k FROM unnest($5::text[]) AS k
           ON CONFLICT DO NOTHING""",
        scope.client_id,
        scope.project_id,
        scope.group_id,
        source_urn,
        sorted(set(keys)),
    )


async def connection_sources(conn: Connection, scope: Scope, connection_id: str) -> list[str]:
    """Source URNs of one connection at ``scope``, in order."""
    rows = await conn.fetch(
        """SELECT source_urn FROM sources
           WHERE client_id = $1 AND project_id = $2 AND group_id = $3
             AND connection_id = $4 ORDER BY source_urn""",
        scope.client_id,
        scope.project_id,
        scope.group_id,
        connection_id,
    )
    return [r["source_urn"] for r in rows]


async def limit_lock_wait(conn: Connection, seconds: float) -> None:
    """From now until the transaction ends, a lock not granted within ``seconds`` fails the
    statement waiting for it (``lock_timeout``, transaction-local)."""
    await conn.execute("SELECT set_config('lock_timeout', $1, true)", f"{round(seconds * 1000)}ms")
