"""``PgSourceCatalog``: the domain's ``SourceCatalog`` (listings of sources and originals,
scoped like every read) and ``SourceUnits`` (the sources of one crawl or repository branch at
one scope) over PostgreSQL; the statements are in ``catalog_sql``."""

from __future__ import annotations

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.sources.files.stored import NotKeptReason, StoredFile
from kenning.domain.sources.listing import SourceFilter, SourceView
from kenning.storage.db.visibility import reader_params
from kenning.storage.sources.catalog_sql import (
    CRAWL_SOURCES,
    FILES,
    REPOSITORY_SOURCES,
    SOURCES,
)


def stored_file(row: asyncpg.Record, prefix: str = "") -> StoredFile:
    """The original a row holds (its columns named ``<prefix><column>``)."""
    p = prefix
    reason = row[f"{p}not_kept"]
    return StoredFile(
        id=row[f"{p}id"],
        scope=Scope(row[f"{p}client_id"], row[f"{p}project_id"], row[f"{p}group_id"]),
        source_urn=row[f"{p}source_urn"],
        filename=row[f"{p}filename"],
        media_type=row[f"{p}media_type"],
        size=row[f"{p}size"],
        sha256=row[f"{p}sha256"],
        created_at=row[f"{p}created_at"],
        not_kept=NotKeptReason(reason) if reason else None,
    )


def _source(row: asyncpg.Record) -> SourceView:
    return SourceView(
        scope=Scope(row["client_id"], row["project_id"], row["group_id"]),
        source_urn=row["source_urn"],
        kind=row["kind"],
        source_kind=row["source_kind"],
        connection_id=row["connection_id"],
        chunk_count=row["chunk_count"],
        observed_at=row["observed_at"],
        indexed_at=row["updated_at"],
        file=stored_file(row, "file_") if row["file_id"] is not None else None,
    )


def _list(values: tuple[str, ...] | None) -> list[str] | None:
    return list(values) if values is not None else None


class PgSourceCatalog:
    """Source listings and unit lookups over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def sources(
        self, reader: Scope, where: SourceFilter, first: int, after: tuple[str, ...] | None
    ) -> list[SourceView]:
        filters = (_list(where.kinds), _list(where.source_kinds), _list(where.connection_ids))
        params = (*filters, where.urn_prefix, _list(after), first)
        rows = await self._pool.fetch(SOURCES, *reader_params(reader), *params)
        return [_source(row) for row in rows]

    async def files(
        self, reader: Scope, first: int, after: tuple[str, ...] | None
    ) -> list[StoredFile]:
        rows = await self._pool.fetch(FILES, *reader_params(reader), _list(after), first)
        return [stored_file(row) for row in rows]

    async def crawl_sources(self, scope: Scope, job_id: str) -> list[str]:
        rows = await self._pool.fetch(CRAWL_SOURCES, *reader_params(scope), job_id)
        return [row["source_urn"] for row in rows]

    async def repository_sources(self, scope: Scope, state_urn: str) -> list[str]:
        rows = await self._pool.fetch(REPOSITORY_SOURCES, *reader_params(scope), state_urn)
        return [row["source_urn"] for row in rows]
