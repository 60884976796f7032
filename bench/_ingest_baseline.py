"""The baseline of the ingest benchmark: the rows Kenning writes, stored with the minimum SQL.

``bench._ingest_recording.precompute`` runs Kenning's own ingest use case over a recording
store to learn the exact rows of each document; ``baseline_phase`` then writes them with raw
asyncpg (``COPY`` for chunks, one ``unnest`` insert per table), ``size`` documents per
transaction.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import numpy as np

from bench._ingest_database import CLIENT, postgres_pids
from bench._ingest_recording import Stored
from bench._timing import PhaseTime, phase_time, sample
from kenning.domain.ingestion.request import ChunkRecord
from kenning.storage.db.agtype import as_jsonb, prop

BULK_BATCH = 250
RETRIES = 5
CHUNK_COLUMNS = (
    "id", "source_urn", "ordinal", "kind", "client_id", "project_id", "group_id", "content",
    "embedding", "graph_refs", "knowledge_type", "info_type", "tags", "source_kind",
    "connection_id", "external_id", "revision", "content_hash", "metadata",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Batch:
    """Statement arguments for one transaction of the baseline."""

    chunks: list[tuple[object, ...]]
    vertices: tuple[list[str], list[str]]
    edges: tuple[list[str], list[str], list[str], list[str]]
    sources: tuple[list[str], list[str], list[str], list[str | None], list[int]]
    mentions: tuple[list[str], list[str]]


def make_batches(stored: Sequence[Stored], size: int) -> list[Batch]:
    """``size`` documents per transaction; within one, edges of one triple unite evidence."""
    return [_batch(stored[i : i + size]) for i in range(0, len(stored), size)]


def _batch(group: Sequence[Stored]) -> Batch:
    types = {n.key: n.type for s in group for n in s.nodes}
    evidence: dict[tuple[str, str, str], set[str]] = {}
    for edge in (e for s in group for e in s.edges):
        triple = (edge.from_key, edge.edge_type, edge.to_key)
        evidence.setdefault(triple, set()).update(edge.evidence_chunk_ids)
    triples, keys = sorted(evidence), sorted(types)
    sources = [r for s in group for r in s.sources]
    mentions = [(r.source_urn, key) for r in sources for key in sorted(set(r.mentions))]
    return Batch(
        chunks=[_chunk_row(c) for s in group for c in s.chunks],
        vertices=(keys, [types[k] for k in keys]),
        edges=(
            [t[0] for t in triples],
            [t[1] for t in triples],
            [t[2] for t in triples],
            [json.dumps(sorted(evidence[t])) for t in triples],
        ),
        sources=(
            [r.source_urn for r in sources],
            [r.kind for r in sources],
            [r.content_hash for r in sources],
            [r.main_node_key for r in sources],
            [len(r.chunk_ids) for r in sources],
        ),
        mentions=([m[0] for m in mentions], [m[1] for m in mentions]),
    )


def _chunk_row(c: ChunkRecord) -> tuple[object, ...]:
    """A ``chunks`` row in ``CHUNK_COLUMNS`` order, converted as Kenning's store does."""
    scope = c.scope
    return (
        c.id, c.source_urn, c.ordinal, c.kind, scope.client_id, scope.project_id,
        scope.group_id, c.content, np.asarray(c.embedding, dtype=np.float32),
        list(c.graph_refs), c.knowledge_type, c.info_type, list(c.tags), c.source_kind,
        c.connection_id, c.external_id, c.revision, c.content_hash, json.dumps(dict(c.metadata)),
    )  # fmt: skip


def _in_scope(alias: str) -> str:
    return " AND ".join(f"{prop(alias, p)} = ${i}" for i, p in enumerate(SCOPE_PROPS, 1))


SCOPE_PROPS = ("client", "project", "group")
_SCOPE_OBJECT = "'client', $1::text, 'project', $2::text, 'group', $3::text"


def baseline_sql(graph: str) -> dict[str, str]:
    """Vertex, edge, source and mention inserts over the AGE label tables and plain tables."""
    old = as_jsonb(f'{graph}."REL".properties')
    new = as_jsonb("EXCLUDED.properties")
    return {
        "vertices": f"""
            INSERT INTO {graph}."Entity" (properties)
            SELECT (jsonb_build_object('key', u.k, 'type', u.t, {_SCOPE_OBJECT}))::text::agtype
            FROM unnest($4::text[], $5::text[]) AS u(k, t) ORDER BY u.k
            ON CONFLICT ({", ".join(prop("", p) for p in (*SCOPE_PROPS, "key"))}) DO NOTHING""",
        "edges": f"""
            INSERT INTO {graph}."REL" (start_id, end_id, properties)
            SELECT s.id, e.id, (jsonb_build_object('edgeType', u.et, {_SCOPE_OBJECT},
                                                   'evidenceChunkIds', u.ev))::text::agtype
            FROM unnest($4::text[], $5::text[], $6::text[], $7::jsonb[]) AS u(fk, et, tk, ev)
            JOIN {graph}."Entity" s ON {_in_scope("s")} AND {prop("s", "key")} = u.fk
            JOIN {graph}."Entity" e ON {_in_scope("e")} AND {prop("e", "key")} = u.tk
            ORDER BY u.fk, u.et, u.tk
            ON CONFLICT (start_id, {prop("", "edgeType")}, end_id) DO UPDATE
            SET properties = (jsonb_set({old}, '{{evidenceChunkIds}}', (
                SELECT jsonb_agg(DISTINCT x ORDER BY x) FROM jsonb_array_elements_text(
                    ({old} -> 'evidenceChunkIds') || ({new} -> 'evidenceChunkIds')) AS x
            )))::text::agtype""",
        "sources": """
            INSERT INTO sources (client_id, project_id, group_id, source_urn, kind,
                                 content_hash, main_node_key, chunk_count)
            SELECT $1, $2, $3, u.* FROM unnest($4::text[], $5::text[], $6::text[], $7::text[],
                                               $8::int[]) AS u""",
        "mentions": """
            INSERT INTO source_mentions (client_id, project_id, group_id, source_urn, node_key)
            SELECT $1, $2, $3, u.* FROM unnest($4::text[], $5::text[]) AS u""",
    }


async def _store(pool: asyncpg.Pool, sql: dict[str, str], batch: Batch) -> None:
    scope = (CLIENT, "", "")
    for attempt in range(1, RETRIES + 1):  # as Kenning's store: retry a lost deadlock
        try:
            async with pool.acquire() as conn, conn.transaction():
                await conn.copy_records_to_table(
                    "chunks", records=batch.chunks, columns=CHUNK_COLUMNS
                )
                await conn.execute(sql["vertices"], *scope, *batch.vertices)
                await conn.execute(sql["edges"], *scope, *batch.edges)
                await conn.execute(sql["sources"], *scope, *batch.sources)
                await conn.execute(sql["mentions"], *scope, *batch.mentions)
            return
        except asyncpg.DeadlockDetectedError:
            if attempt == RETRIES:
                raise
            await asyncio.sleep(0.01 * 2**attempt)


async def baseline_phase(
    pool: asyncpg.Pool, graph: str, batches: Sequence[Batch], workers: int
) -> PhaseTime:
    """Store every batch, ``workers`` transactions at a time; only SQL is timed."""
    sql = baseline_sql(graph)
    pg_start = await postgres_pids(pool)
    start = sample(pg_start)
    pending = iter(batches)  # shared: each batch is taken by one worker, once

    async def worker() -> None:
        for batch in pending:
            await _store(pool, sql, batch)

    async with asyncio.TaskGroup() as group:
        for _ in range(workers):
            group.create_task(worker())
    pg = [*pg_start, *await postgres_pids(pool)]
    return phase_time(start, sample(pg), postgres=pg)


def baseline_rates(stored: Sequence[Stored], time_: PhaseTime, batch: int) -> dict[str, object]:
    """Counts of the stored rows, divided by the phase's wall time."""
    chunks = sum(len(s.chunks) for s in stored)
    edges = sum(len(s.edges) for s in stored)
    wall = time_.wall_s
    return {
        "docs": len(stored), "chunks": chunks, "edges": edges, "docs_per_transaction": batch,
        "docs_per_s": len(stored) / wall, "chunks_per_s": chunks / wall,
        "edges_per_s": edges / wall, "time": time_,
    }  # fmt: skip
