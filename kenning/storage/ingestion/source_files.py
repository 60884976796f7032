"""A source's stored originals (``source_files``, migration 0015) inside a write unit.

A purge deletes them in its own transaction, before it locks the source; a file job's write
holds its original's row ``FOR SHARE`` first. The two row locks order the two: a purge that
came first leaves the job nothing to hold (its write ends SKIPPED), and a write that came
first commits before the purge deletes the row and then the chunks the write stored. Taking
the row before the source's lock in both keeps them from waiting on each other in a cycle.
"""

from __future__ import annotations

from typing import Final

from kenning.domain.access.scope import Scope
from kenning.storage.db.pool import Connection

# In id order, as ``PgFileStore.settle`` takes the rows of a source.
_REMOVE: Final = """
    WITH d AS (DELETE FROM source_files WHERE id IN (
                   SELECT id FROM source_files
                   WHERE client_id = $1 AND project_id = $2 AND group_id = $3
                     AND source_urn = $4
                   ORDER BY id FOR UPDATE)
               RETURNING 1)
    SELECT count(*) FROM d"""

_HOLD: Final = "SELECT true FROM source_files WHERE id = $1 FOR SHARE"


async def remove_files(conn: Connection, scope: Scope, source_urn: str) -> int:
    """Delete the originals of ``source_urn`` written at exactly ``scope``; the row trigger
    unlinks their bytes."""
    deleted = await conn.fetchval(
        _REMOVE, scope.client_id, scope.project_id, scope.group_id, source_urn
    )
    return int(deleted)


async def hold_file(conn: Connection, file_id: str) -> bool:
    """Lock the original's row against deletion until the transaction ends; False if gone."""
    return await conn.fetchval(_HOLD, file_id) is not None
