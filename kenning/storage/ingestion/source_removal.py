"""Removing one source's rows inside a write unit: its chunks, its mentions, its row, and
its evidence on edges (chunks and assertions; edges left with none are deleted) with its
edge properties."""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.edge_sources import source_mark
from kenning.domain.ingestion.request import PurgeCounts
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.supersession import take_back

_WHERE = "client_id = $1 AND project_id = $2 AND group_id = $3 AND source_urn = $4"


async def remove_source(
    conn: Connection, sql: GraphSql, scope: Scope, source_urn: str, touched: set[tuple[str, str]]
) -> tuple[PurgeCounts, list[str]]:
    """Delete the source's rows; return the counts and the keys it mentioned. The (from key,
    edge type) of every edge that lost evidence is added to ``touched``."""
    parts = (scope.client_id, scope.project_id, scope.group_id, source_urn)
    deleted_chunks = await conn.fetch(f"DELETE FROM chunks WHERE {_WHERE} RETURNING id", *parts)
    chunk_ids = [r["id"] for r in deleted_chunks]
    touched.update(await take_back(conn, parts[:3], source_urn))
    if chunk_ids:
        await conn.execute(
            "DELETE FROM chunk_marks WHERE client_id = $1 AND chunk_id = ANY($2::text[])",
            scope.client_id,
            chunk_ids,
        )
    deleted_mentions = await conn.fetch(
        f"DELETE FROM source_mentions WHERE {_WHERE} RETURNING node_key", *parts
    )
    mentions = [r["node_key"] for r in deleted_mentions]
    sources = await conn.fetchval(
        f"WITH d AS (DELETE FROM sources WHERE {_WHERE} RETURNING 1) SELECT count(*) FROM d",
        *parts,
    )
    stripped = deleted = 0
    if mentions:
        # The source's chunks, and its assertions and properties (``edge_sources``).
        evidence = [*chunk_ids, source_mark(scope, source_urn)]
        edges = await conn.fetch(sql.strip_evidence(), *parts[:3], mentions, evidence)
        stripped = len(edges)
        touched.update((r["from_key"], r["edge_type"]) for r in edges)
        empty = [r["id"] for r in edges if r["left"] == 0]
        if empty:
            result = await conn.execute(sql.delete_edges_without_evidence(), empty)
            deleted = int(result.split()[-1])
    counts = PurgeCounts(
        sources=int(sources),
        chunks=len(chunk_ids),
        evidence_removed=stripped,
        edges_deleted=deleted,
    )
    return counts, mentions
