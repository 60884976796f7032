"""``PgFileStore``: originals in ``source_files`` (migration 0015), their bytes as large
objects written with ``lo_from_bytea`` and read with ``lo_get`` in slices; deleting a row
unlinks its object (a row trigger). ``settle`` unlinks a not-kept file's object itself and
keeps its row as a tombstone (``content_oid`` NULL, ``not_kept`` the reason). ``sweep``
deletes what no job will index and bytes no row points to (``file_sweep_sql``)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.off_loop import off_loop
from kenning.domain.sources.files.stored import (
    SLICE_BYTES,
    FileSweep,
    NotKeptReason,
    StoredFile,
)
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params, visible_rows
from kenning.storage.sources.files.file_sweep_sql import SWEEP_LOCK, SWEEP_OBJECTS, SWEEP_ORPHANS

_COLUMNS: Final = (
    "id, client_id, project_id, group_id, source_urn, filename, media_type, size, sha256, "
    "created_at, not_kept"
)
_SAME: Final = (
    "client_id = $1 AND project_id = $2 AND group_id = $3 AND source_urn = $4 AND sha256 = $5"
)

_OF_SOURCE: Final = (
    "SELECT id, content_oid FROM source_files "
    "WHERE client_id = $1 AND project_id = $2 AND group_id = $3 AND source_urn = $4"
)
_MINE: Final = (
    "client_id = $1 AND project_id = $2 AND group_id = $3 AND source_urn = $4 AND id = $5"
)


def _stored(row: Any) -> StoredFile:
    return StoredFile(
        id=row["id"],
        scope=Scope(row["client_id"], row["project_id"], row["group_id"]),
        source_urn=row["source_urn"],
        filename=row["filename"],
        media_type=row["media_type"],
        size=row["size"],
        sha256=row["sha256"],
        created_at=row["created_at"],
        not_kept=NotKeptReason(row["not_kept"]) if row["not_kept"] else None,
    )


async def _written(conn: Connection, data: bytes) -> int:
    """A new large object holding ``data``, written a slice at a time: one 100 MB parameter
    made the driver copy and send it in one step of the event loop (150 ms)."""
    oid: int = await conn.fetchval("SELECT lo_create(0)")
    for offset in range(0, len(data), SLICE_BYTES):
        piece = data[offset : offset + SLICE_BYTES]
        await conn.execute("SELECT lo_put($1, $2, $3)", oid, offset, piece)
    return oid


class PgFileStore:
    """The ``FileStore`` port over PostgreSQL large objects."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def save(
        self, scope: Scope, source_urn: str, filename: str, media_type: str, data: bytes
    ) -> StoredFile:
        """Store ``data`` at ``scope``, or answer the file of the same source and content."""
        # Off the loop: hashing 100 MB (KENNING_MAX_FILE_BYTES) takes 100 ms.
        sha = await off_loop(len(data), lambda: hashlib.sha256(data).hexdigest())
        key = (*reader_params(scope), source_urn, sha)
        async with self._pool.acquire() as conn, conn.transaction():
            # The same content again: a copy not yet indexed counts as uploaded now, so the
            # file sweep spares it until the job queued next has had its chance.
            found = await conn.fetchrow(
                f"UPDATE source_files SET created_at = now() WHERE {_SAME} AND indexed_at IS NULL "
                f"RETURNING {_COLUMNS}",
                *key,
            ) or await conn.fetchrow(f"SELECT {_COLUMNS} FROM source_files WHERE {_SAME}", *key)
            if found is not None:
                return _stored(found)
            oid = await _written(conn, data)
            row = await conn.fetchrow(
                f"""INSERT INTO source_files (id, client_id, project_id, group_id, source_urn,
                    sha256, filename, media_type, size, content_oid)
                VALUES ($6, $1, $2, $3, $4, $5, $7, $8, $9, $10)
                ON CONFLICT ON CONSTRAINT uq_source_files_content DO NOTHING
                RETURNING {_COLUMNS}""",
                *key,
                str(uuid.uuid4()),
                filename[:512],
                media_type,
                len(data),
                oid,
            )
            if row is None:  # a concurrent upload of the same content won
                await conn.execute("SELECT lo_unlink($1)", oid)
                row = await conn.fetchrow(
                    f"SELECT {_COLUMNS} FROM source_files WHERE {_SAME}", *key
                )
            return _stored(row)

    async def get(self, file_id: str, reader: Scope) -> StoredFile | None:
        """The file ``reader`` may see (the chunks' visibility rule), else None."""
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM source_files WHERE id = $4 AND {visible_rows(1)}",
            *reader_params(reader),
            file_id,
        )
        return _stored(row) if row is not None else None

    async def read(self, file: StoredFile, slice_bytes: int = SLICE_BYTES) -> AsyncIterator[bytes]:
        """The bytes of ``file``, one ``lo_get`` slice at a time (each its own statement, so a
        slow reader holds no transaction open)."""
        oid = await self._pool.fetchval(
            "SELECT content_oid FROM source_files WHERE id = $1", file.id
        )
        if oid is None:
            return
        offset = 0
        while offset < file.size:
            piece = await self._pool.fetchval(
                "SELECT lo_get($1, $2, $3)", oid, offset, min(slice_bytes, file.size - offset)
            )
            if not piece:
                return
            yield bytes(piece)
            offset += len(piece)

    async def delete(self, file_id: str, writer: Scope) -> bool:
        """Delete the file stored at exactly ``writer``'s scope; the trigger unlinks its bytes."""
        deleted = await self._pool.fetchval(
            "WITH d AS (DELETE FROM source_files WHERE id = $4 AND client_id = $1 "
            "AND project_id = $2 AND group_id = $3 RETURNING 1) SELECT count(*) FROM d",
            *reader_params(writer),
            file_id,
        )
        return bool(deleted)

    async def sweep(self, orphaned_for: timedelta) -> FileSweep:
        """One sweeper at a time (a transaction-scoped advisory lock; the others skip)."""
        counts: list[int] = []
        async with self._pool.acquire() as conn:
            # Two transactions: an object that cannot be unlinked never undoes the files'.
            for sql, args in ((SWEEP_ORPHANS, (orphaned_for,)), (SWEEP_OBJECTS, ())):
                async with conn.transaction():
                    if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", SWEEP_LOCK):
                        return FileSweep(*counts)
                    counts.append(int(await conn.fetchval(sql, *args)))
        return FileSweep(*counts)

    async def settle(self, file: StoredFile, not_kept: NotKeptReason | None) -> int:
        """Mark ``file`` indexed, unlink its object when not kept, delete the originals of its
        source and scope indexed before it; one transaction, idempotent."""
        scope = (*reader_params(file.scope), file.source_urn, file.id)
        async with self._pool.acquire() as conn, conn.transaction():
            # Every original of the source, in id order, as a purge takes them: taking this
            # one first and the older ones later could deadlock with a purge.
            rows = await conn.fetch(f"{_OF_SOURCE} ORDER BY id FOR UPDATE", *scope[:4])
            row = next((r for r in rows if r["id"] == file.id), None)
            if row is None:  # purged while its job ran: nothing of the source is left
                return 0
            if not_kept is not None and row["content_oid"] is not None:
                await conn.execute(
                    "SELECT lo_unlink(oid) FROM pg_largeobject_metadata WHERE oid = $1",
                    row["content_oid"],
                )
            indexed_at = await conn.fetchval(
                f"""UPDATE source_files SET indexed_at = coalesce(indexed_at, now()),
                    content_oid = CASE WHEN $6::text IS NULL THEN content_oid END,
                    not_kept = coalesce($6, not_kept)
                WHERE {_MINE} RETURNING indexed_at""",
                *scope,
                not_kept.value if not_kept is not None else None,
            )
            # Indexed before this one: superseded. Still queued (indexed_at NULL): kept. A
            # retried settle deletes no file indexed after this one's first.
            superseded = await conn.fetchval(
                "WITH d AS (DELETE FROM source_files WHERE client_id = $1 AND project_id = $2 "
                "AND group_id = $3 AND source_urn = $4 AND id <> $5 AND indexed_at <= $6 "
                "RETURNING 1) SELECT count(*) FROM d",
                *scope,
                indexed_at,
            )
        return int(superseded)
