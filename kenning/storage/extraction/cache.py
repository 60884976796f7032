"""``PgExtractionCache``: model answers per (client, chunk content hash, model, prompt
version), in ``extraction_cache``; ``PgSourceChunks``: a source's chunks for extraction."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from typing import Any

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.ports import CacheKey, StoredChunk


def chunk_content_hash(content: str) -> str:
    """The digest a chunk's answer is cached under: its text alone (sha256, hex)."""
    return hashlib.sha256(content.encode()).hexdigest()


class PgExtractionCache:
    """Implements the domain's ``ExtractionCache``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get_many(
        self, key: CacheKey, content_hashes: Collection[str]
    ) -> dict[str, Mapping[str, Any]]:
        if not content_hashes:
            return {}
        rows = await self._pool.fetch(
            """SELECT content_hash, result FROM extraction_cache
               WHERE client_id = $1 AND model = $2 AND prompt_version = $3
                 AND content_hash = ANY($4::text[])""",
            key.client_id,
            key.model,
            key.prompt_version,
            sorted(set(content_hashes)),
        )
        return {r["content_hash"]: json.loads(r["result"]) for r in rows}

    async def put(self, key: CacheKey, content_hash: str, result: Mapping[str, Any]) -> None:
        # Without waiting for the WAL flush: a row lost to a crash costs one model call
        # again, never correctness, and the wait was most of a cached chunk's cost.
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL synchronous_commit TO OFF")
            await conn.execute(
                """INSERT INTO extraction_cache (client_id, content_hash, model,
                                                 prompt_version, result)
                   VALUES ($1, $2, $3, $4, $5::jsonb)
                   ON CONFLICT (client_id, content_hash, model, prompt_version)
                   DO UPDATE SET result = EXCLUDED.result, created_at = now()""",
                key.client_id,
                content_hash,
                key.model,
                key.prompt_version,
                json.dumps(dict(result)),
            )


class PgSourceChunks:
    """Implements the domain's ``SourceChunks`` (exactly the source's scope)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def chunks_of(self, scope: Scope, source_urn: str) -> list[StoredChunk]:
        rows = await self._pool.fetch(
            """SELECT id, ordinal, content, coalesce(observed_at, created_at) AS observed
               FROM chunks
               WHERE client_id = $1 AND project_id = $2 AND group_id = $3
                 AND source_urn = $4 ORDER BY ordinal""",
            scope.client_id,
            scope.project_id,
            scope.group_id,
            source_urn,
        )
        return [
            StoredChunk(
                r["id"], r["ordinal"], r["content"], chunk_content_hash(r["content"]), r["observed"]
            )
            for r in rows
        ]
