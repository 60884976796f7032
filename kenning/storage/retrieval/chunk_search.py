"""``PgChunkIndex``: the ``ChunkIndex`` port over pgvector HNSW and PostgreSQL full text.

Filtered nearest-neighbour search uses pgvector 0.8's iterative index scans: a plain HNSW
scan looks at ``ef_search`` candidates and filters them afterwards, so a reader who may see
1 % of the chunks would get about 1 % of ``limit`` rows. With ``hnsw.iterative_scan`` the
scan resumes until ``limit`` rows pass the scope and filters, or ``max_scan_tuples`` index
tuples were visited. ``relaxed_order`` is the faster mode (the statement re-sorts the rows);
``strict_order`` is the alternative when exact order during the scan matters.

Before the walk, a probe of the same statement with a small ``ef_search`` finds the best
similarity the graph offers. When it is below ``exact_below`` the query resembles no chunk
enough for the walk to be trusted, and PostgreSQL compares every visible vector instead
(``exact_sql``) when the reader's clients hold at most ``exact_max_rows`` chunks. Above that
and up to ``resident_rows``, every search compares every visible vector in this process's
memory (``resident``) once a copy current in the search's snapshot is loaded, since there it
costs a few milliseconds more than the walk (see ``VectorScan``), so no probe decides; a
filtered one compares the rows of the chunks that pass only (their keys read first, in the
same snapshot), unless more than ``resident_filter_rows`` pass. Otherwise the walk answers.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from typing import cast

import asyncpg
import numpy as np

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import IndexHit, SearchFilters
from kenning.storage.db.pool import Connection
from kenning.storage.graph.chunk_reads import chunk_view, with_marks
from kenning.storage.retrieval import bm25_sql, exact_sql, vector_sql
from kenning.storage.retrieval.filter_sql import Statement, StatementArgs
from kenning.storage.retrieval.resident import ResidentVectors
from kenning.storage.retrieval.resident_copy import nearest as resident_nearest
from kenning.storage.retrieval.resident_copy import nearest_among
from kenning.storage.retrieval.search_way import MAX_EF_SEARCH, VectorScan, Way, choose_way, probed

__all__ = ["MAX_EF_SEARCH", "PgChunkIndex", "VectorScan"]


class PgChunkIndex:
    """Search over the ``chunks`` table; each search is one statement on one connection."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        scan: VectorScan | None = None,
        bm25: bm25_sql.Bm25 | None = None,
        on_resident: Callable[[int], None] | None = None,
    ) -> None:
        """``on_resident`` hears the rows held in memory after each change of them."""
        self._pool = pool
        self._scan = scan or VectorScan()
        self._bm25 = bm25 or bm25_sql.Bm25()
        rows = self._scan.resident_rows
        self._resident = ResidentVectors(pool, rows, on_change=on_resident) if rows else None
        # How many searches each way answered: "walk", "scan", "resident".
        self.ways: Counter[str] = Counter()

    @property
    def resident_rows(self) -> int:
        """The ``chunk_vectors`` rows this process holds in memory now."""
        return self._resident.rows if self._resident is not None else 0

    async def warm(self, reader: Scope) -> int:
        """Load the resident copies of the reader's clients now (its own and the global
        one) when its searches would use them, as its first search does in the background;
        the rows this process holds after."""
        resident = self._resident
        if resident is None or not reader.client_id:
            return 0
        async with self._pool.acquire() as conn, conn.transaction():
            chunks = await self._probe_settings(conn, reader)
        if self._scan.exact_max_rows < chunks <= resident.max_rows:
            await resident.settled()
            for client_id in (reader.client_id, ""):
                await resident.load(client_id)
        return resident.rows

    async def resident_loads(self) -> None:
        """Wait for the resident copies loading in the background."""
        if self._resident is not None:
            await self._resident.settled()

    async def close(self) -> None:
        """Stop loading resident copies (before the pool closes)."""
        if self._resident is not None:
            await self._resident.aclose()

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Visible chunks nearest to ``embedding``; score is the cosine similarity."""
        rows, _ = await self.nearest_rows(embedding, reader, filters, limit)
        return await self._hits(rows)

    async def nearest_rows(
        self,
        embedding: Sequence[float] | np.ndarray,
        reader: Scope,
        filters: SearchFilters,
        limit: int,
    ) -> tuple[list[asyncpg.Record], bool]:
        """``nearest``'s rows (``CHUNK_COLUMNS``, ``distance``, ``score``), and whether an
        exact way (the scan or resident copies) gave them. One repeatable-read snapshot: a
        resident copy is checked and its candidates re-ranked in the same one."""
        walk = vector_sql.nearest(filters, one_client=bool(reader.client_id))
        args = StatementArgs(reader, np.asarray(embedding, dtype=np.float32))
        async with (
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            exact = await self._exact(conn, reader, filters, walk, args, limit)
            if exact is not None:
                return exact, True
            await self._set(conn, self._scan.ef_for(limit))
            self.ways["walk"] += 1
            return await conn.fetch(walk.text, *args.values(walk, limit)), False

    async def _exact(
        self,
        conn: Connection,
        reader: Scope,
        filters: SearchFilters,
        walk: Statement,
        args: StatementArgs,
        limit: int,
    ) -> list[asyncpg.Record] | None:
        """The exact answer, or ``None`` when the walk answers (``choose_way`` decides)."""
        scan, one_client = self._scan, bool(reader.client_id)
        chunks = await self._probe_settings(conn, reader) if scan.counts_chunks else None
        way = choose_way(scan, chunks, one_client=one_client)
        if way is Way.RESIDENT and self._resident is not None:
            return await self._from_copies(conn, self._resident, args, limit, filters)
        if way is not Way.PROBE:
            return None
        probe = await conn.fetch(walk.text, *args.values(walk, 1))
        if probed(scan, float(probe[0]["score"]) if probe else None) is Way.WALK:
            return None
        self.ways["scan"] += 1
        exact = exact_sql.nearest_exact(
            filters, one_client=one_client, narrow_rows=scan.exact_filter_rows
        )
        return await conn.fetch(exact.text, *args.values(exact, limit))

    async def _from_copies(
        self,
        conn: Connection,
        resident: ResidentVectors,
        args: StatementArgs,
        limit: int,
        filters: SearchFilters,
    ) -> list[asyncpg.Record] | None:
        """The exact answer from the reader's clients' resident copies when they are current
        in this snapshot; else ``None`` and the stale or missing ones start loading. A
        filtered search compares the rows of the chunks that pass only (``None`` when more
        than ``resident_filter_rows`` do: the walk answers)."""
        state = await conn.fetch(exact_sql.RESIDENT_STATE, *args.scope)
        copies = [resident.current(r["client_id"], int(r["version"])) for r in state]
        ready = [copy for copy in copies if copy is not None]
        if len(ready) < len(copies):
            for row, copy in zip(state, copies, strict=True):
                if copy is None:
                    resident.want(row["client_id"], int(row["version"]))
            return None
        query = cast(np.ndarray, args.query)
        count = exact_sql.candidates(limit)
        if filters == SearchFilters():
            visible = [scope for row in state for scope in row["scopes"]]
            found = await asyncio.to_thread(resident_nearest, ready, query, visible, count)
        else:
            passing = await self._passing(conn, args, filters)
            if passing is None:
                return None
            found = await asyncio.to_thread(nearest_among, ready, query, passing, count)
        statement = exact_sql.nearest_among(one_client=True)
        keys = [c.client_id for c in found], [c.id for c in found]
        self.ways["resident"] += 1
        return await conn.fetch(statement, *args.fixed(limit), *keys)

    async def _passing(
        self, conn: Connection, args: StatementArgs, filters: SearchFilters
    ) -> dict[str, list[str]] | None:
        """The ids of the visible chunks that pass ``filters``, by client; ``None`` when
        more than ``resident_filter_rows`` pass."""
        most = self._scan.resident_filter_rows
        statement = exact_sql.passing_keys(filters, most)
        rows = await conn.fetch(statement.text, *args.scope, *statement.filter_args)
        if len(rows) > most:
            return None
        passing: dict[str, list[str]] = {}
        for row in rows:
            passing.setdefault(row["client_id"], []).append(row["id"])
        return passing

    async def _probe_settings(self, conn: Connection, reader: Scope) -> int:
        """Set the probe's scan settings; the chunks of the reader's clients."""
        scan = self._scan
        chunks = await conn.fetchval(
            exact_sql.PROBE_SETTINGS,
            str(scan.probe_ef_search),
            scan.iterative_scan,
            str(scan.max_scan_tuples),
            reader.client_id,
        )
        return int(chunks)

    async def _set(self, conn: Connection, ef_search: int) -> None:
        """The scan settings for the transaction's next nearest-neighbour statement."""
        scan = self._scan
        await conn.execute(
            vector_sql.SCAN_SETTINGS, str(ef_search), scan.iterative_scan, str(scan.max_scan_tuples)
        )

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Visible chunks holding any wanted term of ``text``, by BM25 over the query's ceiling.

        A filtered search first scores every chunk that passes, when few do
        (``matching_narrow``). Otherwise the top-k statement reads the head of each term's
        postings; when fewer than ``limit`` of its candidates pass the scope and filters and
        some were not walked, the statement that scores every posting answers instead.
        """
        one_client = bool(reader.client_id)
        args = StatementArgs(reader, text)
        if filters != SearchFilters():
            narrow = bm25_sql.matching_narrow(filters, self._bm25, one_client=one_client)
            rows = await self._pool.fetch(narrow.text, *args.values(narrow, limit))
            if not rows[0]["capped"]:
                return await self._hits([row for row in rows if row["id"] is not None])
        fast = bm25_sql.matching(filters, self._bm25, one_client=one_client)
        rows = await self._pool.fetch(fast.text, *args.values(fast, limit))
        if not bm25_sql.answered(rows, limit):
            every = bm25_sql.matching_exhaustive(filters, self._bm25, one_client=one_client)
            rows = await self._pool.fetch(every.text, *args.values(every, limit))
        return await self._hits(rows)

    async def _hits(self, rows: Sequence[asyncpg.Record]) -> list[IndexHit]:
        """The rows as hits, with the marks of chunks that no longer hold."""
        views = await with_marks(self._pool, [chunk_view(row) for row in rows])
        return [IndexHit(view, float(row["score"])) for view, row in zip(views, rows, strict=True)]
