"""``PgNodeListing``: the domain's ``NodeListing`` over AGE's vertex table, scoped by
``visible_graph`` and ordered by key (``ix_entity_key``)."""

from __future__ import annotations

from functools import cache

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.storage.db.agtype import prop
from kenning.storage.db.visibility import reader_params, visible_graph
from kenning.storage.ingestion.graph_write_sql import GraphSql


@cache
def node_keys_sql(graph: str) -> str:
    """Distinct visible keys: ``$1..$3`` the reader, ``$4`` types (null: any), ``$5`` the key
    to start after (null: the first), ``$6`` the limit."""
    key = prop("v", "key")
    return f"""
        SELECT DISTINCT {key} AS key FROM {GraphSql(graph).vertices} v
        WHERE ({visible_graph("v", 1)})
          AND ($4::text[] IS NULL OR {prop("v", "type")} = ANY($4::text[]))
          AND ($5::text IS NULL OR {key} > $5::text)
        ORDER BY 1
        LIMIT $6"""


class PgNodeListing:
    """Lists visible node keys of one graph."""

    def __init__(self, pool: asyncpg.Pool, graph: str) -> None:
        self._pool, self._sql = pool, node_keys_sql(graph)

    async def node_keys(
        self, reader: Scope, types: tuple[str, ...] | None, first: int, after: str | None
    ) -> list[str]:
        listed = list(types) if types is not None else None
        rows = await self._pool.fetch(self._sql, *reader_params(reader), listed, after, first)
        return [row["key"] for row in rows]
