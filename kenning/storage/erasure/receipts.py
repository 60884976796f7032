"""Erasure receipts and tombstones (migration 0027): the domain's ``ReceiptBook`` and
``TombstoneBook``. Neither table holds a key or a name: receipts hold counts, tombstones the
salted hashes of the erased forms (``kenning.domain.erasure.names``)."""

from __future__ import annotations

import json
import uuid
from typing import Any

import asyncpg

from kenning.domain.erasure.model import ErasureMode, Receipt, ReceiptStatus
from kenning.domain.erasure.names import NameMatch

_COLUMNS = (
    "id, client_id, mode, status, requested_by, requested_at, finished_at, job_id, "
    "counts::text AS counts"
)


def _receipt(row: Any) -> Receipt:
    return Receipt(
        id=row["id"],
        client_id=row["client_id"],
        mode=ErasureMode(row["mode"]),
        status=ReceiptStatus(row["status"]),
        requested_by=row["requested_by"],
        requested_at=row["requested_at"],
        finished_at=row["finished_at"],
        job_id=row["job_id"],
        counts=json.loads(row["counts"]),
    )


class PgReceipts:
    """Receipts in ``erasure_receipts``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def open(self, client_id: str, mode: ErasureMode, requested_by: str) -> Receipt:
        row = await self._pool.fetchrow(
            f"""INSERT INTO erasure_receipts (id, client_id, mode, status, requested_by)
                VALUES ($1, $2, $3, 'PENDING', $4) RETURNING {_COLUMNS}""",
            str(uuid.uuid4()),
            client_id,
            mode.value,
            requested_by,
        )
        return _receipt(row)

    async def attach_job(self, receipt_id: str, job_id: str) -> None:
        await self._pool.execute(
            "UPDATE erasure_receipts SET job_id = $2 WHERE id = $1", receipt_id, job_id
        )

    async def get(self, receipt_id: str) -> Receipt | None:
        row = await self._pool.fetchrow(
            f"SELECT {_COLUMNS} FROM erasure_receipts WHERE id = $1", receipt_id
        )
        return None if row is None else _receipt(row)

    async def list(self, client_id: str, limit: int) -> list[Receipt]:
        rows = await self._pool.fetch(
            f"""SELECT {_COLUMNS} FROM erasure_receipts WHERE client_id = $1
                ORDER BY requested_at DESC, id LIMIT $2""",
            client_id,
            limit,
        )
        return [_receipt(r) for r in rows]


class PgTombstones:
    """Tombstones in ``erasure_tombstones``, read per write (one index range per client)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def match(self, client_id: str) -> NameMatch:
        rows = await self._pool.fetch(
            "SELECT form_hash, words FROM erasure_tombstones WHERE client_id = $1", client_id
        )
        return NameMatch.stored(client_id, {r["form_hash"]: r["words"] for r in rows})
