"""``PgGraphReader``: the domain's ``GraphReader`` over AGE's label tables with asyncpg.

Reads never go through Cypher: AGE's variable-length patterns and ``shortestPath`` were
measured 10 to 100 times slower than plain SQL over the label tables, and parsing agtype vertices
costs about 0.5 ms each. Each method is one statement (see ``graph_read_sql``); traversals
(``kenning.domain.graph.traverse``) call ``expand``/``hops`` once per level. Every statement is
scoped by ``visible_graph`` with the reader's scope. ``find_nodes`` (the domain's
``NodeFinder``) runs its statement in a transaction that sets its trigram threshold.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.graph.chunk_view import ChunkView
from kenning.domain.graph.find import (
    WORD_SIMILARITY_THRESHOLD,
    FindNodesQuery,
    MatchedOn,
    NodeHit,
)
from kenning.domain.graph.model import (
    Direction,
    EdgeValidity,
    EdgeView,
    Hop,
    NodeView,
    VertexPart,
    merge_vertices,
)
from kenning.domain.ingestion.edge_sources import (
    EvidenceKind,
    assertions_of,
    evidence_kind,
    newest_properties,
)
from kenning.domain.ingestion.validity import EndReason, from_iso, iso
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params
from kenning.storage.graph.chunk_reads import chunk_view
from kenning.storage.graph.find_sql import THRESHOLD_SETTING, find_nodes_sql
from kenning.storage.graph.read_sql import Validity, graph_read_sql


def _edge(row: asyncpg.Record) -> EdgeView:
    evidence = json.loads(row["evidence"]) if row["evidence"] else None
    # Assertions' ids name sources, not chunks: they are read from ``assertions``.
    chunks = [e for e in evidence or () if evidence_kind(e) is EvidenceKind.TEXT]
    return EdgeView(
        id=row["id"],
        edge_type=row["edge_type"],
        from_key=row["from_key"],
        to_key=row["to_key"],
        scope=stored_scope(row["client"], row["project"], row["grp"]),
        evidence_chunk_ids=tuple(chunks),
        extracted_by=row["extracted_by"],
        extraction_confidence=_number(row["extraction_confidence"]),
        validity=_validity(row),
        assertions=assertions_of(_json(row["assertions"])),
        properties=newest_properties(_json(row["source_properties"])),
    )


def _json(text: str | None) -> object:
    return json.loads(text) if text else None


def _validity(row: asyncpg.Record) -> EdgeValidity:
    def at(column: str) -> datetime | None:
        text = row[column]
        return from_iso(text) if text else None

    reason = row["ended_reason"]
    return EdgeValidity(
        valid_from=at("valid_from"),
        valid_to=at("valid_to"),
        recorded_at=at("recorded_at"),
        ended_at=at("ended_at"),
        ended_reason=EndReason(reason) if reason else None,
        ended_by=row["ended_by"] or None,
    )


def _number(text: str | None) -> float | None:
    """A numeric property read as text; None when absent or not a number."""
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


@asynccontextmanager
async def _connection(pool: asyncpg.Pool | Connection) -> AsyncIterator[Connection]:
    if isinstance(pool, asyncpg.Pool):
        async with pool.acquire() as conn:
            yield conn
    else:
        yield pool


def _typed(edge_types: tuple[str, ...] | None) -> tuple[object, ...]:
    return () if edge_types is None else (list(edge_types),)


class PgGraphReader:
    """Implements ``GraphReader`` and ``NodeFinder``; every method is one statement."""

    def __init__(
        self,
        pool: asyncpg.Pool | Connection,
        graph: str,
        as_of: datetime | None = None,
        validity: Validity | None = None,
    ) -> None:
        self._pool = pool
        self._sql = graph_read_sql(graph)
        self._graph = graph
        # Which edges the statements read; the time (AT) is their trailing parameter.
        self._validity = validity or (Validity.NOW if as_of is None else Validity.AT)
        self._when: tuple[object, ...] = () if as_of is None else (iso(as_of),)

    def at(self, when: datetime | None) -> PgGraphReader:
        return PgGraphReader(self._pool, self._graph, when)

    def every(self) -> PgGraphReader:
        """This reader over every edge, ended ones included (no validity filter)."""
        return PgGraphReader(self._pool, self._graph, validity=Validity.EVERY)

    async def every_edge_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[EdgeView]]:
        return await self.every().edges_of(reader, keys, Direction.BOTH, None, limit)

    async def find_nodes(self, reader: Scope, query: FindNodesQuery) -> list[NodeHit]:
        args = (*reader_params(reader), query.text, query.exact_key, query.exact_id)
        types = None if query.types is None else list(query.types)
        every = reader.client_id == ""
        clients = () if every else ([reader.client_id, ""],)
        async with _connection(self._pool) as conn, conn.transaction():
            # The threshold of `<%` is a setting; LOCAL keeps it to this transaction.
            await conn.execute(
                "SELECT set_config($1, $2, true)", THRESHOLD_SETTING, str(WORD_SIMILARITY_THRESHOLD)
            )
            sql = find_nodes_sql(self._graph, every)
            rows = await conn.fetch(sql, *args, query.limit, types, *clients)
        return [
            NodeHit(row["key"], row["score"], row["exact"], MatchedOn(row["matched_on"]))
            for row in rows
        ]

    async def nodes(self, reader: Scope, keys: Sequence[str]) -> dict[str, NodeView]:
        if not keys:
            return {}
        rows = await self._pool.fetch(
            self._sql.nodes_by_keys(), *reader_params(reader), sorted(set(keys))
        )
        parts: dict[str, list[VertexPart]] = defaultdict(list)
        for row in rows:
            scope = stored_scope(row["client"], row["project"], row["grp"])
            parts[row["key"]].append(VertexPart(scope, row["type"], json.loads(row["props"])))
        merged = {key: merge_vertices(key, found, reader) for key, found in parts.items()}
        return {key: node for key, node in merged.items() if node is not None}

    async def edges_of(
        self,
        reader: Scope,
        keys: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> dict[str, list[EdgeView]]:
        if not keys or edge_types == ():
            return {}
        rows = await self._pool.fetch(
            self._sql.edges_of_nodes(direction, edge_types is not None, self._validity),
            *reader_params(reader),
            sorted(set(keys)),
            limit,
            *_typed(edge_types),
            *self._when,
        )
        found: dict[str, list[EdgeView]] = defaultdict(list)
        for row in rows:
            found[row["node_key"]].append(_edge(row))
        return dict(found)

    async def degrees(self, reader: Scope, keys: Sequence[str]) -> dict[str, int]:
        if not keys:
            return {}
        rows = await self._pool.fetch(
            self._sql.degrees(self._validity),
            *reader_params(reader),
            sorted(set(keys)),
            *self._when,
        )
        return {row["key"]: int(row["degree"]) for row in rows}

    async def expand(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[EdgeView]:
        rows = await self._frontier(reader, frontier, direction, edge_types, limit, lean=False)
        return [_edge(row) for row in rows]

    async def hops(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
    ) -> list[Hop]:
        rows = await self._frontier(reader, frontier, direction, edge_types, limit, lean=True)
        return [Hop(row["id"], row["from_key"], row["to_key"]) for row in rows]

    async def _frontier(
        self,
        reader: Scope,
        frontier: Sequence[str],
        direction: Direction,
        edge_types: tuple[str, ...] | None,
        limit: int,
        *,
        lean: bool,
    ) -> list[asyncpg.Record]:
        if not frontier or edge_types == ():
            return []
        return await self._pool.fetch(
            self._sql.frontier_edges(direction, edge_types is not None, lean, self._validity),
            *reader_params(reader),
            sorted(set(frontier)),
            limit,
            *_typed(edge_types),
            *self._when,
        )

    async def edges_by_ids(self, reader: Scope, ids: Sequence[int]) -> dict[int, EdgeView]:
        if not ids:
            return {}
        rows = await self._pool.fetch(
            self._sql.edges_by_ids(self._validity),
            *reader_params(reader),
            sorted(set(ids)),
            *self._when,
        )
        return {row["id"]: _edge(row) for row in rows}

    async def chunks_of(
        self, reader: Scope, keys: Sequence[str], limit: int
    ) -> dict[str, list[ChunkView]]:
        if not keys:
            return {}
        rows = await self._pool.fetch(
            self._sql.chunks_of_nodes(), *reader_params(reader), sorted(set(keys)), limit
        )
        found: dict[str, list[ChunkView]] = defaultdict(list)
        for row in rows:
            found[row["node_key"]].append(chunk_view(row))
        return dict(found)
