"""Reading chunks by id or kind, always through the reader's visibility predicate."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params, visible_rows

CHUNK_COLUMNS = (
    "c.id, c.source_urn, c.ordinal, c.kind, c.client_id, c.project_id, c.group_id, c.content, "
    "c.graph_refs, c.knowledge_type, c.info_type, c.tags, c.source_kind, c.connection_id, "
    "c.external_id, c.revision, c.metadata, c.created_at, c.observed_at"
)
# A chunk's supersession mark in the statement that reads it (``alias`` the chunk rows),
# so a read by id, kind or node costs no second statement.
MARK_COLUMNS = "m.superseded_at, m.superseded_by"


def marks_join(alias: str) -> str:
    """``LEFT JOIN`` of the marks of ``alias``'s chunks (``MARK_COLUMNS``)."""
    return f"LEFT JOIN chunk_marks m ON m.client_id = {alias}.client_id AND m.chunk_id = {alias}.id"


def chunk_view(row: asyncpg.Record) -> ChunkView:
    """A ``ChunkView`` from a row selected with ``CHUNK_COLUMNS`` (and ``MARK_COLUMNS``,
    when the statement joined them)."""
    metadata = row["metadata"]
    return ChunkView(
        id=row["id"],
        source_urn=row["source_urn"],
        ordinal=row["ordinal"],
        kind=row["kind"],
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        content=row["content"],
        graph_refs=tuple(row["graph_refs"]),
        knowledge_type=row["knowledge_type"],
        info_type=row["info_type"],
        tags=tuple(row["tags"]),
        source_kind=row["source_kind"],
        connection_id=row["connection_id"],
        external_id=row["external_id"],
        revision=row["revision"],
        metadata=json.loads(metadata) if isinstance(metadata, str) else dict(metadata),
        created_at=row["created_at"],
        observed_at=row["observed_at"] or row["created_at"],
        superseded_at=row.get("superseded_at"),
        superseded_by=row.get("superseded_by"),
    )


async def with_marks(
    conn: Connection | asyncpg.Pool, views: Sequence[ChunkView]
) -> list[ChunkView]:
    """``views`` with the supersession marks of those that no longer hold (one statement
    by primary key; none when ``views`` is empty)."""
    if not views:
        return list(views)
    rows = await conn.fetch(
        """SELECT m.client_id, m.chunk_id, m.superseded_at, m.superseded_by
           FROM chunk_marks m
           JOIN unnest($1::text[], $2::text[]) AS u(client_id, chunk_id)
             ON m.client_id = u.client_id AND m.chunk_id = u.chunk_id""",
        [v.scope.client_id for v in views],
        [v.id for v in views],
    )
    if not rows:
        return list(views)
    marks = {(r["client_id"], r["chunk_id"]): r for r in rows}
    found = []
    for view in views:
        mark = marks.get((view.scope.client_id, view.id))
        if mark is not None:
            view = replace(
                view, superseded_at=mark["superseded_at"], superseded_by=mark["superseded_by"]
            )
        found.append(view)
    return found


async def chunks_by_ids(
    conn: Connection | asyncpg.Pool, ids: Sequence[str], reader: Scope
) -> dict[str, ChunkView]:
    """The visible chunks among ``ids`` (one statement), keyed by id."""
    if not ids:
        return {}
    rows = await conn.fetch(
        f"SELECT {CHUNK_COLUMNS}, {MARK_COLUMNS} FROM chunks c {marks_join('c')} "
        f"WHERE c.id = ANY($4::text[]) AND {visible_rows(1, 'c')}",
        *reader_params(reader),
        list(ids),
    )
    return {view.id: view for view in map(chunk_view, rows)}


async def chunks_by_kind(
    conn: Connection | asyncpg.Pool, kind: str, reader: Scope, limit: int
) -> list[ChunkView]:
    """The newest visible chunks of one kind (no embedding involved)."""
    rows = await conn.fetch(
        f"SELECT {CHUNK_COLUMNS}, {MARK_COLUMNS} FROM chunks c {marks_join('c')} "
        f"WHERE c.kind = $4 AND {visible_rows(1, 'c')} ORDER BY c.created_at DESC, c.id LIMIT $5",
        *reader_params(reader),
        kind,
        limit,
    )
    return [chunk_view(row) for row in rows]


class PgChunkReader:
    """Implements the domain's ``ChunkReader`` over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def by_ids(self, ids: Sequence[str], reader: Scope) -> dict[str, ChunkView]:
        """The visible chunks among ``ids``, keyed by id."""
        return await chunks_by_ids(self._pool, ids, reader)

    async def by_kind(self, kind: str, reader: Scope, limit: int) -> list[ChunkView]:
        """The newest visible chunks of one kind."""
        return await chunks_by_kind(self._pool, kind, reader, limit)
